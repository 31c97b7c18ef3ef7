//! Models of threads moving objects through the shared store: spills from a
//! full cache, refills on a miss, cross-thread return, and a thread's exit
//! flushing its cache while another thread acquires.

use loom::sync::{Arc, Mutex};
use loom::thread;

use super::loom_support::{acquire, assert_nothing_lost_or_leaked, pool, release};
use crate::local::LocalCache;

#[test]
fn two_threads_spilling_and_refilling_lose_nothing() {
    loom::model(|| {
        // One-object caches: the second release spills, the next miss
        // refills, so both threads go through the shared store.
        let pool = pool(2, 1);
        let threads: Vec<_> = (0..2)
            .map(|_| {
                thread::spawn(move || {
                    let cache = LocalCache::new(pool);
                    let (a, b) = (acquire(pool, &cache), acquire(pool, &cache));
                    release(pool, &cache, a);
                    release(pool, &cache, b);
                    let c = acquire(pool, &cache);
                    release(pool, &cache, c);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_nothing_lost_or_leaked(pool);
    });
}

#[test]
fn objects_acquired_on_one_thread_and_released_on_another_are_kept() {
    loom::model(|| {
        let pool = pool(4, 1);
        let handoff = Arc::new(Mutex::new(Vec::new()));
        let producer = {
            let handoff = handoff.clone();
            thread::spawn(move || {
                let cache = LocalCache::new(pool);
                for _ in 0..2 {
                    let obj = acquire(pool, &cache);
                    handoff.lock().unwrap().push(obj);
                }
            })
        };
        let cache = LocalCache::new(pool);
        for _ in 0..2 {
            if let Some(obj) = handoff.lock().unwrap().pop() {
                release(pool, &cache, obj);
            }
        }
        producer.join().unwrap();
        for obj in handoff.lock().unwrap().drain(..) {
            release(pool, &cache, obj);
        }
        drop(cache);
        assert_nothing_lost_or_leaked(pool);
        assert_eq!(pool.stats().returned, 2);
    });
}

#[test]
fn a_thread_exit_flushing_its_cache_races_with_an_acquire() {
    loom::model(|| {
        let pool = pool(4, 4);
        let exiting = thread::spawn(move || {
            let cache = LocalCache::new(pool);
            let obj = acquire(pool, &cache);
            release(pool, &cache, obj);
            // `cache` drops here: the thread's exit.
        });
        let cache = LocalCache::new(pool);
        let obj = acquire(pool, &cache);
        release(pool, &cache, obj);
        exiting.join().unwrap();
        drop(cache);
        assert_nothing_lost_or_leaked(pool);
    });
}
