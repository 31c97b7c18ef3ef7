//! Models of a pool made at run time (`Pool::builder`): its end, when the
//! last handle and guard go on different threads while another rotates,
//! and a thread's exit handing its share back while a guard it lent is out.
//! The run-time pool adds a lifetime to the static pools' protocol: the
//! registry and the threads' lists reach it through `Weak`s, guards count
//! on their shares, shares hold strong counts, and its last owner drops
//! every share's cache and then its store.
//!
//! loom drops a thread's locals outside the model's execution, where the
//! exit (which takes modelled locks) cannot run: every spawned thread that
//! uses a run-time pool ends with `exit_thread`, which does what the
//! thread's exit would.

use loom::thread;

use super::loom_support::{create, live};
use crate::pool::runtime::threads::SHARES;
use crate::{Pool, pools, rotate};

/// Ends a model thread: what its exit does to its shares of run-time pools
/// (the list's destructor then finds nothing left).
fn exit_thread() {
    drop(SHARES.with(|shares| std::mem::take(&mut *shares.borrow_mut())));
}

#[test]
fn the_last_guard_dropped_on_another_thread_while_a_rotation_runs_frees_everything() {
    loom::model(|| {
        let pool = Pool::builder(create).capacity(2).thread_capacity(1).build();
        // An object in this thread's cache, and one held by a guard that
        // outlives every handle.
        drop(pool.acquire());
        let guard = pool.acquire();
        let releaser = thread::spawn(move || {
            drop(guard);
            exit_thread();
        });
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
            exit_thread();
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
        // Both guards count on this thread's share of the pool; the share
        // closes as the handle goes, and whichever of the three steps is
        // last gives the share's hold on the pool back.
        let pool = Pool::builder(create).capacity(2).thread_capacity(1).build();
        let (a, b) = (pool.acquire(), pool.acquire());
        let first = thread::spawn(move || {
            drop(a);
            exit_thread();
        });
        let second = thread::spawn(move || {
            drop(b);
            exit_thread();
        });
        drop(pool);
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(live(), 0, "every object dropped, exactly once");
        assert!(pools().is_empty(), "the pool is gone: {:?}", pools());
    });
}

#[test]
fn a_part_handed_back_at_its_threads_exit_serves_the_next_thread_as_its_guard_and_the_last_handle_go()
 {
    loom::model(|| {
        // A thread caches an object, keeps a guard it acquired, and exits:
        // its cache goes to the shared store and its share to the pool's
        // free list, still counting the guard out. The guard's release on
        // another thread takes that share, with a new cache, while the last
        // handle closes every share.
        let pool = Pool::builder(create).capacity(2).thread_capacity(1).build();
        let handle = pool.clone();
        let guard = thread::spawn(move || {
            let (cached, guard) = (handle.acquire(), handle.acquire());
            drop(cached);
            exit_thread();
            guard
        })
        .join()
        .unwrap();
        assert_eq!(pool.stats().idle, 1, "the exit filed the cached object");
        let releaser = thread::spawn(move || {
            drop(guard);
            exit_thread();
        });
        drop(pool);
        releaser.join().unwrap();
        assert_eq!(live(), 0, "every object dropped, exactly once");
        assert!(pools().is_empty(), "the pool is gone: {:?}", pools());
    });
}

#[test]
fn a_guard_released_by_the_thread_that_took_its_part_since_goes_to_that_threads_cache() {
    loom::model(|| {
        // A thread exits with a guard out; its share goes to the free list,
        // bearing no owner. The next thread to acquire takes that share and
        // becomes its owner, so the old guard's release there finds its
        // own thread's cache through the share (the owner test), while
        // another thread's release of a second old guard, racing with the
        // taking, reads the owner it does not bear and goes through its
        // own share.
        let pool = Pool::builder(create).capacity(3).thread_capacity(2).build();
        let handle = pool.clone();
        let (mine, theirs) = thread::spawn(move || {
            let guards = (handle.acquire(), handle.acquire());
            exit_thread();
            guards
        })
        .join()
        .unwrap();
        let handle = pool.clone();
        let taker = thread::spawn(move || {
            drop(handle.acquire());
            drop(mine);
            let idle = handle.stats().idle;
            exit_thread();
            idle
        });
        let other = thread::spawn(move || {
            drop(theirs);
            exit_thread();
        });
        let idle = taker.join().unwrap();
        other.join().unwrap();
        assert!(
            idle >= 2,
            "both releases on the taker kept their objects: {idle}"
        );
        let stats = pool.stats();
        assert_eq!(stats.in_use(), 0, "{stats:?}");
        assert_eq!(stats.idle, stats.created, "every object kept: {stats:?}");
        drop(pool);
        assert_eq!(live(), 0, "every object dropped, exactly once");
        assert!(pools().is_empty(), "the pool is gone: {:?}", pools());
    });
}
