//! [`PoolCore`]: one pool's shared half, without its type: its shared
//! store, the registry of its threads' caches, its counters, and its
//! registration with [`rotate`](crate::rotate).
//!
//! Invariant: a pool is registered with rotation before any thread's cache
//! of it exists and before any of its objects is filed in its shared store,
//! and the epoch those objects are filed under is read after the
//! registration (see [`PoolCore::register`]), so every rotation that could
//! age them, in the store or in a cache, sees the pool.
//!
//! A typed pool holds its core inside its state (`crate::pool::state`),
//! which makes the core's [`Dispose`] for its `T`; the threads' caches reach
//! the core through a [`CoreRef`] (`crate::engine::cache`).

use std::ptr::NonNull;
use std::sync::Weak;

use crate::engine::bytes::Calibration;
use crate::engine::cache::policy::{Bounds, Local};
use crate::engine::erased::{Dispose, Erased};
use crate::engine::fork::{ForkHold, excluded};
use crate::engine::registry::{Entry, Rotate};
use crate::engine::rotation;
use crate::engine::slot::{
    CREATED, DROPPED, HITS_LOCAL, IDLE_IN, IDLE_OUT, RETURNED, Slots, epoch,
};
use crate::engine::stats::Stats;
use crate::engine::store::{Graveyard, Shared};
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering, const_fn, counters, lock};

/// A pool's state without its type: compiled once for every pool.
///
/// Invariant (erasure): every [`Erased`] object in it, in the store, a
/// cache of its registry or a graveyard it hands out, was made from a
/// `Boxed<T>` of the `T` its `dispose` was made for. Objects enter only
/// through [`PoolState<T>`] and the pool's fast paths, which erase them
/// from that `T`.
pub(crate) struct PoolCore {
    pub(crate) shared: Shared<Erased>,
    /// Every live thread's cache of this pool, for rotation and statistics.
    /// Locked before `shared` when both are.
    pub(crate) caches: Mutex<Slots<Local>>,
    /// The counters of the rare events, by the indices of a slot's
    /// (`crate::engine::slot`, whose counters have those of every acquire
    /// and release), then [`DISCARDED`] to [`OVERSIZE`]: objects made with
    /// no cache to count them, filed with no cache between (`returned`);
    /// the heap bytes of the objects filed with no thread cache's count
    /// between (`put_shared`, `prefill`), and of those acquires took from
    /// the store (with the caches' and the store's counts, the pool's idle
    /// bytes); objects discarded, refused by `retain`, detached, given with
    /// `Pool::put`, shrunk and dropped for their bytes.
    counts: [AtomicU64; COUNTERS],
    /// The bound in bytes it learns (`crate::engine::bytes`).
    pub(crate) calibration: Calibration,
    /// The bytes of an object's box (`Padded<T>`), for `Stats::idle_bytes`.
    box_bytes: usize,
    /// Its caches' bounds and its store's, for the paths with no cache.
    pub(crate) bounds: Bounds,
    /// Whether [`rotate`](crate::rotate) knows this pool.
    registered: AtomicBool,
    /// The name [`pools`](crate::pools) lists it under.
    name: &'static str,
    /// How the registry reaches the pool: `None` for a `pool!` static (the
    /// core itself, `&'static`), the run-time pool's own allocation, held
    /// weakly, for a pool made with [`Pool::builder`](crate::Pool::builder).
    owner: Option<Weak<dyn Rotate>>,
}

/// The core's own counters ([`PoolCore::counts`]), after the slot's.
const DISCARDED: usize = 6;
const REJECTED: usize = 7;
const DETACHED: usize = 8;
const PUT: usize = 9;
const SHRUNK: usize = 10;
const OVERSIZE: usize = 11;
const COUNTERS: usize = 12;

/// A pointer to a pool's [`PoolCore`], for its threads' caches: valid for
/// as long as any cache made with it (its maker's promise, [`CoreRef::new`]).
#[derive(Clone, Copy)]
pub(crate) struct CoreRef(NonNull<PoolCore>);

impl CoreRef {
    /// A pointer to no core, for a cache not yet registered
    /// (`ThreadCache::unset`), which reads it only once it is replaced.
    pub(crate) const NONE: CoreRef = CoreRef(NonNull::dangling());

