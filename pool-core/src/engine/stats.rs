//! Pool statistics: the public [`Stats`] snapshot.
//!
//! Counting must not cost the hot path a shared cache line, so the two
//! counters bumped on every acquire and release (`hits_local`, `returned`)
//! live per thread, each thread's on its own cache line, written by that
//! thread alone with a load and a store (no read-modify-write): in its
//! slot (`crate::engine::slot`). A snapshot sums the live threads' counters
//! with the totals of threads that have exited. The rare events (creation,
//! detaching, discarding) are pool-wide atomics in the pool's core
//! (`crate::engine::core`); the shared store counts its own events under
//! its lock.

/// A snapshot of a pool's counters, from [`Pool::stats`](crate::Pool::stats).
///
/// Counters only grow, except `idle`. Taken while other threads use the
/// pool, a snapshot is a consistent-enough sum of counters read one by one;
/// taken when no thread is acquiring or releasing, it is exact, and
/// `created + reused()` objects have been handed out, of which
/// `in_use()` are held now.
///
/// "No thread" includes exiting threads and rotations. A thread's cache is
/// handed to the shared store by its thread-local destructor, which runs
/// after the thread's closure has returned: `JoinHandle::join` waits for
/// it, the end of a `std::thread::scope` does not (it waits for the
/// closures only), so join scoped threads explicitly before a snapshot
/// that must be exact. And a [`rotate`](crate::rotate) running on another
/// thread counts the objects it expires before their destructors have run.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     static NAMES: Pool<String> = Pool::new(String::new);
/// }
///
/// drop(NAMES.acquire()); // created, then returned
/// drop(NAMES.acquire()); // reused from this thread's cache
/// let stats = NAMES.stats();
/// assert_eq!(stats.created, 1);
/// assert_eq!(stats.hits_local, 1);
/// assert_eq!(stats.returned, 2);
/// assert_eq!(stats.idle, 1);
/// assert_eq!(stats.in_use(), 0);
/// ```
///
/// With the `serde` feature, `Stats` serializes as a map of its counters:
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use pool_core::{Pool, pool};
///
/// pool! { static JOBS: Pool<Vec<u8>> = Pool::new(Vec::new); }
///
/// drop(JOBS.acquire());
/// let json = serde_json::to_string(&JOBS.stats()).unwrap();
/// assert!(json.starts_with(r#"{"created":1,"hits_local":0,"#), "{json}");
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde_derive::Serialize))]
#[cfg_attr(feature = "serde", serde(crate = "serde"))]
#[non_exhaustive]
pub struct Stats {
    /// Objects made by the pool's constructor: because no idle one was
    /// found, or ahead of use by [`Pool::prefill`](crate::Pool::prefill).
    pub created: u64,
    /// Acquires served from the calling thread's cache.
    pub hits_local: u64,
    /// Acquires served from the shared primary tier.
    pub hits_primary: u64,
    /// Acquires served from the shared victim tier (objects that had been
    /// idle across one rotation).
    pub hits_victim: u64,
    /// Objects that became idle in the pool: given back by dropping their
    /// guard (reset, unless the pool resets on acquire), given with
    /// [`Pool::put`](crate::Pool::put) and kept, or made ahead of use by
    /// [`Pool::prefill`](crate::Pool::prefill). Every object the pool holds
    /// idle came in this way, so [`in_use`](Stats::in_use) is what was
    /// handed out and has not come back.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// BUFFERS.prefill(4); // made and filed idle: created and returned
    /// drop(BUFFERS.acquire()); // handed out, then given back
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.created, stats.returned, stats.idle), (4, 5, 4));
    /// assert_eq!(stats.in_use(), 0);
    /// ```
    pub returned: u64,
    /// Returned objects dropped because the tiers were full.
    pub dropped_capacity: u64,
    /// Idle objects dropped by rotation (idle across two rotations), or by
    /// [`Pool::clear`](crate::Pool::clear).
    pub dropped_rotation: u64,
    /// Objects dropped instead of returned: their guard was dropped during a
    /// panic, their `reset` panicked, or their user called
    /// [`Pooled::discard`](crate::Pooled::discard).
    pub discarded: u64,
    /// Released objects dropped, after their reset (before it, in a pool
    /// that resets on acquire), because the pool's
    /// `retain` predicate refused them
    /// ([`PoolConfig::retain`](crate::PoolConfig::retain)). Not counted in
    /// `returned`.
    pub rejected: u64,
    /// Objects taken out of the pool for good with
    /// [`Pooled::into_inner`](crate::Pooled::into_inner).
    pub detached: u64,
    /// Objects idle in the pool now, in the shared tiers and the thread
    /// caches.
    pub idle: u64,
    /// The bytes the idle objects hold: their heap, as
    /// [`Reset::heap_bytes`](crate::Reset::heap_bytes) counts it when they
    /// are released, and their boxes (the object and its padding). A type
    /// that does not count its heap ([`Heap::Unreported`](crate::Heap))
    /// counts its boxes only; an object [`prefill`](crate::Pool::prefill)
    /// made, its box until its first release. Exact, as `idle` is, when no
    /// thread uses the pool, for a type whose reset keeps what
    /// `heap_bytes` counts (every type pool-core implements `Reset` for
    /// but the B-tree collections and the linked list, in a pool that
    /// resets on acquire).
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let mut buf = BUFFERS.acquire();
    /// buf.reserve_exact(4096);
    /// drop(buf);
    /// let stats = BUFFERS.stats();
    /// assert_eq!(stats.idle, 1);
    /// assert!(stats.idle_bytes >= 4096 && stats.idle_bytes < 4096 + 128);
    ///
    /// BUFFERS.clear();
    /// assert_eq!(BUFFERS.stats().idle_bytes, 0);
    /// ```
    pub idle_bytes: u64,
    /// Objects made elsewhere and given to the pool with
    /// [`Pool::put`](crate::Pool::put). Each is then counted as a release
    /// is: in `returned` if the pool kept it (and in `dropped_capacity` if
    /// it was past the bounds), in `rejected` or `discarded` if its
    /// `retain` test or its `reset` refused it. Never in `created`.
    pub put: u64,
    /// Released objects that held more than the pool's bound in bytes and
    /// were shrunk to it, then kept (counted in `returned` too). See
    /// [Untrusted input](crate#untrusted-input).
    pub shrunk: u64,
    /// Released objects dropped because they held more than the pool's
    /// bound in bytes and could not shrink below it. Not counted in
    /// `returned`.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new).max_bytes(4096); }
    ///
    /// let mut buf = BUFFERS.acquire();
    /// buf.reserve(1 << 20);
    /// drop(buf); // shrunk to 4 KiB, kept
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.shrunk, stats.dropped_oversize, stats.idle), (1, 0, 1));
    /// assert!(BUFFERS.acquire().capacity() <= 4096);
    /// ```
    pub dropped_oversize: u64,
}

