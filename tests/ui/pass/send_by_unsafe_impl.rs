// A struct that is `Send` by an `unsafe impl` of its own, with a field that
// is not (a `NonNull`): the derive's check that the struct is `Send` asks
// its fields only when it is not, so this compiles and pools.
#![deny(warnings)]

use std::ptr::NonNull;

use pool_core::Poolable;

#[derive(Poolable, Default)]
struct Buffer {
    start: Option<NonNull<u8>>,
    len: usize,
}

// SAFETY: nothing reads through `start`: it is a position only.
unsafe impl Send for Buffer {}

fn main() {
    let mut buffer = Buffer::acquire();
    buffer.start = Some(NonNull::dangling());
    buffer.len = 4;
    drop(buffer);
    let buffer = Buffer::acquire();
    assert!(buffer.start.is_none() && buffer.len == 0);
}
