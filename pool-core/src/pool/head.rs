//! The head of a run-time pool's per-thread part: what [`Pool::acquire`]
//! reaches of the calling thread's part on its fast path, with no call
//! into the run-time pool's code. The rest of the part (the count of
//! guards given back, the pool it belongs to, its owner) and the protocol
//! that keeps the pool alive are `crate::pool::runtime::part`'s, which
//! embeds this head first.
//!
//! Invariant: a head is the first field of a `#[repr(C)]` part, so a
//! pointer to the head is a pointer to the part, and its `home` is first,
//! so it is a pointer to the home of the guards lent through the part
//! ([`Home`]'s invariant). `cache` and `reset_on` are written only while no
//! thread owns the part; `lent` only by the owner thread. A part whose
//! `lent` has [`HELD`] set holds a strong count on its pool, so a guard
//! counted out of it in `lent` keeps the pool alive (`Part`'s protocol).
//!
//! [`Pool::acquire`]: crate::Pool::acquire

use std::cell::UnsafeCell;

use crossbeam_utils::CachePadded;

use crate::engine::cache::RawCache;
use crate::pool::config::ResetOn;
use crate::pool::guard::Home;
use crate::reset::Reset;
use crate::sync::{AtomicUsize, Ordering};

/// The unit of a part's counts of guards (`lent` here, `back` in the part).
pub(crate) const ONE: usize = 2;
/// `lent`'s flag: the part holds a strong count on its pool.
pub(crate) const HELD: usize = 1;

/// The head of a run-time pool's part (module docs). Generic only in its
/// home: what the fast acquire calls on it is compiled once, not once per
/// pooled type.
#[repr(C)]
pub(crate) struct PartHead<T: Reset + Send + 'static> {
    /// What the guards lent through the part point to. First (module
    /// docs).
    pub(crate) home: Home<T>,
    /// The owner's cache, without its type.
    pub(crate) cache: OwnerCache,
    /// The pool's `reset_on`, for the acquires through the part: read
    /// here, on the line the acquire reads anyway.
    pub(crate) reset_on: ResetOn,
    /// The guards lent through the part, and whether it holds its pool.
    pub(crate) lent: LentCount,
}

impl<T: Reset + Send + 'static> PartHead<T> {
    /// A head for a part whose guards go back through `home`, with
    /// `cache` for its first owner, of a pool that resets on `reset_on`.
    pub(crate) fn new(home: Home<T>, cache: RawCache, reset_on: ResetOn) -> Self {
        PartHead {
            home,
            cache: OwnerCache(UnsafeCell::new(cache)),
            reset_on,
            lent: LentCount(CachePadded::new(AtomicUsize::new(0))),
        }
    }
}

/// A part's cache: reached by the part's owner only, and replaced by the
/// next owner before its first use.
pub(crate) struct OwnerCache(UnsafeCell<RawCache>);

impl OwnerCache {
    /// The cache. Called by the part's owner only.
    #[inline]
    pub(crate) fn get(&self) -> &RawCache {
        // SAFETY: only the part's next owner replaces the cache, before
        // its first use, and no reference of the last owner's outlives its
        // handing the part back (module docs); the caller owns the part.
        unsafe { &*self.0.get() }
    }

    /// Gives the part a new cache for its new owner.
    ///
    /// # Safety
    ///
    /// The caller is the part's new owner, which has not used the part
    /// yet: no reference to the old cache is live.
    pub(crate) unsafe fn replace(&self, cache: RawCache) {
        // SAFETY: the caller's promise.
        unsafe { *self.0.get() = cache };
    }

    /// The cache, for the pool's drop.
    pub(crate) fn get_mut(&mut self) -> &mut RawCache {
        self.0.get_mut()
    }
}

/// `ONE` × guards lent + [`HELD`]: written by the owner only (a load and a
/// store per acquire), read by the pool's `close`. On a line of its own:
/// the home's line is read by every release of the part's guards, on
/// whatever thread, and sharing it would move that line between the cores
/// for every object handed across.
pub(crate) struct LentCount(CachePadded<AtomicUsize>);

impl LentCount {
    /// The count, for `close`, which no acquire can race (module docs of
    /// `crate::pool::runtime::part`).
    #[inline]
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Whether the part holds its count on the pool, as every part an
    /// acquire reaches does.
    #[inline]
    pub(crate) fn held(&self) -> bool {
        self.get() & HELD != 0
    }

    /// Records that the part now holds its count on the pool. Called by
    /// the owner, under the pool's lock on its parts.
    pub(crate) fn set_held(&self) {
        self.0.store(self.get() | HELD, Ordering::Relaxed);
    }

    /// Counts a guard lent, on the owner's thread, through a part that
    /// holds its count on the pool: a load and a store, as no other thread
    /// writes the count.
    #[inline]
    pub(crate) fn lend_held(&self) {
        self.0
            .store(self.get().wrapping_add(ONE), Ordering::Relaxed);
    }
}
