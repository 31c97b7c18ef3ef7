//! Regression tests for the failures an adversarial pass found in pool-core
//! 0.1 (issue 11), each named after the bug it guards against.
//!
//! A scenario that aborted the process runs in a child process (this test
//! binary run again, `pool_suite::child`) and is judged by how the child
//! ended; on the old code those children died of SIGABRT. Every
//! scenario ends with a census: the objects' own constructor and destructor
//! counts against the pool's statistics.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard};

use pool_core::{Pool, Pooled, Reset, Stats, pool, rotate};
use pool_suite::census::Census;
use pool_suite::child::{in_child_process, is_child};

/// `rotate()` is process-wide: the tests of this binary that rotate or count
/// rotations take turns.
fn epoch_lock() -> MutexGuard<'static, ()> {
    static EPOCH: Mutex<()> = Mutex::new(());
    EPOCH.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// An object whose destructor panics once armed. Reset leaves the flag, so
/// an armed object stays armed while it is idle in the pool.
struct Bomb {
    armed: bool,
    /// If set, the destructor acquires an object from this pool and
    /// releases it: user code that re-enters the pool from a destructor
    /// the pool runs.
    reenter: Option<&'static Pool<Bomb>>,
    census: &'static Census,
}

impl Bomb {
    fn new(census: &'static Census) -> Self {
        census.born();
        Bomb {
            armed: false,
            reenter: None,
            census,
        }
    }
}

impl Reset for Bomb {
    fn reset(&mut self) {}
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.census.died();
        if let Some(pool) = self.reenter {
            drop(pool.acquire());
        }
        if self.armed {
            panic!("an armed object's destructor");
        }
    }
}

macro_rules! bomb_pool {
    ($pool:ident, $census:ident: capacity $cap:expr, thread_capacity $tcap:expr) => {
        static $census: Census = Census::new();
        pool! {
            static $pool: Pool<Bomb> = Pool::new(|| Bomb::new(&$census))
                .capacity($cap)
                .thread_capacity($tcap);
        }
    };
}

/// Releases `n` armed objects.
fn release_armed(pool: &'static Pool<Bomb>, n: usize) {
    let held: Vec<Pooled<Bomb>> = (0..n)
        .map(|_| {
            let mut bomb = pool.acquire();
            bomb.armed = true;
            bomb
        })
        .collect();
    drop(held);
}

/// Releases `n` objects whose destructors re-enter `pool`.
fn release_reentrant(pool: &'static Pool<Bomb>, n: usize) {
    let held: Vec<Pooled<Bomb>> = (0..n)
        .map(|_| {
            let mut bomb = pool.acquire();
            bomb.reenter = Some(pool);
            bomb
        })
        .collect();
    drop(held);
}

/// Every object made is held, idle in the pool, or destroyed.
fn assert_census(stats: Stats, census: &Census, held: u64) {
    assert_eq!(stats.in_use(), held, "{stats:?}");
    assert_eq!(census.alive() as u64, stats.idle + held, "{stats:?}");
    assert_eq!(census.made() as u64, stats.created, "{stats:?}");
}

mod an_idle_threads_armed_object_expires_in_rotation {
    use super::*;
    bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 4);

    /// Thread A's cache holds an armed object and A stops using the pool.
    /// Rotation reaches A's cache: the second rotation expires the armed
    /// object, whose destructor panics out of `rotate()`. A's next acquire
    /// then takes a fresh object another thread left, and nothing is lost.
    /// (Where rotation cannot reach the cache, A's acquire expires the
    /// object itself: pool-core's `owner_turn_over` unit tests.)
    #[test]
    fn and_nothing_is_lost() {
        let _epoch = epoch_lock();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let a = std::thread::spawn(move || {
            release_armed(&POOL, 1); // in A's cache
            wait.recv().unwrap();
            drop(POOL.acquire());
        });
        while POOL.stats().returned < 1 {
            std::thread::yield_now();
        }
        rotate();
        assert!(
            catch_unwind(rotate).is_err(),
            "the destructor's panic reaches the caller"
        );
        assert_eq!(CENSUS.alive(), 0, "expired from A's idle cache");
        std::thread::spawn(|| drop(POOL.acquire())).join().unwrap(); // B
        go.send(()).unwrap();
        a.join().unwrap();
        let stats = POOL.stats();
        assert_eq!(
            (stats.hits_primary, stats.dropped_rotation),
            (1, 1),
            "{stats:?}"
        );
        assert_census(stats, &CENSUS, 0);
    }
}

mod two_panicking_destructors_in_one_batch_do_not_abort {
    use super::*;

