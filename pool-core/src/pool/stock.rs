//! What enters or leaves a pool other than through a guard: objects made
//! ahead of use ([`Pool::prefill`]), objects made elsewhere
//! ([`Pool::put`]), and every idle object dropped at once
//! ([`Pool::clear`]).
//!
//! Invariant: each goes the way the guard paths go (the same reset,
//! `retain` test, bounds and counters; rotation's handshake to reach other
//! threads' caches), so the statistics stay exact and no user code runs
//! under a lock.

use super::{Caches, Pool};
use crate::engine::erased::boxed_with;
use crate::reset::Reset;

impl<T: Reset + Send + 'static> Pool<T> {
    /// Makes objects until the shared store holds `n` idle ones (at most
    /// [`capacity`](crate::PoolConfig::capacity)), so that a burst on any thread
    /// is served without calling the constructor. Returns how many it made.
    /// Any `n` is accepted: only what the store can take is made, a batch
    /// at a time, and if the constructor panics the objects made so far
    /// are kept, idle, before the panic goes on.
    ///
    /// The objects wait in the shared primary tier, where every thread's
    /// first acquires find them (a thread's first miss also refills half
    /// its cache from them). They are counted as
    /// [`created`](crate::Stats::created) and [`returned`](crate::Stats::returned), so
    /// [`idle`](crate::Stats::idle) includes them. Like every idle object they
    /// age: unused across two [rotations](crate::rotate), they are dropped.
    /// The constructor runs on the calling thread, with no lock held.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! {
    ///     static BUFFERS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(4096)).capacity(16);
    /// }
    ///
    /// assert_eq!(BUFFERS.prefill(32), 16); // bounded by `capacity`
    /// assert_eq!(BUFFERS.prefill(8), 0); // the store already holds 8
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.created, stats.idle), (16, 16));
    ///
    /// let buf = BUFFERS.acquire(); // no constructor call
    /// assert!(buf.capacity() >= 4096);
    /// assert_eq!(BUFFERS.stats().created, 16);
    /// ```
    pub fn prefill(&self, n: usize) -> usize {
        self.state.prefill(n, || self.config.create.call())
    }

    /// Resets `value`, an object made elsewhere, and keeps it in the pool
    /// as an idle object, as if a guard of it had been dropped: the next
    /// acquire may return it.
    ///
    /// It goes where a release goes, after the same `reset` (none, in a
    /// pool that resets on acquire: the next acquire resets it) and the
    /// same [`retain`](crate::PoolConfig::retain) test: into the calling thread's cache
    /// (or the shared store when that is full), on every kind of pool. Past
    /// the bounds it is dropped and counted as `dropped_capacity`, as a
    /// release is.
    ///
    /// In [`Stats`](crate::Stats) it counts in [`put`](crate::Stats::put), never in
    /// [`created`](crate::Stats::created), and then as a release does: in
    /// `returned` (and `idle`) if kept, in `rejected` or `discarded` if its
    /// `retain` test or `reset` refused it; [`in_use`](crate::Stats::in_use) is
    /// unchanged.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let mut made_elsewhere = Vec::with_capacity(1024);
    /// made_elsewhere.extend_from_slice(b"old data");
    /// BUFFERS.put(made_elsewhere);
    ///
    /// let buf = BUFFERS.acquire(); // the same buffer, reset
    /// assert!(buf.is_empty() && buf.capacity() >= 1024);
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.created, stats.put, stats.in_use()), (0, 1, 1));
    /// ```
    pub fn put(&self, value: T) {
        self.state.core.count_put();
        let value = boxed_with(|| value);
        match &self.local {
            Caches::Static(_) => self.put_boxed(value),
            // SAFETY: a run-time pool's own allocation and `put`, alive
            // while `self`, which is in it, is.
            Caches::Owned(owned) => unsafe { (owned.put)(owned.inner, value) },
        }
    }

    /// Drops every idle object of this pool now: its shared store and its
    /// threads' caches, the calling thread's included. Objects held in
    /// guards are not touched, and go back to the pool as usual.
    ///
    /// A thread cache is reached as [`rotate`](crate::rotate) reaches it:
    /// a cache whose owner is in the middle of an acquire or a release on
    /// this pool is passed over (it stays as it is, to age as usual), and
    /// on platforms without a process-wide memory barrier (other than
    /// Linux and Windows) only the shared store and the calling thread's
    /// own cache are emptied. The
    /// objects are counted as [`dropped_rotation`](crate::Stats::dropped_rotation),
    /// and destroyed on the calling thread once the pool's locks are
    /// released. The global epoch does not move: other pools are not aged.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static LINES: Pool<String> = Pool::new(String::new); }
    ///
    /// let held: Vec<_> = (0..4).map(|_| LINES.acquire()).collect();
    /// drop(held); // four idle strings in this thread's cache
    /// assert_eq!(LINES.stats().idle, 4);
    ///
    /// LINES.clear();
    /// let stats = LINES.stats();
    /// assert_eq!((stats.idle, stats.dropped_rotation), (0, 4));
    /// ```
    pub fn clear(&self) {
        // This thread's cache first, through its own slow entry: the one
        // cache reachable without a process-wide barrier. Gone (in a
        // thread-local destructor), it has handed its objects over.
        match &self.local {
            Caches::Static(key) => {
                if let Some(cache) = crate::pool::fast::static_cache(key) {
                    cache.clear();
                }
            }
            // SAFETY: a run-time pool's own allocation and `clear`, alive
            // while `self`, which is in it, is.
            Caches::Owned(owned) => unsafe { (owned.clear)(owned.inner) },
        }
        self.state.core.clear();
    }
}
