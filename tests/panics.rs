//! Panics in user code around a pool: while guards are held, in `reset`, in
//! the constructor, in a destructor run by `rotate()`, and in a destructor
//! run by a thread's exit. Each time the pool must stay usable, and its
//! statistics must agree with the objects' own count of themselves.
//!
//! Every test here holds `EPOCH`: one of them rotates, and rotation moves
//! the others' objects between tiers.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use pool_core::{Pool, Pooled, Reset, Stats, pool, rotate};

static EPOCH: Mutex<()> = Mutex::new(());

fn epoch_lock() -> MutexGuard<'static, ()> {
    EPOCH.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// Counts of one pool's objects, and the traps its objects may spring.
struct Census {
    made: AtomicUsize,
    destroyed: AtomicUsize,
    /// The constructor panics while set.
    fail_create: AtomicBool,
}

impl Census {
    const fn new() -> Self {
        Census {
            made: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
            fail_create: AtomicBool::new(false),
        }
    }

    fn alive(&self) -> usize {
        self.made.load(Ordering::SeqCst) - self.destroyed.load(Ordering::SeqCst)
    }
}

/// A pooled object whose `reset` or destructor can be made to panic.
struct Fragile {
    census: &'static Census,
    /// Written by users, cleared by `reset`.
    used: bool,
    /// `reset` panics (and leaves `used` set) while this is set.
    fail_reset: bool,
    /// The destructor panics if this is set.
    fail_drop: bool,
}

impl Fragile {
    fn new(census: &'static Census) -> Self {
        assert!(
            !census.fail_create.load(Ordering::SeqCst),
            "constructor failed"
        );
        census.made.fetch_add(1, Ordering::SeqCst);
        Fragile {
            census,
            used: false,
            fail_reset: false,
            fail_drop: false,
        }
    }
}

impl Reset for Fragile {
    fn reset(&mut self) {
        assert!(!self.fail_reset, "reset failed");
        self.used = false;
    }
}

impl Drop for Fragile {
    fn drop(&mut self) {
        self.census.destroyed.fetch_add(1, Ordering::SeqCst);
        // Never a second panic while unwinding (that aborts): a trapped
        // object dropped during a panic just goes.
        if self.fail_drop && !std::thread::panicking() {
            panic!("destructor failed");
        }
    }
}

/// Declares a pool of `Fragile`s and the census of its objects; with
/// `reset_on_acquire` after the capacities, a pool that resets on acquire.
macro_rules! fragile_pool {
    ($pool:ident, $census:ident: capacity $cap:expr, thread_capacity $tc:expr $(, $mode:ident)?) => {
        static $census: Census = Census::new();
        pool! {
            static $pool: Pool<Fragile> = Pool::new({
                fn create() -> Fragile {
                    Fragile::new(&$census)
                }
                create
            })
            .capacity($cap)
            .thread_capacity($tc)
            $(.$mode())?;
        }
    };
}

/// Every object made is alive (idle in the pool, or `held` by the test) or
/// was destroyed by the pool (dropped, discarded) or after being detached.
fn assert_accounted(stats: Stats, census: &Census, held: usize) {
    assert_eq!(stats.created as usize, census.made.load(Ordering::SeqCst));
    assert_eq!(
        census.alive(),
        stats.idle as usize + held,
        "alive vs idle + held: {stats:?}"
    );
    assert_eq!(
        census.destroyed.load(Ordering::SeqCst) as u64,
        stats.dropped_capacity + stats.dropped_rotation + stats.discarded + stats.detached,
        "destroyed vs dropped + discarded + detached: {stats:?}"
    );
    assert_eq!(stats.in_use() as usize, held, "{stats:?}");
}

/// Acquires an object and marks it used.
fn take(pool: &'static Pool<Fragile>) -> Pooled<Fragile> {
    let mut obj = pool.acquire();
    assert!(!obj.used, "handed out without reset");
    obj.used = true;
    obj
}

