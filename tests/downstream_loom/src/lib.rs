//! A crate that depends on pool-core as a user's would: a derived type, a
//! `pool!` static, and a counter of its own that its loom test models.

use pool_core::{Pool, Poolable, pool};

/// A request decoded per call, pooled through the derive.
#[derive(Poolable, Default)]
pub struct Request {
    /// The path, cleared on release with its buffer kept.
    pub path: String,
    /// The body, cleared on release with its buffer kept.
    pub body: Vec<u8>,
}

pool! {
    /// Scratch buffers, pooled through `pool!`.
    pub static SCRATCH: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(8);
}

/// Handles one request: fills a pooled `Request` and a pooled buffer.
pub fn handle(path: &str, body: &[u8]) -> usize {
    let mut req = Request::acquire();
    req.path.push_str(path);
    req.body.extend_from_slice(body);
    let mut scratch = SCRATCH.acquire();
    scratch.extend_from_slice(&req.body);
    req.path.len() + scratch.len()
}

#[cfg(loom)]
use loom::sync::atomic::{AtomicUsize, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicUsize, Ordering};

/// The crate's own concurrent code, which its loom test models.
#[derive(Debug, Default)]
pub struct Hits(AtomicUsize);

impl Hits {
    /// Counts one hit; returns the count before it.
    pub fn hit(&self) -> usize {
        self.0.fetch_add(1, Ordering::AcqRel)
    }

    /// The hits so far.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}
