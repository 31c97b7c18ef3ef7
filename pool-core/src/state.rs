//! [`PoolState`]: what a pool changes as it runs, its shared store, its
//! counters and its registration with [`rotate`](crate::rotate).
//!
//! Invariant: a pool is registered with rotation before any thread's cache
//! of it exists and before any of its objects is filed in its shared store,
//! and the epoch those objects are filed under is read after the
//! registration (see [`PoolCore::register`]), so every rotation that could
//! age them, in the store or in a cache, sees the pool.
//!
//! The state is a `static` of its own, apart from the immutable
//! [`Pool`](crate::Pool) static, and is reached both by the pool and by
//! each thread's cache; neither needs the other's type.
//!
//! It is two layers: [`PoolCore`], everything that moves objects (the
//! store, the caches' registry, the counters, rotation), on erased objects
//! and compiled once in pool-core; and [`PoolState<T>`], the core with the
//! pool's `T`: what makes the core's [`Dispose`] (`dispose::<T>`), the
//! only way objects enter or leave it typed (erasing them on the way in,
//! `crate::padded`), and the template of a generic derived struct.

use std::fmt;
use std::ptr::NonNull;
use std::sync::Weak;

use crate::epoch::{self, Entry, Rotate};
use crate::local::{Local, RawCache};
use crate::padded::{Boxed, Dispose, Erased, boxed_with, dispose};
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
    /// The store, the caches and the counters, on erased objects: every
    /// object filed in it is a `Boxed<T>` of this `T`.
    pub(crate) core: PoolCore,
    /// The constructor's values, for the reset of a generic derived struct,
    /// whose template cannot be a `static` of its own (`crate::template`).
    pub(crate) template: Template<T>,
}

/// A pool's state without its type: compiled once for every pool.
///
/// Invariant (erasure): every [`Erased`] object in it, in the store, a
/// cache of its registry or a graveyard it hands out, was made from a
/// `Boxed<T>` of the `T` its `dispose` was made for. Objects enter only
/// through [`PoolState<T>`] and the pool's `LocalCache`s, which erase them
/// from that `T`.
pub(crate) struct PoolCore {
    pub(crate) shared: Shared<Erased>,
    /// Every live thread's cache of this pool, for rotation and statistics.
    /// Locked before `shared` when both are.
    pub(crate) caches: Mutex<Slots<Local>>,
    counters: Counters,
    /// Whether [`rotate`](crate::rotate) knows this pool.
    registered: AtomicBool,
    /// The name [`pools`](crate::pools) lists it under.
    name: &'static str,
    /// How the registry reaches the pool: `None` for a `pool!` static (the
    /// state itself, `&'static`), the run-time pool's own allocation, held
    /// weakly, for a pool made with [`Pool::builder`](crate::Pool::builder).
    home: Option<Weak<dyn Rotate>>,
}

/// A pointer to a pool's state, for the pool: a `&'static` for a `pool!`
/// static, or a pointer into the allocation of a run-time pool
/// (`crate::runtime`), which drops its caches and its `Pool` before its
/// state.
pub(crate) struct StateRef<T: Reset + Send + 'static>(NonNull<PoolState<T>>);