mod holding_guards {
    use super::*;
    fragile_pool!(POOL, CENSUS: capacity 8, thread_capacity 4);

    #[test]
    fn a_panic_while_guards_are_held_discards_them_and_keeps_the_idle_ones() {
        let _epoch = epoch_lock();
        drop((0..3).map(|_| take(&POOL)).collect::<Vec<_>>()); // 3 idle
        let result = catch_unwind(|| {
            let _held: Vec<_> = (0..5).map(|_| take(&POOL)).collect();
            panic!("half-way through a request");
        });
        assert!(result.is_err());
        let stats = POOL.stats();
        assert_eq!((stats.discarded, stats.idle), (5, 0), "{stats:?}");
        assert_accounted(stats, &CENSUS, 0);

        // A thread that panics holding guards: they are discarded, and its
        // cache (two objects) still reaches the shared store at its exit.
        std::thread::spawn(|| {
            let mut held: Vec<_> = (0..3).map(|_| take(&POOL)).collect();
            let _kept = held.pop();
            drop(held);
            panic!("worker failed");
        })
        .join()
        .unwrap_err();
        let stats = POOL.stats();
        assert_eq!((stats.discarded, stats.idle), (6, 2), "{stats:?}");
        assert_accounted(stats, &CENSUS, 0);

        // Still usable: the two idle objects come back, reset.
        let again: Vec<_> = (0..2).map(|_| take(&POOL)).collect();
        let stats = POOL.stats();
        assert_eq!(stats.reused(), 3 + 2, "{stats:?}");
        assert_accounted(stats, &CENSUS, 2);
        drop(again);
    }
}

mod failing_reset {
    use super::*;
    fragile_pool!(POOL, CENSUS: capacity 8, thread_capacity 2);

    #[test]
    fn a_reset_that_panics_drops_its_object_and_leaves_the_cache_intact() {
        let _epoch = epoch_lock();
        let (a, b) = (take(&POOL), take(&POOL));
        drop(a); // in this thread's cache
        let mut b = b;
        b.fail_reset = true;
        let result = catch_unwind(AssertUnwindSafe(|| drop(b)));
        assert!(result.is_err(), "the panic reaches the guard's owner");
        let stats = POOL.stats();
        assert_eq!(
            (stats.discarded, stats.returned, stats.idle),
            (1, 1, 1),
            "{stats:?}"
        );
        assert_accounted(stats, &CENSUS, 0);

        // The cache was not left borrowed or corrupt: `a` is served from it,
        // and a full cache still spills.
        let held: Vec<_> = (0..4).map(|_| take(&POOL)).collect();
        assert_eq!(POOL.stats().hits_local, 1);
        drop(held);
        let stats = POOL.stats();
        assert_eq!((stats.returned, stats.idle), (5, 4), "{stats:?}");
        assert_accounted(stats, &CENSUS, 0);
    }
}

mod failing_reset_on_acquire {
    use super::*;
    fragile_pool!(POOL, CENSUS: capacity 8, thread_capacity 2, reset_on_acquire);
    // No thread cache: every object comes from the shared store, through
    // the acquire's slow path.
    fragile_pool!(STORED, STORED_CENSUS: capacity 8, thread_capacity 0, reset_on_acquire);

