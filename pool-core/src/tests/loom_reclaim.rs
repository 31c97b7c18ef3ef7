//! Models of a rotation reaching a thread's cache (the handshake in
//! `crate::engine::slot`), with the process-wide barrier modelled by `SeqCst`
//! fences on both sides (`sync::light_barrier`, `sync::heavy_barrier`).
//!
//! Checked on every interleaving: no object is handed to two owners or
//! handed out unreset (`Obj::dirty`), nothing is lost or leaked, and
//! objects idle in a live thread's cache before two rotations are gone
//! after them.

use loom::thread;

use super::loom_support::{
    acquire, assert_nothing_lost_or_leaked, is_dead, live, new_cache, pool, release,
};
use crate::rotate;

#[test]
fn two_rotations_racing_the_owners_acquires_releases_and_exit_share_nothing() {
    loom::model(|| {
        // The owner fills its two-object cache, then acquires and releases
        // once more and exits, while the main thread rotates twice: each
        // rotation may find the owner busy (and leave its gate claimed) or
        // idle (and age its cache), at every step.
        let capacity = 2;
        let pool = pool(capacity, 2);
        let owner = thread::spawn(move || {
            let cache = new_cache(pool);
            let (a, b) = (acquire(pool, &cache), acquire(pool, &cache));
            release(pool, &cache, a);
            release(pool, &cache, b);
            let c = acquire(pool, &cache);
            release(pool, &cache, c);
            drop(cache); // the thread's exit
        });
        rotate();
        rotate();
        owner.join().unwrap();
        assert_nothing_lost_or_leaked(pool, capacity);
        rotate();
        rotate();
        assert_eq!(live(), 0, "two rotations with no use expire everything");
    });
}

#[test]
fn a_rotation_racing_an_owner_that_only_releases_shares_nothing() {
    loom::model(|| {
        // The objects are made on the main thread and released on the
        // owner's: the owner's releases (fast, then a spill on its full
        // one-object cache) race one rotation.
        let capacity = 2;
        let pool = pool(capacity, 1);
        let seeding = new_cache(pool);
        let objs: Vec<_> = (0..2).map(|_| acquire(pool, &seeding)).collect();
        drop(seeding);
        let owner = thread::spawn(move || {
            let cache = new_cache(pool);
            for obj in objs {
                release(pool, &cache, obj);
            }
            drop(cache);
        });
        rotate();
        owner.join().unwrap();
        assert_nothing_lost_or_leaked(pool, capacity + 1);
    });
}

#[test]
fn objects_idle_in_a_live_threads_cache_are_gone_after_two_rotations() {
    loom::model(|| {
        // The main thread caches two objects and stops using the pool; its
        // cache stays alive. A rotating thread, racing nothing but the
        // main thread's wait, expires them from the cache.
        let capacity = 2;
        let pool = pool(capacity, 2);
        let cache = new_cache(pool);
        let objs: Vec<_> = (0..2).map(|_| acquire(pool, &cache)).collect();
        let ids: Vec<usize> = objs.iter().map(|obj| obj.id).collect();
        for obj in objs {
            release(pool, &cache, obj);
        }
        thread::spawn(|| {
            rotate();
            rotate();
        })
        .join()
        .unwrap();
        for id in ids {
            assert!(
                is_dead(id),
                "object {id} survived two rotations in an idle cache"
            );
        }
        let stats = pool.stats();
        assert_eq!((stats.idle, stats.dropped_rotation), (0, 2), "{stats:?}");
        // The owner's next use finds its cache empty and current.
        let obj = acquire(pool, &cache);
        release(pool, &cache, obj);
        drop(cache);
        assert_nothing_lost_or_leaked(pool, capacity);
    });
}
