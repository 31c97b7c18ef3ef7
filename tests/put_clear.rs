//! `Pool::put` and `Pool::clear` (issue 27, item 6), on every kind of pool:
//! a `pool!` static, a derived type's pool and a run-time pool, each test
//! with pools of its own. Nothing here rotates, so the counts are exact
//! (the automatic rotation runs once a minute; no test here lasts that
//! long).

use std::sync::mpsc;
use std::thread;

use pool_core::{Pool, Poolable, Reset, Stats, pool};

/// A value whose reset is visible: `reset` clears `data` and counts itself.
#[derive(Poolable, Default)]
#[pool(capacity = 1, thread_capacity = 1)]
struct Derived {
    data: Vec<u8>,
}

/// The same as a plain type, for the static and run-time pools.
struct Plain {
    data: Vec<u8>,
}

impl Reset for Plain {
    fn reset(&mut self) {
        self.data.clear();
    }
}

/// `Plain`'s constructor, and the two views the shared scenarios take of a
/// pooled value (used by the static and the run-time pools' modules; the
/// derived type's module has its own).
fn new() -> Plain {
    Plain { data: Vec::new() }
}

fn wrap(data: Vec<u8>) -> Plain {
    Plain { data }
}

fn data(value: &Plain) -> &Vec<u8> {
    &value.data
}

/// Data to put, with a buffer to recognise it by.
fn made_elsewhere() -> Vec<u8> {
    let mut data = Vec::with_capacity(512);
    data.extend_from_slice(b"left by the last user");
    data
}

/// A value put in a pool comes back from the next acquire, reset, and was
/// never counted as created; `in_use` counts the guard and nothing else.
fn put_then_acquire_returns_it_reset<T: Reset + Send + 'static>(
    pool: &Pool<T>,
    wrap: fn(Vec<u8>) -> T,
    data: fn(&T) -> &Vec<u8>,
) {
    let value = wrap(made_elsewhere());
    let buffer = data(&value).as_ptr();
    pool.put(value);
    let stats = pool.stats();
    assert_eq!(
        (
            stats.put,
            stats.returned,
            stats.idle,
            stats.created,
            stats.in_use()
        ),
        (1, 1, 1, 0, 0),
        "{stats:?}"
    );
    let got = pool.acquire();
    assert!(data(&got).is_empty(), "reset");
    assert_eq!(data(&got).as_ptr(), buffer, "the value put, not a new one");
    let stats = pool.stats();
    assert_eq!(
        (stats.created, stats.idle, stats.in_use()),
        (0, 0, 1),
        "{stats:?}"
    );
    drop(got);
    assert_eq!(pool.stats().in_use(), 0);
}

/// With `capacity(1).thread_capacity(1)`: three puts keep two (one in the
/// thread's cache, one in the store), and the third is dropped, counted.
fn put_past_the_bounds_is_dropped_and_counted<T: Reset + Send + 'static>(
    pool: &Pool<T>,
    wrap: fn(Vec<u8>) -> T,
) {
    for _ in 0..3 {
        pool.put(wrap(made_elsewhere()));
    }
    let stats = pool.stats();
    assert_eq!(
        (
            stats.put,
            stats.returned,
            stats.dropped_capacity,
            stats.idle
        ),
        (3, 3, 1, 2),
        "{stats:?}"
    );
    assert_eq!((stats.created, stats.in_use()), (0, 0), "{stats:?}");
}

/// `clear` drops what the store, this thread's cache and (where rotation
/// reaches other threads' caches) an idle thread's cache hold, and leaves
/// a held guard alone.
fn clear_drops_every_idle_object<T: Reset + Send + 'static>(pool: &Pool<T>) {
    thread::scope(|scope| clear_with_a_parked_thread(pool, scope));
}

fn clear_with_a_parked_thread<'s, T: Reset + Send + 'static>(
    pool: &'s Pool<T>,
    scope: &'s thread::Scope<'s, '_>,
) {
    let (filled, wait_filled) = mpsc::channel::<()>();
    let (release, blocked) = mpsc::channel::<()>();
    let worker = scope.spawn(move || {
        drop(pool.acquire()); // one idle object in this thread's cache
        filled.send(()).unwrap();
        blocked.recv().unwrap(); // alive, not using the pool
    });
    wait_filled.recv().unwrap();
    let held = pool.acquire(); // held across the clear
    let stock: Vec<_> = (0..2).map(|_| pool.acquire()).collect();
    drop(stock); // idle here: one in this thread's cache, one in the store
    let before = pool.stats();
    assert_eq!((before.idle, before.in_use()), (3, 1), "{before:?}");
    pool.clear();
    let stats = pool.stats();
    let reached = if cfg!(any(target_os = "linux", target_os = "windows")) {
        3
    } else {
        2 // the worker's cache is out of reach
    };
    assert_eq!(
        (stats.idle, stats.dropped_rotation, stats.in_use()),
        (3 - reached, reached, 1),
        "{stats:?}"
    );
    release.send(()).unwrap();
    worker.join().unwrap();
    drop(held); // goes back as usual
    let stats: Stats = pool.stats();
    assert_eq!(
        (stats.idle + stats.dropped_rotation, stats.in_use()),
        (4, 0),
        "{stats:?}"
    );
    assert_eq!(pool.stats().idle, 4 - reached);
}

