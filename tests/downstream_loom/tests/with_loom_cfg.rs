//! Built with `RUSTFLAGS="--cfg loom"` by scripts/downstream.sh: the
//! pools of a crate that runs loom tests behave exactly as without the flag.

use downstream_loom::{Hits, Request, SCRATCH, handle};
use pool_core::{Poolable, Pooled, rotate};

/// The guard's whole path: acquire, release through the thread cache, reuse.
#[test]
fn derived_and_declared_pools_reuse_their_objects() {
    assert_eq!(handle("/a", b"hello"), 7);
    assert_eq!(handle("/b", b"again"), 7);
    let requests = Request::pool().stats();
    assert_eq!((requests.created, requests.reused()), (1, 1), "{requests:?}");
    assert_eq!(requests.hits_local, 1, "served from the thread cache: {requests:?}");
    let scratch = SCRATCH.stats();
    assert_eq!((scratch.created, scratch.reused()), (1, 1), "{scratch:?}");

    let reused: Pooled<Request> = Request::acquire();
    assert!(reused.path.is_empty() && reused.body.is_empty(), "reset on release");
}

/// Rotation and detaching are there too.
#[test]
fn rotation_and_into_inner_work() {
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