    /// The core, for as long as the pointer is valid.
    ///
    /// # Safety
    ///
    /// The pointer is not [`CoreRef::NONE`].
    #[inline]
    pub(crate) unsafe fn get<'a>(self) -> &'a PoolCore {
        // SAFETY: the core outlives every holder of the pointer
        // (`CoreRef::new`); the caller's promise that it is one.
        unsafe { self.0.as_ref() }
    }

    /// # Safety
    ///
    /// `core` must outlive the returned pointer and every copy of it.
    #[inline]
    pub(crate) unsafe fn new(core: NonNull<PoolCore>) -> Self {
        CoreRef(core)
    }
}

// SAFETY: a shared reference to a `PoolCore`, which is `Sync` (its
// mutable parts are behind locks and atomics).
unsafe impl Send for CoreRef {}
// SAFETY: as above.
unsafe impl Sync for CoreRef {}

impl PoolCore {
    const_fn! {
        /// An empty core named `name`, within `bounds`, whose objects
        /// `dispose` destroys.
        ///
        /// # Safety
        ///
        /// `dispose` must accept every object that will be filed in the
        /// core (the erasure invariant).
        pub(crate) unsafe fn new(
            name: &'static str,
            bounds: Bounds,
            dispose: Dispose<Erased>,
            box_bytes: usize,
        ) -> Self {
            PoolCore {
                // SAFETY: the caller's promise.
                shared: unsafe { Shared::new(dispose) },
                caches: Mutex::new(Slots::new()),
                counts: counters(),
                calibration: Calibration::new(),
                box_bytes,
                bounds,
                registered: AtomicBool::new(false),
                name,
                owner: None,
            }
        }
    }

    /// Makes sure [`rotate`](crate::rotate) ages this pool's shared store,
    /// and returns the epoch to file objects under. Called by every slow
    /// path before it stores objects: registered first, then the epoch
    /// read, so that any rotation past the epoch read sees this pool (see
    /// `Epoch::now`).
    pub(crate) fn register(&self) -> u64 {
        if !self.registered.load(Ordering::Acquire) {
            self.register_slow();
        }
        epoch().now()
    }

    #[cold]
    #[inline(never)]
    fn register_slow(&self) {
        let entry = match &self.owner {
            Some(owner) => Entry::Runtime(owner.clone()),
            // SAFETY: a core without an owner was made by `PoolState::new`,
            // and every way into one of those takes the state as
            // `&'static` (`__private::finish`, with its unset caches,
            // `ThreadCache::unset`, and `StateRef::from_static`), so its core field is `'static`
            // too; a run-time pool's has its owner set as it is made
            // (`set_owner`, in the pool's `Inner::make`), before any use.
            None => Entry::Static(unsafe { &*std::ptr::from_ref(self) }),
        };
        rotation::register(entry, &self.registered);
    }

    /// Gives the core the run-time pool that owns it, through which the
    /// registry reaches it: before any use.
    pub(crate) fn set_owner(&mut self, owner: Weak<dyn Rotate>) {
        self.owner = Some(owner);
    }

    /// Adds `n` to counter `which`; a zero writes nothing (a pool whose
    /// type counts no bytes writes no shared line for them).
    #[inline]
    fn count(&self, which: usize, n: u64) {
        if n > 0 {
            self.counts[which].fetch_add(n, Ordering::Relaxed);
        }
    }

    /// The counter bumped when an object is dropped instead of returned.
    #[inline]
    pub(crate) fn discarded(&self) -> &AtomicU64 {
        &self.counts[DISCARDED]
    }

    /// Counts an object the `retain` predicate refused.
    pub(crate) fn reject(&self) {
        self.count(REJECTED, 1);
    }

    /// Counts an object shrunk to its pool's bound in bytes.
    #[inline(never)]
    pub(crate) fn count_shrunk(&self) {
        self.count(SHRUNK, 1);
    }

    /// Counts an object dropped because it held more than its pool's bound
    /// in bytes and could not shrink below it.
    #[inline(never)]
    pub(crate) fn count_oversize(&self) {
        self.count(OVERSIZE, 1);
    }

