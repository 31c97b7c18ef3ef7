//! [`PoolState`]: what a pool changes as it runs, its shared store, its
//! counters and its registration with [`rotate`](crate::rotate).
//!
//! Invariant: a pool is registered with rotation before any thread's cache
//! of it exists and before any of its objects is filed in its shared store,
//! and the epoch those objects are filed under is read after the
//! registration (see [`PoolState::register`]), so every rotation that could
//! age them, in the store or in a cache, sees the pool.
//!
//! The state is a `static` of its own, apart from the immutable
//! [`Pool`](crate::Pool) static, and is reached both by the pool and by
//! each thread's cache; neither needs the other's type.

use std::fmt;
use std::ptr::NonNull;
use std::sync::Weak;

use crate::epoch::{self, Entry, Rotate};
use crate::local::Local;
use crate::padded::{Boxed, boxed_with};
use crate::reset::Reset;
use crate::shared::{Graveyard, Shared};
use crate::slot::Slots;
use crate::stats::{Counters, Stats};
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering, const_fn, lock};
use crate::template::Template;

/// What a pool changes as it runs: its shared store and its counters.
/// Declared by [`pool!`](crate::pool!) as a `static` of its own.
#[doc(hidden)]
pub struct PoolState<T: Reset + Send + 'static> {
    pub(crate) shared: Shared<Boxed<T>>,
    /// Every live thread's cache of this pool, for rotation and statistics.
    /// Locked before `shared` when both are.
    pub(crate) caches: Mutex<Slots<Local<T>>>,
    counters: Counters,
    /// Whether [`rotate`](crate::rotate) knows this pool.
    registered: AtomicBool,
    /// The name [`pools`](crate::pools) lists it under.
    name: &'static str,
    /// How the registry reaches the pool: `None` for a `pool!` static (the
    /// state itself, `&'static`), the run-time pool's own allocation, held
    /// weakly, for a pool made with [`Pool::builder`](crate::Pool::builder).
    home: Option<Weak<dyn Rotate>>,
    /// The constructor's values, for the reset of a generic derived struct,
    /// whose template cannot be a `static` of its own (`crate::template`).
    pub(crate) template: Template<T>,
}

/// A pointer to a pool's state, for the pool and its threads' caches: a
/// `&'static` for a `pool!` static, or a pointer into the allocation of a
/// run-time pool (`crate::runtime`), which drops its caches and its `Pool`
/// before its state.
pub(crate) struct StateRef<T: Reset + Send + 'static>(NonNull<PoolState<T>>);

impl<T: Reset + Send + 'static> StateRef<T> {
    /// A pool static's state.
    pub(crate) const fn from_static(state: &'static PoolState<T>) -> Self {
        // `NonNull::from_ref` would say this safely, but it is const only
        // from Rust 1.89 and the crate supports 1.85.
        // SAFETY: a reference is never null.
        StateRef(unsafe { NonNull::new_unchecked(std::ptr::from_ref(state).cast_mut()) })
    }

    /// A run-time pool's state.
    ///
    /// # Safety
    ///
    /// `state` must outlive the returned pointer and its copies, and must
    /// have been made by [`PoolState::with_home`].
    pub(crate) unsafe fn from_owned(state: NonNull<PoolState<T>>) -> Self {
        StateRef(state)
    }
}

impl<T: Reset + Send + 'static> Clone for StateRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Reset + Send + 'static> Copy for StateRef<T> {}

