//! Models of threads moving objects through the shared store: spills from a
//! full cache, refills on a miss, cross-thread return, and a thread's exit
//! flushing its cache while another thread acquires.

use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

use super::loom_support::{acquire, assert_nothing_lost_or_leaked, new_cache, pool, release};

#[test]
fn two_threads_spilling_and_refilling_lose_nothing() {
    loom::model(|| {
        // Two-object caches: the third release spills the older half, the
        // next misses refill from the primary tier, and the store (room for
        // two) refuses what does not fit. Both threads do all of it at once.
        let (capacity, thread_capacity) = (2, 2);
        let pool = pool(capacity, thread_capacity);
        let threads: Vec<_> = (0..2)
            .map(|_| {
                thread::spawn(move || {
                    let cache = new_cache(pool);
                    let held: Vec<_> = (0..3).map(|_| acquire(pool, &cache)).collect();
                    for obj in held {
                        release(pool, &cache, obj);
                    }
                    let held: Vec<_> = (0..3).map(|_| acquire(pool, &cache)).collect();
                    for obj in held {
                        release(pool, &cache, obj);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_nothing_lost_or_leaked(pool, capacity);
        let stats = pool.stats();
        assert_eq!(stats.returned, 12, "{stats:?}");
        // Each thread's second round finds at least the two objects its own
        // cache kept after the spill.
        assert!(stats.hits_local >= 4, "{stats:?}");
    });
}

#[test]
fn objects_acquired_on_one_thread_and_released_on_another_are_kept() {
    loom::model(|| {
        // The consumer's one-object cache spills on its second release, so
        // the consumer's releases race with the producer's acquires (which
        // miss and look in the shared store) on the store's lock.
        let capacity = 4;
        let pool = pool(capacity, 1);
        let handoff = Arc::new(Mutex::new(Vec::new()));
        let producer = {
            let handoff = handoff.clone();
            thread::spawn(move || {
                let cache = new_cache(pool);
                for _ in 0..3 {
                    let obj = acquire(pool, &cache);
                    handoff.lock().unwrap().push(obj);
                }
            })
        };
        let cache = new_cache(pool);
        for _ in 0..3 {
            let obj = handoff.lock().unwrap().pop();
            if let Some(obj) = obj {
                release(pool, &cache, obj);
            }
        }
        producer.join().unwrap();
        let rest: Vec<_> = handoff.lock().unwrap().drain(..).collect();
        for obj in rest {
            release(pool, &cache, obj);
        }
        drop(cache);
        assert_nothing_lost_or_leaked(pool, capacity);
        let stats = pool.stats();
        assert_eq!(stats.returned, 3, "{stats:?}");
        assert_eq!(stats.dropped_capacity, 0, "{stats:?}");
    });
}

#[test]
fn a_thread_exit_flushing_its_cache_races_with_an_acquire_and_a_rotation() {
    loom::model(|| {
        // The exiting thread's two cached objects reach a store with room
        // for one: as fresh objects before the rotation, as victims (aged
        // by the thread's stale cache epoch) after it. Either way the store
        // keeps within its capacity, and an acquire that starts after the
        // flush finds what it kept.
        let capacity = 1;
        let pool = pool(capacity, 4);
        let flushed = Arc::new(AtomicBool::new(false));
        let exiting = {
            let flushed = flushed.clone();
            thread::spawn(move || {
                let cache = new_cache(pool);
                let (a, b) = (acquire(pool, &cache), acquire(pool, &cache));
                release(pool, &cache, a);
                release(pool, &cache, b);
                drop(cache); // the thread's exit
                flushed.store(true, Ordering::Release);
            })
        };
        crate::rotate();
        let cache = new_cache(pool);
        let seen_flush = flushed.load(Ordering::Acquire);
        let obj = acquire(pool, &cache);
        if seen_flush {
            assert!(obj.id < 2, "made object {} instead of reusing", obj.id);
        }
        release(pool, &cache, obj);
        exiting.join().unwrap();
        drop(cache);
        assert_nothing_lost_or_leaked(pool, capacity);
        if seen_flush {
            assert_eq!(pool.stats().created, 2);
        }
    });
}

#[test]
fn a_release_past_both_bounds_racing_with_an_acquire_from_the_store_loses_nothing() {
    loom::model(|| {
        // One-object cache, one-object store: the releasing thread's second
        // release spills into the store, its third finds both full and
        // destroys its object without the lock, on the store's hint, while
        // the other thread may be taking the stored object (the hint then
        // stale) and releasing it again.
        let capacity = 1;
        let pool = pool(capacity, 1);
        let taker = thread::spawn(move || {
            let cache = new_cache(pool);
            let obj = acquire(pool, &cache);
            release(pool, &cache, obj);
        });
        let cache = new_cache(pool);
        let held: Vec<_> = (0..3).map(|_| acquire(pool, &cache)).collect();
        for obj in held {
            release(pool, &cache, obj);
        }
        taker.join().unwrap();
        drop(cache);
        assert_nothing_lost_or_leaked(pool, capacity);
        let stats = pool.stats();
        assert_eq!(stats.returned, 4, "{stats:?}");
    });
}