/// A pointer to a pool's [`PoolCore`], for its threads' caches, with the
/// lifetime of a [`StateRef`].
#[derive(Clone, Copy)]
pub(crate) struct CoreRef(NonNull<PoolCore>);

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

    /// The state's core, for as long as the state lives.
    #[inline(always)]
    pub(crate) fn core(self) -> CoreRef {
        // SAFETY: `self.0` points to a live state (`StateRef`'s promise);
        // the field's address is taken without making a reference, so the
        // pointer keeps the provenance `self.0` has.
        CoreRef(unsafe { NonNull::new_unchecked(&raw mut (*self.0.as_ptr()).core) })
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

impl std::ops::Deref for CoreRef {
    type Target = PoolCore;

    #[inline(always)]
    fn deref(&self) -> &PoolCore {
        // SAFETY: made from a `StateRef` (`StateRef::core`), so a field of
        // a state that outlives every holder of the pointer.
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: a `StateRef` is a shared reference to a `PoolState`, which is
// `Sync` (its mutable parts are behind locks and atomics) when `T: Send`.
unsafe impl<T: Reset + Send + 'static> Send for StateRef<T> {}
// SAFETY: as above.
unsafe impl<T: Reset + Send + 'static> Sync for StateRef<T> {}
// SAFETY: as for `StateRef`: a shared reference to a `PoolCore`, which is
// `Sync`.
unsafe impl Send for CoreRef {}
// SAFETY: as above.
unsafe impl Sync for CoreRef {}

impl<T: Reset + Send + 'static> PoolState<T> {
    const_fn! {
        /// An empty state named `name`, for [`pool!`](crate::pool!).
        pub fn new(name: &'static str) -> Self {
            PoolState {
                // SAFETY: objects enter the core only erased from a
                // `Boxed<T>` of this `T` (the methods below and the
                // pool's `LocalCache`s), which `dispose::<T>` accepts.
                core: unsafe { PoolCore::new(name, dispose::<T>) },
                template: Template::new(),
            }
        }
    }

    /// An empty state for a run-time pool, whose registry entry is `home`.
    pub(crate) fn with_home(name: &'static str, home: Weak<dyn Rotate>) -> Self {
        let mut state = PoolState::new(name);
        state.core.home = Some(home);
        state
    }

    /// Makes a new object with `create`, counted as created, in `cache`
    /// if the acquire went through one.
    #[inline]
    pub(crate) fn create(&self, cache: Option<&RawCache>, create: impl FnOnce() -> T) -> Boxed<T> {
        let value = boxed_with(create);
        match cache {
            Some(cache) => cache.created(),
            None => self.core.created(1),
        }
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
        let missing = self.core.missing(target, capacity);
        if missing == 0 {
            return 0;
        }
        let batch: Vec<Erased> = (0..missing)
            .map(|_| Erased::new(boxed_with(&create)))
            .collect();
        self.core.file_made(batch, capacity);
        missing
    }

    /// The counter bumped when an object is dropped instead of returned.
    #[inline]
    pub(crate) fn discarded(&self) -> &AtomicU64 {
        &self.core.counters.discarded
    }

    /// Counts an object the `retain` predicate refused.
    pub(crate) fn reject(&self) {
        self.core.counters.rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an object taken out of the pool for good.
    pub(crate) fn detach(&self) {
        self.core.counters.detached.fetch_add(1, Ordering::Relaxed);
    }

    /// A snapshot of the pool's counters. See [`Stats`].
    #[inline]
    pub(crate) fn stats(&self) -> Stats {
        self.core.stats()
    }

    /// The name [`pools`](crate::pools) lists the pool under.
    #[inline]
    pub(crate) fn name(&self) -> &'static str {
        self.core.name
    }

    /// Ages the pool to epoch `now` (see [`PoolCore`]'s `rotate_to`).
    #[inline]
    pub(crate) fn rotate_to(&self, now: u64) {
        self.core.rotate_to(now);
    }
}

impl PoolCore {
    const_fn! {
        /// An empty core named `name`, whose objects `dispose` destroys.
        ///
        /// # Safety
        ///
        /// `dispose` must accept every object that will be filed in the
        /// core (the erasure invariant).
        unsafe fn new(name: &'static str, dispose: Dispose<Erased>) -> Self {
            PoolCore {
                // SAFETY: the caller's promise.
                shared: unsafe { Shared::new(dispose) },
                caches: Mutex::new(Slots::new()),
                counters: Counters::new(),
                registered: AtomicBool::new(false),
                name,
                home: None,
            }
        }
    }

    /// Makes sure [`rotate`](crate::rotate) ages this pool's shared store,
    /// and returns the epoch to file objects under. Called by every slow
    /// path before it stores objects: registered first, then the epoch
    /// read, so that any rotation past the epoch read sees this pool (see
    /// `Epoch::latest`).
    pub(crate) fn register(&self) -> u64 {
        if !self.registered.load(Ordering::Acquire) {
            self.register_slow();
        }
        epoch::epoch().latest()
    }

    #[cold]
    #[inline(never)]
    fn register_slow(&self) {
        let entry = match &self.home {
            Some(home) => Entry::Owned(home.clone()),
            // SAFETY: a core without a home was made by `PoolState::new`,
            // and every way into one of those takes the state as
            // `&'static` (`__private::finish`, `LocalCache::new`,
            // `StateRef::from_static`), so its core field is `'static`
            // too; only `with_home` states are reached otherwise.
            None => Entry::Static(unsafe { &*std::ptr::from_ref(self) }),
        };
        epoch::register(entry, &self.registered);
    }

    /// Counts `n` objects made.
    #[inline]
    pub(crate) fn created(&self, n: u64) {
        self.counters.created.fetch_add(n, Ordering::Relaxed);
    }

    /// How many objects `prefill` must make for the store to hold `target`
    /// (at most `capacity`).
    #[inline(never)]
    fn missing(&self, target: usize, capacity: usize) -> usize {
        let target = target.min(capacity);
        let now = self.register();
        let store = self.shared.lock(now);
        let missing = target.saturating_sub(store.len());
        drop(store.unlock());
        missing
    }

    /// Files a batch of objects `prefill` made, counted as created and
    /// returned.
    #[inline(never)]
    fn file_made(&self, mut batch: Vec<Erased>, capacity: usize) {
        let made = batch.len();
        let now = self.register();
        self.created(made as u64);
        self.counters
            .returned
            .fetch_add(made as u64, Ordering::Relaxed);
        let mut store = self.shared.lock(now);
        store.put_from(&mut batch, ..made, now, capacity);
        drop(store.unlock());
    }

    /// The slow path of an acquire (`Pool::take_slow`), erased: through
    /// `cache` if the thread has one, else straight from the shared store.
    /// `None` means the pool has no idle object: the caller makes one.
    /// `thread_capacity` and `capacity` are the pool's.
    #[inline(never)]
    pub(crate) fn take_slow(
        &self,
        cache: Option<&RawCache>,
        now: u64,
        thread_capacity: usize,
        capacity: usize,
    ) -> Option<Erased> {
        // A miss with nothing to take anywhere, as under a burst larger
        // than the pool: straight to the constructor, with no lock taken.
        if self.shared.looks_empty() && cache.is_none_or(|cache| cache.missed_current(now)) {
            return None;
        }
        self.take_through(cache, now, thread_capacity, capacity)
    }

    /// [`take_slow`](Self::take_slow), when there may be something to take.
    #[inline(never)]
    fn take_through(
        &self,
        cache: Option<&RawCache>,
        now: u64,
        thread_capacity: usize,
        capacity: usize,
    ) -> Option<Erased> {
        let (found, dead) = match cache {
            Some(cache) => cache.refill(now, thread_capacity, capacity),
            None => self.take_uncached(now),
        };
        let Some(value) = found else {
            drop(dead);
            return None;
        };
        // The object is this acquire's from here on. If a destructor in
        // `dead` panics, the unwind drops it as it drops a guard: counted
        // as discarded, not lost with `in_use` stuck at one.
        let held = Held(Some(value), self);
        drop(dead);
        held.into_inner()
    }

    /// The slow path of a release (`Pool::put_slow`), erased: files
    /// `value`, already reset, when the thread cache is full, gone or
    /// disabled, and destroys what the store lets go of.
    #[inline(never)]
    pub(crate) fn put_slow(
        &self,
        cache: Option<&RawCache>,
        value: Erased,
        thread_capacity: usize,
        capacity: usize,
    ) {
        // A release past the bound, as under a burst larger than the pool:
        // the object is destroyed at once, as the store would bury it, with
        // no lock taken and no half-cache spilled only to be buried too.
        let now = epoch::epoch().now();
        let value = match cache {
            Some(cache) if self.shared.looks_full(capacity, now) => {
                match cache.drop_if_full(value, now) {
                    Ok(()) => return,
                    Err(value) => value,
                }
            }
            _ => value,
        };
        let dead = match cache {
            Some(cache) => cache.spill(value, thread_capacity, capacity),
            None => self.put_uncached(value, capacity),
        };
        drop(dead);
    }

    /// Counts an object dropped by its guard during a panic, or by
    /// `Pooled::discard`, and drops it.
    pub(crate) fn discard(&self, value: Erased) {
        self.counters.discarded.fetch_add(1, Ordering::Relaxed);
        self.shared.destroy(value);
    }

    /// Takes an object from the shared store for an acquire that has no
    /// thread cache to go through. What the store expired on the way is
    /// returned to be destroyed by the caller.
    #[inline(never)]
    pub(crate) fn take_uncached(&self, now: u64) -> (Option<Erased>, Graveyard<Erased>) {
        if self.shared.looks_empty() {
            return (None, self.shared.graveyard());
        }
        let mut store = self.shared.lock(now);
        let found = store.take().map(|(value, _tier)| value);
        (found, store.unlock())
    }

    /// Files one reset object released with no thread cache to go through,
    /// within `capacity`.
    #[inline(never)]
    pub(crate) fn put_uncached(&self, value: Erased, capacity: usize) -> Graveyard<Erased> {
        let now = self.register();
        self.counters.returned.fetch_add(1, Ordering::Relaxed);
        let mut store = self.shared.lock(now);
        store.put_one(value, capacity);
        store.unlock()
    }

    /// A snapshot of the pool's counters. See [`Stats`].
    #[inline(never)]
    pub(crate) fn stats(&self) -> Stats {
        let shared = self.shared.counts();
        let caches = lock(&self.caches).totals();
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let mut stats = Stats {
            created: caches.created + load(&self.counters.created),
            hits_local: caches.hits_local,
            hits_primary: shared.hits_primary,
            hits_victim: shared.hits_victim,
            returned: caches.returned + caches.dropped + load(&self.counters.returned),
            dropped_capacity: shared.dropped_capacity + caches.dropped,
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

/// An object an acquire has taken but not yet handed out; discarded if
/// dropped before [`Held::into_inner`].
struct Held<'a>(Option<Erased>, &'a PoolCore);

impl Held<'_> {
    fn into_inner(mut self) -> Option<Erased> {
        self.0.take()
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            self.1.discard(value);
        }
    }
}

impl Rotate for PoolCore {
    fn name(&self) -> &'static str {
        self.name
    }

    fn stats(&self) -> Stats {
        PoolCore::stats(self)
    }

    #[inline(never)]
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

impl fmt::Debug for PoolCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolCore")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
