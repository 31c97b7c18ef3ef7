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

/// The head of a run-time pool's part (module docs).
#[repr(C)]
pub(crate) struct PartHead<T: Reset + Send + 'static> {
    /// What the guards lent through the part point to. First (module
    /// docs).
    pub(crate) home: Home<T>,
    /// The owner's cache, without its type: reached by the owner only,
    /// replaced by the next owner before its first use.
    pub(crate) cache: UnsafeCell<RawCache>,
    /// The pool's `reset_on`, for the acquires through the part: read
    /// here, on the line the acquire reads anyway.
    pub(crate) reset_on: ResetOn,
    /// `ONE` × guards lent + [`HELD`]: written by the owner only (a load
    /// and a store per acquire), read by the pool's `close`. On a line of
    /// its own: the home's line is read by every release of the part's
    /// guards, on whatever thread, and sharing it would move that line
    /// between the cores for every object handed across.
    pub(crate) lent: CachePadded<AtomicUsize>,
}

impl<T: Reset + Send + 'static> PartHead<T> {
    /// A head for a part whose guards go back through `home`, with
    /// `cache` for its first owner, of a pool that resets on `reset_on`.
    pub(crate) fn new(home: Home<T>, cache: RawCache, reset_on: ResetOn) -> Self {
        PartHead {
            home,
            cache: UnsafeCell::new(cache),
            reset_on,
            lent: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// The owner's cache. Called by the owner only.
    #[inline(always)]
    pub(crate) fn cache(&self) -> &RawCache {
        // SAFETY: only the part's next owner replaces the cache, before
        // its first use, and no reference of the last owner's outlives its
        // handing the part back (module docs); the caller owns the part.
        unsafe { &*self.cache.get() }
    }

    /// Whether the part holds its count on the pool, as every part an
    /// acquire reaches does.
    #[inline(always)]
    pub(crate) fn held(&self) -> bool {
        self.lent.load(Ordering::Relaxed) & HELD != 0
    }

    /// Counts a guard lent, on the owner's thread, through a part that
    /// holds its count on the pool: a load and a store, as no other thread
    /// writes `lent`.
    #[inline(always)]
    pub(crate) fn lend_held(&self) {
        let lent = self.lent.load(Ordering::Relaxed);
        self.lent.store(lent.wrapping_add(ONE), Ordering::Relaxed);
    }
}
