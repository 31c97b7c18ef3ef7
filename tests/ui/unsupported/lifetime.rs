use pool_core::Poolable;

#[derive(Poolable, Default)]
struct View<'a> {
    text: &'a str,
}

fn main() {}
