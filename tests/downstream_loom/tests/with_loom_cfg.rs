//! Built with `RUSTFLAGS="--cfg loom"` by scripts/downstream.sh: the
//! pools of a crate that runs loom tests behave exactly as without the flag.

use std::sync::{Mutex, MutexGuard, PoisonError};

use downstream_loom::{Hits, Request, SCRATCH, handle};
use pool_core::{Poolable, Pooled, rotate};

/// Held by the tests that count reuse and by the one that rotates: a
/// rotation ages the caches of every thread not inside an operation on the
/// pool, so one running between another test's release and its acquire
/// moves that test's object out of its cache, and the acquire makes a new
/// one (as it should: the owner never waits for a rotation).
static ROTATION: Mutex<()> = Mutex::new(());

fn no_rotation_meanwhile() -> MutexGuard<'static, ()> {
    ROTATION.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The guard's whole path: acquire, release through the thread cache, reuse.
#[test]
fn derived_and_declared_pools_reuse_their_objects() {
    let _serial = no_rotation_meanwhile();
    assert_eq!(handle("/a", b"hello"), 7);
    assert_eq!(handle("/b", b"again"), 7);
    let requests = Request::pool().stats();
    assert_eq!(
        (requests.created, requests.reused()),
        (1, 1),
        "{requests:?}"
    );
    assert_eq!(
        requests.hits_local, 1,
        "served from the thread cache: {requests:?}"
    );
    let scratch = SCRATCH.stats();
    assert_eq!((scratch.created, scratch.reused()), (1, 1), "{scratch:?}");

    let reused: Pooled<Request> = Request::acquire();
    assert!(
        reused.path.is_empty() && reused.body.is_empty(),
        "reset on release"
    );
}

/// Rotation and detaching are there too.
#[test]
fn rotation_and_into_inner_work() {
    let _serial = no_rotation_meanwhile();
    pool_core::pool! {
        static ONE: pool_core::Pool<String> = pool_core::Pool::new(String::new).thread_capacity(0);
    }
    drop(ONE.acquire());
    assert_eq!(ONE.stats().idle, 1);
    rotate();
    rotate();
    assert_eq!(ONE.stats().idle, 0, "idle across two rotations: dropped");
    let kept: String = Pooled::into_inner(ONE.acquire());
    assert!(kept.is_empty());
    assert_eq!(ONE.stats().detached, 1);
}

/// The crate's own loom model, as it would have one.
#[cfg(loom)]
#[test]
fn hits_from_two_threads_are_both_counted() {
    loom::model(|| {
        let hits = loom::sync::Arc::new(Hits::default());
        let other = hits.clone();
        let t = loom::thread::spawn(move || other.hit());
        hits.hit();
        t.join().unwrap();
        assert_eq!(hits.get(), 2);
    });
}

/// Without `--cfg loom` the same count, on std's atomics.
#[cfg(not(loom))]
#[test]
fn hits_from_two_threads_are_both_counted() {
    let hits = std::sync::Arc::new(Hits::default());
    let other = hits.clone();
    let t = std::thread::spawn(move || other.hit());
    hits.hit();
    t.join().unwrap();
    assert_eq!(hits.get(), 2);
}
