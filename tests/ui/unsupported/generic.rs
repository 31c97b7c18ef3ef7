use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Buffer<T> {
    items: Vec<T>,
}

#[derive(Poolable, Default)]
struct Fixed<const N: usize> {
    bytes: Vec<u8>,
}

fn main() {
    let _ = Buffer::<u8>::acquire();
    let _ = Fixed::<4>::acquire();
}
