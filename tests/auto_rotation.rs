//! Automatic rotation: no background thread before a pool is used or once
//! turned off; with a period set, idle objects are given back with no call
//! from the program, those in the cache of a blocked thread included.
//!
//! The rotation thread is process-wide, so this binary runs its scenarios
//! in order from its own `main` (`harness = false` in Cargo.toml): the
//! first must run before any pool is used. Every scenario runs on every
//! platform, with two checks where the platform has what they need: the
//! thread's name is looked up in `/proc` (Linux), and a blocked thread's
//! cache is reached through a process-wide barrier (Linux's `membarrier`,
//! Windows' `FlushProcessWriteBuffers`); elsewhere the binary says which
//! check it skipped.
//!
//! No verdict rests on a sleep being long enough. A positive outcome (the
//! thread starts, an idle object goes) is waited for with a bound far
//! above its period. A negative one (nothing rotates) holds however slow
//! the machine: dropping an idle object takes two rotations, and a thread
//! turned off finishes at most the one it was running.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pool_core::{Pool, pool, set_rotation_period};

pool! {
    static SHARED_ONLY: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
    static CACHED: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(8);
}

/// Whether a thread named `pool-auto-rotator` exists in this process, where
/// that can be known: Linux keeps each thread's name, cut to 15 bytes, in
/// `/proc/self/task`.
fn rotator_thread_exists() -> Option<bool> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        tasks
            .filter_map(Result::ok)
            .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
            .any(|name| name.trim() == "pool-auto-rotat"),
    )
}

/// Whether rotation can reach a blocked thread's cache here: a platform
/// with a process-wide memory barrier.
const BARRIER: bool = cfg!(any(target_os = "linux", windows));

/// Waits up to `limit` for `done`.
fn eventually(limit: Duration, done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

fn skipped(check: &str, why: &str) {
    println!("auto_rotation: {check}: SKIPPED here: {why}");
}

fn no_thread_when_turned_off_before_any_pool_is_used() {
    set_rotation_period(None);
    drop(SHARED_ONLY.acquire());
    drop(CACHED.acquire());
    // The thread is spawned, if at all, by the first use of a pool, before
    // `acquire` returns: none now means none.
    match rotator_thread_exists() {
        Some(exists) => assert!(!exists, "a rotation thread although turned off"),
        None => skipped("the thread's absence", "no /proc/self/task"),
    }
    assert_eq!(SHARED_ONLY.stats().idle, 1, "and nothing rotated");
}

fn with_a_period_idle_objects_go_with_no_call() {
    set_rotation_period(Some(Duration::from_millis(20)));
    match rotator_thread_exists() {
        Some(_) => assert!(
            eventually(Duration::from_secs(5), || rotator_thread_exists()
                == Some(true)),
            "the thread starts once a period is set"
        ),
        None => skipped("the thread's name", "no /proc/self/task"),
    }
    assert!(
        eventually(Duration::from_secs(10), || SHARED_ONLY.stats().idle == 0),
        "the shared store's idle object was not dropped: {:?}",
        SHARED_ONLY.stats()
    );
}

fn a_blocked_threads_cache_is_reached_too() {
    if !BARRIER {
        skipped(
            "a blocked thread's cache",
            "no process-wide barrier: caches age on their owner's next operation",
        );
        return;
    }
    let (filled, wait_filled) = mpsc::channel();
    let (release, blocked) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        let held: Vec<_> = (0..4).map(|_| CACHED.acquire()).collect();
        drop(held);
        filled.send(()).unwrap();
        blocked.recv().unwrap();
    });
    wait_filled.recv().unwrap();
    assert!(
        eventually(Duration::from_secs(10), || CACHED.stats().idle == 0),
        "the blocked worker kept its objects: {:?}",
        CACHED.stats()
    );
    release.send(()).unwrap();
    worker.join().unwrap();
}

fn turned_off_it_stops_rotating() {
    set_rotation_period(None);
    drop(SHARED_ONLY.acquire());
    // Fifteen of the old periods. A rotation under way when the period
    // was turned off can age the object once, to the victim tier, where it
    // is still idle; dropping it would take a second rotation.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(SHARED_ONLY.stats().idle, 1, "rotated while turned off");
}

fn main() {
    // The order matters: the first scenario needs a process that has not
    // used a pool yet. Filters are not supported; every scenario runs.
    let scenarios: [(&str, fn()); 4] = [
        (
            "no_thread_when_turned_off_before_any_pool_is_used",
            no_thread_when_turned_off_before_any_pool_is_used,
        ),
        (
            "with_a_period_idle_objects_go_with_no_call",
            with_a_period_idle_objects_go_with_no_call,
        ),
        (
            "a_blocked_threads_cache_is_reached_too",
            a_blocked_threads_cache_is_reached_too,
        ),
        ("turned_off_it_stops_rotating", turned_off_it_stops_rotating),
    ];
    for (name, scenario) in scenarios {
        scenario();
        println!("auto_rotation: {name} ... ok");
    }
}