impl<T: Reset + Send + 'static> std::ops::Deref for StateRef<T> {
    type Target = PoolState<T>;

    #[inline(always)]
    fn deref(&self) -> &PoolState<T> {
        // SAFETY: a static, or a run-time pool's state, which outlives
        // every holder of a `StateRef` to it (`StateRef::from_owned`).
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: a `StateRef` is a shared reference to a `PoolState`, which is
// `Sync` (its mutable parts are behind locks and atomics) when `T: Send`.
unsafe impl<T: Reset + Send + 'static> Send for StateRef<T> {}
// SAFETY: as above.
unsafe impl<T: Reset + Send + 'static> Sync for StateRef<T> {}

impl<T: Reset + Send + 'static> PoolState<T> {
    const_fn! {
        /// An empty state named `name`, for [`pool!`](crate::pool!).
        pub fn new(name: &'static str) -> Self {
            PoolState {
                shared: Shared::new(),
                caches: Mutex::new(Slots::new()),
                counters: Counters::new(),
                registered: AtomicBool::new(false),
                name,
                home: None,
                template: Template::new(),
            }
        }
    }

    /// An empty state for a run-time pool, whose registry entry is `home`.
    pub(crate) fn with_home(name: &'static str, home: Weak<dyn Rotate>) -> Self {
        PoolState {
            home: Some(home),
            ..PoolState::new(name)
        }
    }

    /// Makes sure [`rotate`](crate::rotate) ages this pool's shared store,
    /// and returns the epoch to file objects under. Called by every slow
    /// path before it stores objects: registered first, then the epoch
    /// read, so that any rotation past the epoch read sees this pool (see
    /// `Epoch::latest`).
    pub(crate) fn register(&self) -> u64 {
        if !self.registered.load(Ordering::Acquire) {
            let entry = match &self.home {
                Some(home) => Entry::Owned(home.clone()),
                // SAFETY: a state without a home was made by
                // `PoolState::new`, and every way into one of those takes
                // it as `&'static` (`__private::finish`,
                // `LocalCache::new`, `StateRef::from_static`); only
                // `with_home` states are reached otherwise.
                None => Entry::Static(unsafe { &*std::ptr::from_ref(self) }),
            };
            epoch::register(entry, &self.registered);
        }
        epoch::epoch().latest()
    }

    /// Makes a new object with `create`, counted as created.
    pub(crate) fn create(&self, create: impl FnOnce() -> T) -> Boxed<T> {
        let value = boxed_with(create);
        self.counters.created.fetch_add(1, Ordering::Relaxed);
        value
    }

    /// Makes objects with `create` until the shared store holds `target`
    /// (at most `capacity`), and returns how many it made. They are counted
    /// as created and as returned, so that `in_use` stays exact and `idle`
    /// includes them.
    ///
    /// The objects are made outside the store's lock (a constructor is user
    /// code), then filed in one batch. A constructor that panics loses the
    /// objects made so far, uncounted: they were never in the pool. Threads
    /// releasing into the store meanwhile may fill it first; what no longer
    /// fits then is dropped and counted as `dropped_capacity`, as any
    /// release past the bound is.
    pub(crate) fn prefill(&self, target: usize, capacity: usize, create: impl Fn() -> T) -> usize {
        let target = target.min(capacity);
        let now = self.register();
        let store = self.shared.lock(now);
        let missing = target.saturating_sub(store.len());
        drop(store.unlock());
        if missing == 0 {
            return 0;
        }
        let mut batch: Vec<Boxed<T>> = (0..missing).map(|_| boxed_with(&create)).collect();
        let now = self.register();
        self.counters
            .created
            .fetch_add(missing as u64, Ordering::Relaxed);
        self.counters
            .returned
            .fetch_add(missing as u64, Ordering::Relaxed);
        let mut store = self.shared.lock(now);
        store.put_from(&mut batch, ..missing, now, capacity);
        drop(store.unlock());
        missing
    }

    /// Takes an object from the shared store for an acquire that has no
    /// thread cache to go through. What the store expired on the way is
    /// returned to be destroyed by the caller.
    pub(crate) fn take_uncached(&self, now: u64) -> (Option<Boxed<T>>, Graveyard<Boxed<T>>) {
        if self.shared.looks_empty() {
            return (None, Graveyard::new());
        }
        let mut store = self.shared.lock(now);
        let found = store.take().map(|(value, _tier)| value);
        (found, store.unlock())
    }

    /// Files one reset object released with no thread cache to go through,
    /// within `capacity`.
    pub(crate) fn put_uncached(&self, value: Boxed<T>, capacity: usize) -> Graveyard<Boxed<T>> {
        let now = self.register();
        self.counters.returned.fetch_add(1, Ordering::Relaxed);
        let mut store = self.shared.lock(now);
        store.put_one(value, capacity);
        store.unlock()
    }

    /// The counter bumped when an object is dropped instead of returned.
    pub(crate) fn discarded(&self) -> &AtomicU64 {
        &self.counters.discarded
    }

    /// Counts an object the `retain` predicate refused.
    pub(crate) fn reject(&self) {
        self.counters.rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an object taken out of the pool for good.
    pub(crate) fn detach(&self) {
        self.counters.detached.fetch_add(1, Ordering::Relaxed);
    }

    /// A snapshot of the pool's counters. See [`Stats`].
    pub(crate) fn stats(&self) -> Stats {
        let shared = self.shared.counts();
        let (hits_local, returned_local) = lock(&self.caches).totals();
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let mut stats = Stats {
            created: load(&self.counters.created),
            hits_local,
            hits_primary: shared.hits_primary,
            hits_victim: shared.hits_victim,
            returned: returned_local + load(&self.counters.returned),
            dropped_capacity: shared.dropped_capacity,
            dropped_rotation: shared.dropped_rotation,
            discarded: load(&self.counters.discarded),
            rejected: load(&self.counters.rejected),
            detached: load(&self.counters.detached),
            idle: 0,
        };
        // Every returned object is, from then on, either idle, reused, or
        // dropped by the store; thread caches hold the rest of the idle ones.
        stats.idle = stats
            .returned
            .saturating_sub(stats.reused() + stats.dropped_capacity + stats.dropped_rotation);
        stats
    }
}

impl<T: Reset + Send + 'static> Rotate for PoolState<T> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn stats(&self) -> Stats {
        PoolState::stats(self)
    }

    fn rotate_to(&self, now: u64) {
        // The caches first, then the store (the lock order of every path
        // that takes both). Locking the store ages its tiers; the caches of
        // idle threads are turned over into it as their owners would turn
        // them over on their next operation. What expires is destroyed
        // once both locks are released.
        let mut caches = lock(&self.caches);
        let mut store = self.shared.lock(now);
        caches.age_idle(now, |local| local.turn_over(&mut store, now));
        let dead = store.unlock();
        drop(caches);
        drop(dead);
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolState").finish_non_exhaustive()
    }
}