    /// `rotate()` expires two armed victims at once.
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn in_rotate() {
        const NAME: &str = "two_panicking_destructors_in_one_batch_do_not_abort::in_rotate";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 0);
        release_armed(&POOL, 2);
        rotate(); // victims now
        assert!(
            catch_unwind(rotate).is_err(),
            "the first panic is passed on"
        );
        assert_eq!(CENSUS.alive(), 0, "both destroyed");
        assert_census(POOL.stats(), &CENSUS, 0);
        rotate(); // rotation still works
    }

    /// The automatic rotation thread expires two armed victims at once, and
    /// keeps rotating.
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn in_the_automatic_rotation_thread() {
        const NAME: &str =
            "two_panicking_destructors_in_one_batch_do_not_abort::in_the_automatic_rotation_thread";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 0);
        release_armed(&POOL, 2);
        pool_core::set_rotation_period(Some(std::time::Duration::from_millis(1)));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while CENSUS.alive() > 0 {
            assert!(std::time::Instant::now() < deadline, "not rotated");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // Still rotating after the panics: a fresh idle object expires too.
        drop(POOL.acquire());
        while CENSUS.alive() > 0 {
            assert!(std::time::Instant::now() < deadline, "stopped rotating");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        pool_core::set_rotation_period(None);
        assert_census(POOL.stats(), &CENSUS, 0);
    }

    /// A release spills half of a full thread cache (four armed objects)
    /// into a store with room for two, which drops the other two at once.
    /// (Into a store already full, a release drops only its own object.)
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn in_a_release_that_overflows_a_full_store() {
        const NAME: &str = "two_panicking_destructors_in_one_batch_do_not_abort::in_a_release_that_overflows_a_full_store";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        bomb_pool!(POOL, CENSUS: capacity 2, thread_capacity 8);
        let mut held: Vec<_> = (0..9).map(|_| POOL.acquire()).collect();
        let ninth = held.pop().unwrap();
        for bomb in &mut held {
            bomb.armed = true;
        }
        drop(held); // eight armed objects: the cache is full
        // One more release spills the older half (four armed objects) into
        // a store that keeps two of them.
        assert!(catch_unwind(AssertUnwindSafe(|| drop(ninth))).is_err());
        let stats = POOL.stats();
        assert_eq!((stats.dropped_capacity, stats.idle), (2, 7), "{stats:?}");
        assert_census(stats, &CENSUS, 0);
    }

    /// A thread's cache of two armed objects, idle across two rotations:
    /// the second rotation expires both, from the cache.
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn in_a_rotation_that_reaches_an_idle_threads_cache() {
        const NAME: &str = "two_panicking_destructors_in_one_batch_do_not_abort::in_a_rotation_that_reaches_an_idle_threads_cache";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 4);
        release_armed(&POOL, 2);
        rotate();
        assert!(catch_unwind(rotate).is_err());
        let stats = POOL.stats();
        assert_eq!(stats.dropped_rotation, 2, "{stats:?}");
        assert_census(stats, &CENSUS, 0);
        drop(POOL.acquire()); // and the pool still works
        assert_eq!(POOL.stats().created, 3);
    }
}

mod every_capacity_a_user_can_write_works {
    use super::*;

    fn exercise(pool: &'static Pool<Vec<u8>>) {
        let _epoch = epoch_lock(); // no rotation between the two rounds
        let held: Vec<_> = (0..100).map(|_| pool.acquire()).collect();
        drop(held);
        let stats = pool.stats();
        assert_eq!((stats.created, stats.idle), (100, 100), "{stats:?}");
        let again: Vec<_> = (0..100).map(|_| pool.acquire()).collect();
        assert_eq!(pool.stats().created, 100, "all reused");
        drop(again);
    }

    /// `thread_capacity(usize::MAX)` made every acquire panic with
    /// "capacity overflow": the cache was preallocated at its bound.
    #[test]
    fn a_thread_capacity_of_usize_max() {
        pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(usize::MAX); }
        exercise(&POOL);
        assert_eq!(POOL.stats().hits_local, 100, "the cache grew to hold all");
    }

    /// `thread_capacity(1 << 42)` aborted the process ("memory allocation
    /// of 35184372088832 bytes failed").
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn a_thread_capacity_larger_than_memory() {
        const NAME: &str =
            "every_capacity_a_user_can_write_works::a_thread_capacity_larger_than_memory";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(1 << 42); }
        exercise(&POOL);
    }

    /// Both bounds at their largest, and a shared store that keeps all.
    #[test]
    fn a_capacity_of_usize_max() {
        pool! {
            static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(usize::MAX).thread_capacity(0);
        }
        exercise(&POOL);
        assert_eq!(POOL.stats().hits_primary, 100, "all kept in the store");
    }
}

