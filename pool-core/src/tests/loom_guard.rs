//! Models of a static pool as it ships: `Pool::acquire` and
//! `Pooled::drop` → the pool's `release` function → the thread's
//! `ThreadCache`, in a (loom) thread-local, as `pool!` wires it: unset
//! until the thread's first slow path, which registers it and lists it in
//! the thread's exit list, and retired by that list at the thread's exit,
//! its objects to the shared store. The other models pass each thread's
//! cache by hand; these check that the wiring itself loses nothing.

use std::ptr::NonNull;

use loom::thread;

use super::loom_support::{Obj, assert_nothing_lost_or_leaked, create, live};
use crate::__private::{Home, PoolState, Released, finish, release};
use crate::engine::cache::{ThreadCache, exit_static_caches};
use crate::{Pool, Pooled, rotate};

const CAPACITY: usize = 2;

loom::thread_local! {
    // SAFETY: the key goes only to the pool `finish` makes below, leaked,
    // whose core outlives the cache; the value is a thread-local.
    static CACHE: ThreadCache = unsafe { ThreadCache::unset() };
}

loom::lazy_static! {
    /// The pool of one execution, wired as `pool!` wires a static pool.
    static ref GUARDED: &'static Pool<Obj> = {
        let config = Pool::new(create).capacity(CAPACITY).thread_capacity(1);
        let state = Box::leak(Box::new(PoolState::new("model", &config)));
        // SAFETY: leaked, so it lives for ever, as the static `pool!`
        // declares does.
        Box::leak(Box::new(unsafe { finish((config, (&CACHE, state)), release_guarded) }))
    };
}

fn guarded() -> &'static Pool<Obj> {
    *GUARDED
}

/// What `pool!` generates: `|_, value| release(&POOL, value)`.
fn release_guarded(_: NonNull<Home<Obj>>, value: Released<Obj>) {
    release(guarded(), value);
}

/// Acquires through the public API and marks the object held.
fn acquire() -> Pooled<Obj> {
    let mut obj = guarded().acquire();
    assert!(!obj.dirty, "object {} handed out without a reset", obj.id);
    obj.dirty = true;
    obj
}

// loom drops a thread's locals outside the model's execution, where the
// exit list's destructor (which takes the store's modelled lock) cannot
// run. So each thread ends with `exit`, which does what that destructor
// does, and guards live on spawned threads only: the main thread's locals
// outlive the execution's statics.

/// Ends a model thread: what its exit does to its static caches.
fn exit() {
    exit_static_caches();
    CACHE.with(|cache| assert!(cache.raw().is_unset(), "exit sets the cache back to unset"));
}

#[test]
fn guards_dropped_on_their_own_and_on_another_thread_lose_nothing() {
    loom::model(|| {
        // A guard acquired on one thread is dropped on a second, into that
        // thread's one-object cache, which reuses it and hands it to the
        // shared store at its exit, while a third thread acquires and
        // releases on its own.
        let sent = thread::spawn(|| {
            let sent = acquire();
            exit();
            sent
        });
        let sent = sent.join().unwrap();
        let receiver = thread::spawn(move || {
            drop(sent);
            drop(acquire());
            exit();
        });
        let other = thread::spawn(|| {
            drop(acquire());
            exit();
        });
        receiver.join().unwrap();
        other.join().unwrap();
        assert_nothing_lost_or_leaked(guarded(), CAPACITY);
        let stats = guarded().stats();
        assert_eq!(stats.returned, 3, "{stats:?}");
        assert!(
            stats.hits_local >= 1,
            "the receiver reused its own: {stats:?}"
        );
    });
}

#[test]
fn guards_racing_two_rotations_are_expired_on_time() {
    loom::model(|| {
        // A worker uses the pool and exits while two rotations run. Once
        // both are done and the worker is gone, two more rotations leave
        // nothing idle but what a later thread releases.
        let worker = thread::spawn(|| {
            drop(acquire());
            exit();
        });
        rotate();
        rotate();
        worker.join().unwrap();
        assert_nothing_lost_or_leaked(guarded(), CAPACITY);
        rotate();
        rotate();
        assert_eq!(live(), 0, "idle across two rotations: dropped");
        thread::spawn(|| {
            drop(acquire());
            exit();
        })
        .join()
        .unwrap();
        assert_eq!(live(), 1, "the later thread's object, idle in the store");
        assert_nothing_lost_or_leaked(guarded(), CAPACITY);
    });
}
