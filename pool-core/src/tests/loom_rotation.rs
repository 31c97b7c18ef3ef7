//! Models of `rotate()` racing with acquires and releases.

use loom::thread;

use super::loom_support::{acquire, assert_nothing_lost_or_leaked, live, pool, release};
use crate::local::LocalCache;
use crate::rotate;

#[test]
fn rotation_racing_with_spills_and_refills_loses_nothing() {
    loom::model(|| {
        let pool = pool(2, 1);
        let worker = thread::spawn(move || {
            let cache = LocalCache::new(pool);
            let (a, b) = (acquire(pool, &cache), acquire(pool, &cache));
            release(pool, &cache, a);
            release(pool, &cache, b); // spills one to the shared store
            let c = acquire(pool, &cache);
            release(pool, &cache, c);
        });
        rotate();
        worker.join().unwrap();
        assert_nothing_lost_or_leaked(pool);
    });
}

#[test]
fn two_rotations_after_the_last_release_empty_the_shared_store() {
    loom::model(|| {
        let pool = pool(4, 0);
        let worker = thread::spawn(move || {
            let cache = LocalCache::new(pool);
            let obj = acquire(pool, &cache);
            release(pool, &cache, obj);
        });
        let rotator = thread::spawn(rotate);
        worker.join().unwrap();
        rotator.join().unwrap();
        assert_nothing_lost_or_leaked(pool);
        // Whatever the interleaving, two more rotations expire everything
        // the store holds.
        rotate();
        rotate();
        assert_eq!(live(), 0);
        assert_eq!(pool.stats().idle, 0);
    });
}