mod a_large_object_needs_no_more_stack_than_box_new {
    use super::*;
    use pool_core::Poolable;

    const SIZE: usize = 600 * 1024;

    /// 600 KiB inline, with a constructor of its own.
    #[derive(Poolable)]
    #[pool(new = Big::new)]
    struct Big {
        bytes: [u8; SIZE],
    }

    impl Big {
        fn new() -> Self {
            Big { bytes: [7; SIZE] }
        }
    }

    /// On a spawned thread with a 2 MiB stack, in a debug build,
    /// `Big::acquire()` overflowed the stack (the create path kept extra
    /// copies of `T` on it) while `Box::new(Big::new())` fits.
    #[test]
    #[cfg_attr(miri, ignore = "runs a child process")]
    fn on_a_two_mib_thread() {
        const NAME: &str = "a_large_object_needs_no_more_stack_than_box_new::on_a_two_mib_thread";
        if !is_child(NAME) {
            return in_child_process(NAME);
        }
        let worker = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let boxed = Box::new(Big::new());
                assert_eq!(boxed.bytes[SIZE - 1], 7, "Box::new fits");
                drop(boxed);
                let big = Big::acquire();
                assert_eq!(big.bytes[SIZE - 1], 7, "made by Big::new");
                drop(big);
                let again = Big::acquire();
                assert_eq!(
                    again.bytes[SIZE - 1],
                    7,
                    "reused, and reset to what `Big::new` makes"
                );
            })
            .unwrap();
        worker.join().unwrap();
        assert_eq!(Big::pool().stats().created, 1);
    }
}

/// A release past both bounds destroys its object at once: a destructor
/// that panics there reaches the code that dropped the guard, as a `Box`'s
/// would, with the object counted as dropped and the pool still working.
#[test]
fn a_panicking_destructor_in_a_release_past_both_bounds_is_counted() {
    let _epoch = epoch_lock();
    // The epoch moves on before the pool is first used, as it does when
    // another test rotates first: a store with no room, never locked in
    // this epoch, must still count as full (it did not, and the release
    // spilled through the lock, under AddressSanitizer's test order).
    rotate();
    bomb_pool!(POOL, CENSUS: capacity 0, thread_capacity 2);
    let mut held: Vec<_> = (0..3).map(|_| POOL.acquire()).collect();
    let mut third = held.pop().unwrap();
    third.armed = true;
    drop(held);
    assert!(catch_unwind(AssertUnwindSafe(|| drop(third))).is_err());
    let stats = POOL.stats();
    assert_eq!((stats.dropped_capacity, stats.idle), (1, 2), "{stats:?}");
    assert_census(stats, &CENSUS, 0);
    drop(POOL.acquire());
    assert_eq!(POOL.stats().created, 3, "served from the cache");
}

/// Destructors the pool runs may use the same pool: no deadlock, no
/// `RefCell` panic, and the census adds up, on every path that destroys
/// objects in batches. And a forgotten guard counts as held for good.
mod user_code_may_reenter_the_pool_from_every_path_that_destroys {
    use super::*;

    #[test]
    fn rotation() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 0);
        release_reentrant(&POOL, 2);
        rotate();
        rotate(); // both expire; each destructor acquires and releases
        let stats = POOL.stats();
        assert_eq!(stats.dropped_rotation, 2, "{stats:?}");
        assert_census(stats, &CENSUS, 0);
    }

    #[test]
    fn a_spill_into_a_full_store() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 1, thread_capacity 4);
        let mut held: Vec<_> = (0..5).map(|_| POOL.acquire()).collect();
        let fifth = held.pop().unwrap();
        for bomb in &mut held {
            bomb.reenter = Some(&POOL);
        }
        drop(held); // the cache is full
        drop(fifth); // spills two re-entering objects into a store that keeps one
        let stats = POOL.stats();
        assert_eq!(stats.dropped_capacity, 1, "{stats:?}");
        assert_census(stats, &CENSUS, 0);
    }

    #[test]
    fn a_release_past_both_bounds() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 0, thread_capacity 2);
        let mut held: Vec<_> = (0..3).map(|_| POOL.acquire()).collect();
        let mut third = held.pop().unwrap();
        third.reenter = Some(&POOL);
        drop(held); // the cache is full, and the store keeps nothing
        drop(third); // destroyed at once; its destructor acquires and releases
        let stats = POOL.stats();
        assert_eq!((stats.dropped_capacity, stats.idle), (1, 2), "{stats:?}");
        assert_census(stats, &CENSUS, 0);
    }

    #[test]
    fn the_turn_over_of_an_aged_cache() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 4);
        release_reentrant(&POOL, 2);
        rotate();
        rotate();
        drop(POOL.acquire()); // turns the cache over: both expire
        let stats = POOL.stats();
        assert_eq!(stats.dropped_rotation, 2, "{stats:?}");
        assert_census(stats, &CENSUS, 0);
    }

    #[test]
    fn a_threads_exit() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 0, thread_capacity 4);
        // The exit flush drops both (the store keeps none), inside the
        // cache's own thread-local destructor, where the pool serves
        // without a cache.
        std::thread::spawn(|| release_reentrant(&POOL, 2))
            .join()
            .unwrap();
        let stats = POOL.stats();
        assert_census(stats, &CENSUS, 0);
        assert_eq!(CENSUS.alive(), 0, "{stats:?}");
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "leaks an object on purpose, which Miri's leak check reports"
    )]
    fn a_forgotten_guard_stays_held() {
        let _epoch = epoch_lock();
        bomb_pool!(POOL, CENSUS: capacity 4, thread_capacity 4);
        std::mem::forget(POOL.acquire());
        drop(POOL.acquire());
        assert_census(POOL.stats(), &CENSUS, 1);
    }
}