    /// Counts an object given with `Pool::put`, before it is reset.
    pub(crate) fn count_put(&self) {
        self.count(PUT, 1);
    }

    /// Counts `n` objects made.
    #[inline]
    pub(crate) fn created(&self, n: u64) {
        self.count(CREATED, n);
    }

    /// How many objects `prefill` must make for the store to hold `target`
    /// (at most its capacity).
    #[inline(never)]
    pub(crate) fn missing(&self, target: usize) -> usize {
        // The store's lock is released before what it expires is destroyed
        // (`Locked`'s drop).
        let held = self.shared.lock(self.register()).len();
        target.min(self.bounds.capacity).saturating_sub(held)
    }

    /// Files a batch of objects `prefill` made, counted as created and
    /// returned.
    #[inline(never)]
    pub(crate) fn file_made(&self, mut batch: Vec<Erased>) {
        let made = batch.len();
        let now = self.register();
        self.created(made as u64);
        self.count(RETURNED, made as u64);
        self.shared
            .lock(now)
            .put_from(&mut batch, ..made, now, self.bounds.capacity);
    }

    /// Counts and drops an object whose guard does not give it back:
    /// `Some`, discarded; `None`, taken out of the pool for good
    /// (detached).
    #[inline(never)]
    pub(crate) fn abandon(&self, value: Option<Erased>) {
        match value {
            Some(value) => self.discard(value, false),
            None => self.count(DETACHED, 1),
        }
    }

    /// Counts an object dropped by its guard during a panic, or by
    /// `Pooled::discard`, and drops it; `idle` if it was counted in the
    /// pool's idle bytes (taken from the store, not yet handed out).
    pub(crate) fn discard(&self, value: Erased, idle: bool) {
        self.count(DISCARDED, 1);
        self.shared.destroy(value, idle);
    }

    /// Counts `held` heap bytes into the pool's idle ones, for an object
    /// filed with no thread cache's count.
    #[inline]
    pub(crate) fn count_idle_in(&self, held: usize) {
        self.count(IDLE_IN, held as u64);
    }

    /// Counts `held` heap bytes into the pool's idle ones if they fit in
    /// `budget` with what its idle objects hold, for a pool with a budget
    /// (whose releases and acquires all count here, not in the caches):
    /// `false`, and nothing counted, if they do not. Two releases may pass
    /// the check at once: the budget's slack is one object per thread.
    #[inline]
    pub(crate) fn reserve_idle(&self, held: usize, budget: usize) -> bool {
        let load = |counter: usize| self.counts[counter].load(Ordering::Relaxed);
        let idle = load(IDLE_IN).saturating_sub(load(IDLE_OUT) + self.shared.dropped_bytes());
        if idle.saturating_add(held as u64) > budget as u64 {
            return false;
        }
        self.count_idle_in(held);
        true
    }

    /// Counts `held` heap bytes out of the pool's idle ones, for an object
    /// an acquire took from the store.
    #[inline]
    pub(crate) fn count_idle_out(&self, held: usize) {
        self.count(IDLE_OUT, held as u64);
    }

    /// Drops every idle object of this pool now (`Pool::clear`): both
    /// shared tiers, and the caches of the threads that are between
    /// operations on it, reached as a rotation reaches them
    /// ([`Slots::age_idle`]: the same locks in the same order, the same
    /// handshake; a cache whose owner is in an operation is passed over,
    /// and where the platform has no heavy barrier no cache is reached).
    /// Counted as `dropped_rotation`. The global epoch does not move; the
    /// objects are destroyed once every lock is released.
    #[inline(never)]
    pub(crate) fn clear(&self) {
        // Unregistered: no cache of it exists and nothing was ever filed.
        if self.registered.load(Ordering::Acquire) {
            self.age(epoch().now(), true);
        }
    }

