use pool_core::Poolable;

#[derive(Poolable)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {
    let _ = Bits::acquire();
}
