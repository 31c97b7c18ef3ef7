//! What the loom models share: a pooled object that counts itself, and the
//! acquire/release steps with an explicit thread cache (loom's threads do
//! not have real thread-locals, so each model thread owns a `LocalCache`,
//! whose drop at the end of the thread is that thread's exit).

use loom::sync::atomic::{AtomicUsize, Ordering};

use crate::local::LocalCache;
use crate::pool::Boxed;
use crate::{Pool, Reset, epoch};

loom::lazy_static! {
    static ref CREATED: AtomicUsize = AtomicUsize::new(0);
    static ref DROPPED: AtomicUsize = AtomicUsize::new(0);
}

pub(super) struct Obj {
    pub(super) dirty: bool,
}

impl Reset for Obj {
    fn reset(&mut self) {
        self.dirty = false;
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

fn create() -> Obj {
    CREATED.fetch_add(1, Ordering::Relaxed);
    Obj { dirty: false }
}

/// A pool for one execution of a model. Leaked: the pool API wants
/// `&'static`, and a model execution is short.
pub(super) fn pool(capacity: usize, thread_capacity: usize) -> &'static Pool<Obj> {
    Pool::leaked(
        Pool::new(create)
            .capacity(capacity)
            .thread_capacity(thread_capacity),
    )
}

pub(super) fn acquire(pool: &'static Pool<Obj>, cache: &LocalCache<Obj>) -> Boxed<Obj> {
    let obj = pool.take(Some(cache), epoch::epoch().now());
    assert!(!obj.dirty, "an object was handed out without being reset");
    obj
}

pub(super) fn release(pool: &'static Pool<Obj>, cache: &LocalCache<Obj>, mut obj: Boxed<Obj>) {
    obj.dirty = true;
    pool.reset(&mut obj);
    pool.give(Some(cache), obj, epoch::epoch().now());
}

/// Objects alive now.
pub(super) fn live() -> usize {
    CREATED.load(Ordering::Relaxed) - DROPPED.load(Ordering::Relaxed)
}

/// Checks, once every thread has finished, that every object made is either
/// idle in the pool or was dropped by it, and that the statistics agree.
pub(super) fn assert_nothing_lost_or_leaked(pool: &Pool<Obj>) {
    let stats = pool.stats();
    assert_eq!(stats.in_use(), 0, "{stats:?}");
    assert_eq!(stats.idle as usize, live(), "{stats:?}");
    assert_eq!(
        stats.created,
        stats.idle + stats.dropped_capacity + stats.dropped_rotation,
        "{stats:?}"
    );
}
