//! [`Census`]: objects that count themselves, so that a test can check a
//! pool's statistics against the objects' own account of what was made and
//! destroyed.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts of the objects of one pool, kept by the objects: the constructor
/// calls [`born`](Census::born), the destructor [`died`](Census::died).
///
/// ```
/// use pool_suite::census::Census;
///
/// static CENSUS: Census = Census::new();
/// CENSUS.born();
/// CENSUS.born();
/// CENSUS.died();
/// assert_eq!((CENSUS.made(), CENSUS.destroyed(), CENSUS.alive()), (2, 1, 1));
/// ```
#[derive(Debug)]
pub struct Census {
    made: AtomicUsize,
    destroyed: AtomicUsize,
}

impl Census {
    /// No objects yet; for a `static`.
    pub const fn new() -> Self {
        Census {
            made: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
        }
    }

    /// Counts an object made.
    pub fn born(&self) {
        self.made.fetch_add(1, Ordering::SeqCst);
    }

    /// Counts an object destroyed.
    pub fn died(&self) {
        self.destroyed.fetch_add(1, Ordering::SeqCst);
    }

    /// Objects made so far.
    pub fn made(&self) -> usize {
        self.made.load(Ordering::SeqCst)
    }

    /// Objects destroyed so far.
    pub fn destroyed(&self) -> usize {
        self.destroyed.load(Ordering::SeqCst)
    }

    /// Objects alive now.
    pub fn alive(&self) -> usize {
        self.made() - self.destroyed()
    }
}

impl Default for Census {
    fn default() -> Self {
        Census::new()
    }
}