    /// Ages the shared tiers and the caches of idle threads to epoch `now`,
    /// emptying them first if `clear`; whether objects were destroyed.
    ///
    /// The caches first, then the store (the lock order of every path that
    /// takes both). Locking the store ages its tiers; the caches of idle
    /// threads are turned over into it as their owners would turn them over
    /// on their next operation. What expires is destroyed once both locks
    /// are released, outside the section a fork waits for
    /// (`crate::engine::fork`).
    #[inline(never)]
    fn age(&self, now: u64, clear: bool) -> bool {
        let fork = excluded();
        let mut caches = lock(&self.caches);
        let mut store = self.shared.lock(now);
        caches.age_idle(now, |local| {
            if clear {
                store.expire(std::mem::take(&mut local.items));
            }
            local.turn_over(&mut store, now);
        });
        if clear {
            store.expire_all();
        }
        let dead = store.unlock();
        drop(caches);
        drop(fork);
        let dropped = !dead.is_empty();
        drop(dead);
        dropped
    }

    /// Takes an object from the shared store for an acquire that has no
    /// thread cache to go through (its thread is exiting, or the pool keeps
    /// none). What the store expired on the way is
    /// returned to be destroyed by the caller.
    #[inline(never)]
    pub(crate) fn take_uncached(&self, now: u64) -> (Option<Erased>, Graveyard<'_, Erased>) {
        if self.shared.looks_empty() {
            return (None, self.shared.graveyard());
        }
        let mut store = self.shared.lock(now);
        let found = store.take();
        (found, store.unlock())
    }

    /// Files one reset object released with no thread cache to go through,
    /// within the pool's capacity.
    #[inline(never)]
    pub(crate) fn put_uncached(&self, value: Erased) -> Graveyard<'_, Erased> {
        let now = self.register();
        self.count(RETURNED, 1);
        let mut store = self.shared.lock(now);
        store.put_one(value, self.bounds.capacity);
        store.unlock()
    }
}

impl Rotate for PoolCore {
    fn name(&self) -> &'static str {
        self.name
    }

    fn hold_for_fork(&self, held: &mut ForkHold) {
        // SAFETY: a static pool's core lives for ever; a run-time pool's is
        // kept alive by the registry's visit, kept (and released) after
        // these locks (`registry::hold_for_fork`).
        unsafe {
            held.keep(lock(&self.caches));
            self.shared.hold_for_fork(held);
        }
    }

    /// A snapshot of the pool's counters. See [`Stats`].
    #[inline(never)]
    fn stats(&self) -> Stats {
        let fork = excluded();
        let shared = self.shared.counts();
        let caches = lock(&self.caches).totals();
        drop(fork);
        // The core's counters and the caches' summed, index by index.
        let mut n = self.counts.each_ref().map(|n| n.load(Ordering::Relaxed));
        for (n, cached) in n.iter_mut().zip(caches) {
            *n += cached;
        }
        let mut stats = Stats {
            created: n[CREATED],
            hits_local: n[HITS_LOCAL],
            hits_primary: shared.hits_primary,
            hits_victim: shared.hits_victim,
            returned: n[RETURNED] + n[DROPPED],
            dropped_capacity: shared.dropped_capacity + n[DROPPED],
            dropped_rotation: shared.dropped_rotation,
            discarded: n[DISCARDED],
            rejected: n[REJECTED],
            detached: n[DETACHED],
            idle: 0,
            idle_bytes: 0,
            put: n[PUT],
            shrunk: n[SHRUNK],
            dropped_oversize: n[OVERSIZE],
        };
        // Every returned object is, from then on, either idle, reused, or
        // dropped by the store; thread caches hold the rest of the idle ones.
        stats.idle = stats
            .returned
            .saturating_sub(stats.reused() + stats.dropped_capacity + stats.dropped_rotation);
        // Every byte counted in is, from then on, idle, counted out by an
        // acquire, or destroyed by the store.
        let held = n[IDLE_IN].saturating_sub(n[IDLE_OUT] + self.shared.dropped_bytes());
        stats.idle_bytes = held + stats.idle * self.box_bytes as u64;
        stats
    }

    fn rotate_to(&self, now: u64) -> bool {
        self.age(now, false)
    }
}

/// A pool made at run time ends: its counters stay in its name's
/// published totals (`registry::retire`), so they never fall.
#[cfg(feature = "metrics")]
impl Drop for PoolCore {
    fn drop(&mut self) {
        if self.registered.load(Ordering::Acquire) {
            crate::engine::registry::retire(self.name, self.stats());
        }
    }
}
