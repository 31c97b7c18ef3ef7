//! What the loom models share: a pooled object that counts itself, and the
//! acquire/release steps with an explicit thread cache: each model thread
//! owns a `RawCache`, as a run-time pool's share does, whose drop at the end
//! of the thread is that thread's exit (`loom_guard` models a static pool's
//! own `thread_local!` cache).

// The bookkeeping is std's atomics inside loom's per-execution statics: it
// is the models' instrument, not code under test, so loom need not explore
// its interleavings (which multiplies a three-thread model's run time by
// 1.5 to 2). Loom runs one model thread at a time, so the counts are exact.
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::__private::{PoolState, finish};
use crate::engine::cache::{RawCache, ThreadCache};
use crate::engine::erased::Boxed;
use crate::engine::slot::epoch;
use crate::{Pool, Reset};

loom::lazy_static! {
    /// Objects made so far; each object's id is its creation index.
    static ref CREATED: AtomicUsize = AtomicUsize::new(0);
    /// Bit `id` is set once object `id` has been destroyed. Models create
    /// fewer than 64 objects.
    static ref DEAD: AtomicU64 = AtomicU64::new(0);
}

pub(super) struct Obj {
    pub(super) id: usize,
    /// Set by a guard holder, cleared by `reset`: an object handed out with
    /// it set was not reset, or is held by two owners at once.
    pub(super) dirty: bool,
    /// If set, the destructor reads this pool's statistics, which takes the
    /// shared store's lock: destroying the object under that lock (instead
    /// of in the graveyard, after it) deadlocks, and loom reports it.
    pub(super) reenter: Option<&'static Pool<Obj>>,
}

impl Reset for Obj {
    fn reset(&mut self) {
        self.dirty = false;
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        if let Some(pool) = self.reenter {
            let _ = pool.stats();
        }
        let bit = 1 << self.id;
        let before = DEAD.fetch_or(bit, Ordering::Relaxed);
        assert_eq!(before & bit, 0, "object {} destroyed twice", self.id);
    }
}

pub(super) fn create() -> Obj {
    let id = CREATED.fetch_add(1, Ordering::Relaxed);
    assert!(id < 64, "a model made more objects than it can track");
    Obj {
        id,
        dirty: false,
        reenter: None,
    }
}

loom::thread_local! {
    /// The key of the models' pools, which pass each thread's cache by hand.
    pub(super) static NO_CACHE: ThreadCache = unreachable!("the models pass each thread's cache by hand");
}

/// A pool for one execution of a model. Leaked: the pool API wants
/// `&'static`, and a model execution is short.
pub(super) fn pool(capacity: usize, thread_capacity: usize) -> &'static Pool<Obj> {
    let config = Pool::new(create)
        .capacity(capacity)
        .thread_capacity(thread_capacity);
    let state = Box::leak(Box::new(PoolState::new("model", &config)));
    // These models pass each thread's cache explicitly (`cache` below), so
    // the pool's thread-local key is never used, and no guard ever calls
    // `release`.
    // SAFETY: leaked, so it lives for ever, as a `pool!` static does.
    Box::leak(Box::new(unsafe {
        finish((config, (&NO_CACHE, state)), |_, _| {})
    }))
}

/// A thread's cache for `pool`, as its `thread_local!` initializer makes it.
pub(super) fn new_cache(pool: &'static Pool<Obj>) -> RawCache {
    RawCache::new(pool.state.core())
}

/// Acquires on the thread that owns `cache`, checking the object is clean
/// (reset, and not held by anyone else), then marks it held.
pub(super) fn acquire(pool: &'static Pool<Obj>, cache: &RawCache) -> Boxed<Obj> {
    let mut obj = pool.take(&pool.config, Some(cache), epoch().now());
    assert!(
        !obj.dirty,
        "object {} was handed out without being reset",
        obj.id
    );
    obj.dirty = true;
    obj
}

/// Releases on the thread that owns `cache`: what a guard's drop does.
pub(super) fn release(pool: &'static Pool<Obj>, cache: &RawCache, mut obj: Boxed<Obj>) {
    assert!(obj.dirty, "object {} was released twice", obj.id);
    pool.reset(&mut obj, Reset::reset);
    pool.give(
        &pool.config,
        Some(cache),
        crate::pool::Prepared {
            value: crate::engine::erased::Erased::new(obj),
            bytes: None,
        },
    );
}

/// Objects alive now.
pub(super) fn live() -> usize {
    CREATED.load(Ordering::Relaxed) - DEAD.load(Ordering::Relaxed).count_ones() as usize
}

/// Whether object `id` has been destroyed.
pub(super) fn is_dead(id: usize) -> bool {
    DEAD.load(Ordering::Relaxed) & (1 << id) != 0
}

/// Checks, once every thread has finished (every cache retired), that every
/// object made is either idle in the pool or was dropped by it exactly once,
/// that the statistics agree with the objects' own count, and that the
/// shared tiers kept within `capacity`.
pub(super) fn assert_nothing_lost_or_leaked(pool: &Pool<Obj>, capacity: usize) {
    let stats = pool.stats();
    assert_eq!(stats.in_use(), 0, "{stats:?}");
    assert_eq!(stats.idle as usize, live(), "{stats:?}");
    assert_eq!(
        stats.created,
        stats.idle + stats.dropped_capacity + stats.dropped_rotation,
        "{stats:?}"
    );
    assert!(stats.idle as usize <= capacity, "over capacity: {stats:?}");
}
