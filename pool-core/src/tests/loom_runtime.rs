//! Models of a pool made at run time (`Pool::builder`): its end, when the
//! last handle and guard go on different threads while another rotates.
//! The run-time pool adds a lifetime to the static pools' protocol: the
//! registry reaches it through a `Weak` that a rotation upgrades, guards
//! hold strong counts, and its last owner drops every thread's cache and
//! then its store. (Its caches here are the facade's loom stand-in for
//! `thread_local::ThreadLocal`, keyed by loom's thread ids.)

use loom::thread;

use super::loom_support::{create, live};
use crate::{Pool, pools, rotate};

#[test]
fn the_last_guard_dropped_on_another_thread_while_a_rotation_runs_frees_everything() {
    loom::model(|| {
        let pool = Pool::builder(create).capacity(2).thread_capacity(1).build();
        // An object in this thread's cache, and one held by a guard that
        // outlives every handle.
        drop(pool.acquire());
        let guard = pool.acquire();
        let releaser = thread::spawn(move || drop(guard));
        let rotator = thread::spawn(rotate);
        drop(pool);
        releaser.join().unwrap();
        rotator.join().unwrap();
        assert_eq!(live(), 0, "every object dropped, exactly once");
        rotate();
        assert!(
            pools().is_empty(),
            "the registry forgot the pool: {:?}",
            pools()
        );
    });
}

#[test]
fn clones_used_on_two_threads_and_a_rotation_share_one_pool_and_leave_nothing() {
    loom::model(|| {
        let pool = Pool::builder(create).capacity(1).thread_capacity(1).build();
        let other = pool.clone();
        let user = thread::spawn(move || {
            drop(other.acquire());
            other.stats()
        });
        drop(pool.acquire());
        // Ages the other thread's cache if it is idle by now.
        rotate();
        let theirs = user.join().unwrap();
        let ours = pool.stats();
        assert_eq!(ours.acquired(), 2, "one set of statistics: {ours:?}");
        assert!(theirs.acquired() >= 1, "{theirs:?}");
        assert_eq!(ours.in_use(), 0, "{ours:?}");
        drop(pool);
        assert_eq!(live(), 0, "every object dropped with the last handle");
    });
}

#[test]
fn two_guards_of_one_thread_released_on_two_others_as_the_last_handle_goes_free_everything_once() {
    loom::model(|| {
        // Both guards count on this thread's part of the pool; the part
        // closes as the handle goes, and whichever of the three steps is
        // last gives the part's hold on the pool back.
        let pool = Pool::builder(create).capacity(2).thread_capacity(1).build();
        let (a, b) = (pool.acquire(), pool.acquire());
        let first = thread::spawn(move || drop(a));
        let second = thread::spawn(move || drop(b));
        drop(pool);
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(live(), 0, "every object dropped, exactly once");
        assert!(pools().is_empty(), "the pool is gone: {:?}", pools());
    });
}