mod a_static_pool {
    use super::*;

    #[test]
    fn put_then_acquire_returns_it_reset() {
        pool! { static POOL: Pool<Plain> = Pool::new(new); }
        super::put_then_acquire_returns_it_reset(&POOL, wrap, data);
    }

    #[test]
    fn put_past_the_bounds_is_dropped_and_counted() {
        pool! { static POOL: Pool<Plain> = Pool::new(new).capacity(1).thread_capacity(1); }
        super::put_past_the_bounds_is_dropped_and_counted(&POOL, wrap);
    }

    #[test]
    fn clear_drops_every_idle_object() {
        pool! { static POOL: Pool<Plain> = Pool::new(new).capacity(4).thread_capacity(1); }
        super::clear_drops_every_idle_object(&POOL);
    }

    /// `retain` applies to a put value as to a release.
    #[test]
    fn put_runs_the_retain_test() {
        pool! {
            static POOL: Pool<Plain> = Pool::new(new).retain(|value| value.data.capacity() < 256);
        }
        POOL.put(wrap(made_elsewhere())); // 512 bytes: refused
        POOL.put(wrap(Vec::new()));
        let stats = POOL.stats();
        assert_eq!(
            (
                stats.put,
                stats.rejected,
                stats.returned,
                stats.idle,
                stats.in_use()
            ),
            (2, 1, 1, 1, 0),
            "{stats:?}"
        );
    }
}

mod a_derived_pool {
    use super::*;

    fn wrap(data: Vec<u8>) -> Derived {
        Derived { data }
    }

    fn data(value: &Derived) -> &Vec<u8> {
        &value.data
    }

    /// The derived type's one pool serves the three tests in turn.
    #[test]
    fn put_then_past_the_bounds_then_clear() {
        let pool = Derived::pool();
        put_then_acquire_returns_it_reset(pool, wrap, data);
        pool.clear();
        let base = pool.stats();
        for _ in 0..3 {
            pool.put(wrap(made_elsewhere()));
        }
        let stats = pool.stats();
        assert_eq!(
            (
                stats.put - base.put,
                stats.dropped_capacity - base.dropped_capacity,
                stats.idle
            ),
            (3, 1, 2),
            "{stats:?}"
        );
        pool.clear();
        let after = pool.stats();
        assert_eq!(
            (after.idle, after.dropped_rotation - stats.dropped_rotation),
            (0, 2),
            "{after:?}"
        );
    }
}

mod a_run_time_pool {
    use super::*;

    #[test]
    fn put_then_acquire_returns_it_reset() {
        let pool = Pool::builder(new).build();
        super::put_then_acquire_returns_it_reset(&pool, wrap, data);
        // Through this thread's part, as a release: a hit of its cache.
        assert_eq!(pool.stats().hits_local, 1);
    }

    #[test]
    fn put_past_the_bounds_is_dropped_and_counted() {
        let pool = Pool::builder(new).capacity(1).thread_capacity(1).build();
        super::put_past_the_bounds_is_dropped_and_counted(&pool, wrap);
    }

    #[test]
    fn clear_drops_every_idle_object() {
        let pool = Pool::builder(new).capacity(4).thread_capacity(1).build();
        super::clear_drops_every_idle_object(&pool);
    }
}

/// A generic derived struct's pool (a run-time pool per instantiation,
/// whose guards hold no count) takes `put` and `clear` as the others do.
mod a_generic_derived_pool {
    use super::*;

    #[derive(Poolable, Default)]
    struct Generic<B>
    where
        B: Reset + Default + Send + 'static,
    {
        data: Vec<u8>,
        extra: B,
    }

    #[test]
    fn put_then_acquire_then_clear() {
        let pool = Generic::<Vec<u16>>::pool();
        let value = Generic {
            data: made_elsewhere(),
            extra: vec![7u16],
        };
        let buffer = value.data.as_ptr();
        pool.put(value);
        let got = pool.acquire();
        assert!(got.data.is_empty() && got.extra.is_empty(), "reset");
        assert_eq!(got.data.as_ptr(), buffer, "the value put");
        drop(got);
        let stats = pool.stats();
        assert_eq!(
            (stats.put, stats.created, stats.idle, stats.in_use()),
            (1, 0, 1, 0)
        );
        pool.clear();
        let stats = pool.stats();
        assert_eq!((stats.idle, stats.dropped_rotation), (0, 1), "{stats:?}");
    }
}
