use pool_core::Poolable;

#[derive(Poolable, Default)]
#[pool(calibrate = "false")]
struct Quoted {
    body: Vec<u8>,
}

fn main() {
    let _ = Quoted::acquire();
}