    #[test]
    fn a_reset_that_panics_at_acquire_drops_its_object_and_the_panic_reaches_the_caller() {
        let _epoch = epoch_lock();
        let (a, mut b) = (take(&POOL), take(&POOL));
        b.fail_reset = true;
        drop(b); // idle as it is: no reset yet, so no panic
        drop(a); // on top of it, in this thread's cache
        let a = take(&POOL); // reused and reset
        let result = catch_unwind(|| POOL.acquire());
        assert!(result.is_err(), "the panic reaches the acquiring caller");
        let stats = POOL.stats();
        assert_eq!(
            (
                stats.hits_local,
                stats.discarded,
                stats.returned,
                stats.idle
            ),
            (2, 1, 2, 0),
            "{stats:?}"
        );
        assert_eq!(CENSUS.destroyed.load(Ordering::SeqCst), 1, "dropped once");
        assert_accounted(stats, &CENSUS, 1);

        // The cache was left usable: it takes `a` back and serves it again.
        drop(a);
        let again: Vec<_> = (0..3).map(|_| take(&POOL)).collect();
        let stats = POOL.stats();
        assert_eq!((stats.hits_local, stats.created), (3, 4), "{stats:?}");
        assert_accounted(stats, &CENSUS, 3);
        drop(again);
        assert_accounted(POOL.stats(), &CENSUS, 0);
    }

    #[test]
    fn a_reset_that_panics_at_acquire_from_the_shared_store_is_counted_once() {
        let _epoch = epoch_lock();
        let mut trapped = take(&STORED);
        trapped.fail_reset = true;
        drop(trapped); // to the shared store, as it is
        let result = catch_unwind(|| STORED.acquire());
        assert!(result.is_err(), "the panic reaches the acquiring caller");
        let stats = STORED.stats();
        assert_eq!(
            (stats.hits_primary, stats.discarded, stats.idle),
            (1, 1, 0),
            "{stats:?}"
        );
        assert_accounted(stats, &STORED_CENSUS, 0);
        // The store's lock was not held across the reset: the pool works.
        drop(take(&STORED));
        drop(take(&STORED));
        let stats = STORED.stats();
        assert_eq!((stats.created, stats.hits_primary), (2, 2), "{stats:?}");
        assert_accounted(stats, &STORED_CENSUS, 0);
    }

    #[test]
    fn a_reset_that_panics_at_acquire_in_a_run_time_pool_is_counted_once() {
        static RUNTIME_CENSUS: Census = Census::new();
        let _epoch = epoch_lock();
        let pool = Pool::builder(|| Fragile::new(&RUNTIME_CENSUS))
            .thread_capacity(2)
            .reset_on_acquire()
            .build();
        let mut trapped = pool.acquire();
        trapped.fail_reset = true;
        drop(trapped);
        let result = catch_unwind(AssertUnwindSafe(|| pool.acquire()));
        assert!(result.is_err(), "the panic reaches the acquiring caller");
        let stats = pool.stats();
        assert_eq!((stats.discarded, stats.idle), (1, 0), "{stats:?}");
        assert_accounted(stats, &RUNTIME_CENSUS, 0);
        drop(pool.acquire());
        assert_accounted(pool.stats(), &RUNTIME_CENSUS, 0);
        drop(pool);
        assert_eq!(RUNTIME_CENSUS.alive(), 0, "the pool's end drops the rest");
    }
}

mod failing_constructor {
    use super::*;
    fragile_pool!(POOL, CENSUS: capacity 8, thread_capacity 4);

    #[test]
    fn a_constructor_that_panics_counts_nothing_and_the_next_acquire_works() {
        let _epoch = epoch_lock();
        // Two objects cached, then aged out, so the failing acquire first
        // turns the cache over (dropping them) and then calls the
        // constructor: the slow path with the cache and the store's lock
        // both taken and released around it.
        drop((0..2).map(|_| take(&POOL)).collect::<Vec<_>>());
        rotate();
        rotate();
        CENSUS.fail_create.store(true, Ordering::SeqCst);
        let result = catch_unwind(|| POOL.acquire());
        CENSUS.fail_create.store(false, Ordering::SeqCst);
        assert!(result.is_err());
        let stats = POOL.stats();
        assert_eq!(
            (stats.created, stats.dropped_rotation, stats.idle),
            (2, 2, 0),
            "{stats:?}"
        );
        assert_eq!(stats.in_use(), 0, "a failed acquire hands nothing out");
        assert_accounted(stats, &CENSUS, 0);

        // The pool works, through the cache and the shared store alike.
        drop((0..6).map(|_| take(&POOL)).collect::<Vec<_>>());
        let reused: Vec<_> = (0..6).map(|_| take(&POOL)).collect();
        let stats = POOL.stats();
        assert_eq!((stats.created, stats.reused()), (8, 6), "{stats:?}");
        assert_accounted(stats, &CENSUS, 6);
        drop(reused);
    }
}

