//! The process-wide epoch that rotation advances and every acquire and
//! release compares with its cache's (`crate::engine::slot`'s gate).
//!
//! Invariant: the epoch only moves forward, one step per rotation, and is
//! advanced with a read-modify-write, so two rotations never share an
//! epoch.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, Ordering, global};

/// An epoch counter. The pool reads it on every acquire and release with a
/// relaxed load (a plain `mov` on x86 and arm64), and only compares it: the
/// objects themselves are protected by the shared store's lock, so a thread
/// that reads a stale value at worst files its objects one tier too young or
/// too old, never unsafely.
pub(crate) struct Epoch(AtomicU64);

impl Epoch {
    /// The epoch, with a plain load, on the fast paths and for a slow path
    /// about to file objects in a shared store alike: there the ordering
    /// that matters comes from registering the pool (under the registry's
    /// lock) before this read, and the store files objects by its own
    /// epoch, which every rotation advances under the store's lock. A stale
    /// value only files objects as older, so they expire sooner, never
    /// later. A read-modify-write was tried: it wrote the line every
    /// thread's fast path reads, and made the loom models run past ten
    /// minutes.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Advances the epoch and returns the new value.
    pub(crate) fn advance(&self) -> u64 {
        self.0.fetch_add(1, Ordering::AcqRel) + 1
    }
}

global! {
    /// On lines of its own: every acquire and release on every thread
    /// reads it, so a neighbouring static that some thread writes often
    /// (a user's counter, a counting allocator's totals) would make each of
    /// those reads a miss. `CachePadded` keeps it off the line pair the
    /// CPU's adjacent-line prefetcher moves together, too.
    static EPOCH: CachePadded<Epoch> = CachePadded::new(Epoch(AtomicU64::new(0)));
}

/// The process-wide epoch.
#[inline]
pub(crate) fn epoch() -> &'static Epoch {
    &EPOCH
}