/// Issue 24, item 6: with no thread cache and a store of two, four armed
/// guards dropped together: the first two are filed, the third is buried
/// past the bound and its panic starts the unwind, and the fourth, dropped
/// by that unwind, was destroyed on the guard's own stack, so its panic met
/// the first ("panic in a destructor during cleanup", SIGABRT). The child
/// must end normally, the first panic caught.
#[test]
#[cfg_attr(miri, ignore = "runs a child process")]
fn two_panicking_destructors_in_a_release_past_a_full_store_do_not_abort() {
    const NAME: &str = "two_panicking_destructors_in_a_release_past_a_full_store_do_not_abort";
    if !is_child(NAME) {
        return in_child_process(NAME);
    }
    bomb_pool!(POOL, CENSUS: capacity 2, thread_capacity 0);
    let held: Vec<Pooled<Bomb>> = (0..4)
        .map(|_| {
            let mut bomb = POOL.acquire();
            bomb.armed = true;
            bomb
        })
        .collect();
    assert!(
        catch_unwind(AssertUnwindSafe(|| drop(held))).is_err(),
        "the first panic is passed on"
    );
    let stats = POOL.stats();
    assert_eq!(CENSUS.alive(), 2, "two kept, two destroyed: {stats:?}");
    assert_census(stats, &CENSUS, 0);
}

/// Issue 24, item 4: `prefill` made every object into a `Vec<Erased>`
/// before filing any, and a constructor that panicked leaked the ones made
/// (4 objects live, none dropped or idle).
#[test]
fn prefill_whose_constructor_panics_leaks_nothing() {
    static CENSUS: Census = Census::new();
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    fn make() -> Bomb {
        if CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 4 {
            panic!("the fifth construction fails");
        }
        Bomb::new(&CENSUS)
    }
    pool! {
        static POOL: Pool<Bomb> = Pool::new(make).capacity(16).thread_capacity(4);
    }
    assert!(catch_unwind(|| POOL.prefill(8)).is_err());
    let stats = POOL.stats();
    assert_eq!(CENSUS.made(), 4);
    assert_eq!(stats.idle, 4, "the four made were filed: {stats:?}");
    assert_census(stats, &CENSUS, 0);
    // And the pool serves them.
    let held: Vec<_> = (0..4).map(|_| POOL.acquire()).collect();
    assert_eq!(POOL.stats().created, 4);
    drop(held);
}

/// Issue 24, item 4: `prefill(usize::MAX)` sized a vector for `usize::MAX`
/// objects ("capacity overflow"), and `prefill(1 << 40)` tried to allocate
/// 8 TiB and aborted, whatever the pool's capacity. Both make what the
/// store can take and return.
#[test]
fn prefill_of_a_huge_count_makes_only_what_fits() {
    pool! {
        static SMALL: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(3);
    }
    assert_eq!(SMALL.prefill(usize::MAX), 3);
    assert_eq!(SMALL.prefill(1 << 40), 0);
    let stats = SMALL.stats();
    assert_eq!((stats.created, stats.idle), (3, 3), "{stats:?}");
}

/// `prefill` into a large store makes its objects in bounded batches, all
/// filed.
#[test]
fn prefill_past_one_batch_files_every_object() {
    pool! {
        static LARGE: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(1000);
    }
    assert_eq!(LARGE.prefill(usize::MAX), 1000);
    let stats = LARGE.stats();
    assert_eq!((stats.created, stats.idle, stats.in_use()), (1000, 1000, 0));
}
