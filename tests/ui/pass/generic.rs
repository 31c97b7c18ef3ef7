// Type and const parameters derive: each instantiation gets its own pool.
#![deny(warnings)]

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
    Buffer::<u8>::acquire().items.push(1);
    Fixed::<4>::acquire().bytes.push(1);
}