impl Stats {
    /// Acquires served by an idle object, from any tier.
    ///
    /// ```
    /// # use pool_core::Stats;
    /// let stats = Stats::default();
    /// assert_eq!(stats.reused(), stats.hits_local + stats.hits_primary + stats.hits_victim);
    /// ```
    pub fn reused(&self) -> u64 {
        self.hits_local + self.hits_primary + self.hits_victim
    }

    /// All acquires: created plus reused.
    ///
    /// ```
    /// # use pool_core::Stats;
    /// assert_eq!(Stats::default().acquired(), 0);
    /// ```
    pub fn acquired(&self) -> u64 {
        self.created + self.reused()
    }

    /// Objects handed out and not yet returned, discarded, rejected or
    /// detached. Objects given with [`Pool::put`](crate::Pool::put) were
    /// never handed out: they add to `put` as much as to `returned` (or
    /// `rejected`, `discarded`), so they leave `in_use` as it was.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let held = POOL.acquire();
    /// assert_eq!(POOL.stats().in_use(), 1);
    /// drop(held);
    /// assert_eq!(POOL.stats().in_use(), 0);
    /// ```
    pub fn in_use(&self) -> u64 {
        (self.acquired() + self.put).saturating_sub(
            self.returned + self.discarded + self.rejected + self.detached + self.dropped_oversize,
        )
    }
}

/// Adds `stats` to `name`'s in `named`, or lists them under `name`: for
/// pools published as one.
#[cfg(feature = "metrics")]
pub(crate) fn add_named(
    named: &mut Vec<(&'static str, Stats)>,
    name: &'static str,
    mut stats: Stats,
) {
    let Some((_, total)) = named.iter_mut().find(|(known, _)| *known == name) else {
        return named.push((name, stats));
    };
    for (count, more) in total.counters_mut().into_iter().zip(stats.counters_mut()) {
        *count += *more;
    }
    total.idle += stats.idle;
    total.idle_bytes += stats.idle_bytes;
}

impl Stats {
    /// Every counter (every field but the gauges, `idle` and `idle_bytes`),
    /// in one order, for what treats them alike ([`add_named`], the
    /// published floor).
    #[cfg(feature = "metrics")]
    pub(crate) fn counters_mut(&mut self) -> [&mut u64; 13] {
        let Stats {
            created,
            hits_local,
            hits_primary,
            hits_victim,
            returned,
            dropped_capacity,
            dropped_rotation,
            discarded,
            rejected,
            detached,
            put,
            shrunk,
            dropped_oversize,
            idle: _,
            idle_bytes: _,
        } = self;
        [
            created,
            hits_local,
            hits_primary,
            hits_victim,
            returned,
            dropped_capacity,
            dropped_rotation,
            discarded,
            rejected,
            detached,
            put,
            shrunk,
            dropped_oversize,
        ]
    }
}
