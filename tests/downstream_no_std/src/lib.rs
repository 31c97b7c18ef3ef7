//! A `#![no_std]` library that pools through pool-core: `::std` does not
//! resolve here, so everything the expansions need must come through
//! `pool_core` itself.
#![no_std]

extern crate alloc;

use alloc::string::String;
use alloc::vec::Vec;

use pool_core::{Pool, Poolable, pool};

/// A frame, pooled through the derive.
#[derive(Poolable, Default)]
pub struct Frame {
    /// The frame's bytes, cleared on release with their buffer kept.
    pub bytes: Vec<u8>,
    /// Its label, cleared on release.
    pub label: String,
}

pool! {
    /// Scratch buffers, pooled through `pool!`.
    pub static SCRATCH: Pool<Vec<u8>> = Pool::new(Vec::new);
}

/// Fills a pooled frame and a pooled buffer; returns the bytes written.
pub fn encode(label: &str, bytes: &[u8]) -> usize {
    let mut frame = Frame::acquire();
    frame.label.push_str(label);
    frame.bytes.extend_from_slice(bytes);
    let mut scratch = SCRATCH.acquire();
    scratch.extend_from_slice(&frame.bytes);
    frame.label.len() + scratch.len()
}

#[cfg(test)]
mod tests {
    // The test harness needs std; the library above is built without it
    // (`cargo build` in scripts/downstream.sh checks that).
    extern crate std;

    use super::*;

    #[test]
    fn pools_work_in_a_no_std_crate() {
        assert_eq!(encode("a", b"xyz"), 4);
        assert_eq!(encode("b", b"xyz"), 4);
        let stats = Frame::pool().stats();
        assert_eq!((stats.created, stats.reused()), (1, 1), "{stats:?}");
        assert_eq!(SCRATCH.stats().created, 1);
    }
}