mod failing_destructor_in_rotate {
    use super::*;
    fragile_pool!(POOL, CENSUS: capacity 8, thread_capacity 0);

    fragile_pool!(OTHER, OTHER_CENSUS: capacity 8, thread_capacity 0);

    #[test]
    fn a_destructor_panicking_in_rotate_still_rotates_everything() {
        let _epoch = epoch_lock();
        // Three idle objects here, one of them trapped; two in another pool.
        let mut held: Vec<_> = (0..3).map(|_| take(&POOL)).collect();
        held[1].fail_drop = true;
        drop(held);
        drop((0..2).map(|_| take(&OTHER)).collect::<Vec<_>>());
        rotate(); // all victims now

        let result = catch_unwind(rotate);
        assert!(result.is_err(), "the destructor's panic is passed on");
        let stats = POOL.stats();
        assert_eq!(
            CENSUS.alive(),
            0,
            "the objects buried with the trapped one were destroyed too"
        );
        assert_eq!((stats.dropped_rotation, stats.idle), (3, 0), "{stats:?}");
        assert_accounted(stats, &CENSUS, 0);
        let other = OTHER.stats();
        assert_eq!(OTHER_CENSUS.alive(), 0, "the other pool was rotated too");
        assert_eq!(other.dropped_rotation, 2, "{other:?}");
        assert_accounted(other, &OTHER_CENSUS, 0);

        // Both pools are still usable, and still rotated.
        drop(take(&POOL));
        drop(take(&OTHER));
        assert_eq!((POOL.stats().idle, OTHER.stats().idle), (1, 1));
        rotate();
        rotate();
        assert_eq!((CENSUS.alive(), OTHER_CENSUS.alive()), (0, 0));
        assert_accounted(POOL.stats(), &CENSUS, 0);
        assert_accounted(OTHER.stats(), &OTHER_CENSUS, 0);
    }
}

mod failing_destructor_at_thread_exit {
    use super::*;
    // No shared store: an exiting thread's cached objects are dropped by
    // the exit flush itself, inside the thread-local's destructor.
    fragile_pool!(POOL, CENSUS: capacity 0, thread_capacity 4);

    /// What the child process runs: a thread exits with a trapped object
    /// among those in its cache.
    fn scenario() {
        let worker = std::thread::spawn(|| {
            let mut held: Vec<_> = (0..3).map(|_| take(&POOL)).collect();
            held[1].fail_drop = true;
            drop(held); // all three in this thread's cache
        });
        // The thread's own code finished normally; the destructor's panic
        // happens in the flush, after it.
        assert!(worker.join().is_ok());
        let stats = POOL.stats();
        assert_eq!(CENSUS.alive(), 0, "all three destroyed: {stats:?}");
        assert_eq!((stats.dropped_capacity, stats.idle), (3, 0), "{stats:?}");
        assert_accounted(stats, &CENSUS, 0);
        // The pool is usable.
        drop(take(&POOL));
        assert_eq!(POOL.stats().returned, 4);
    }

    /// A panic inside a thread-local's destructor aborts the process, so
    /// the scenario runs in a child process (this test binary, run again by
    /// `pool_suite::child`), and the test checks how the child ended.
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn a_destructor_panicking_in_the_thread_exit_flush_does_not_abort_the_process() {
        const NAME: &str = "failing_destructor_at_thread_exit::a_destructor_panicking_in_the_thread_exit_flush_does_not_abort_the_process";
        if !pool_suite::child::is_child(NAME) {
            return pool_suite::child::in_child_process(NAME);
        }
        scenario();
    }
}
