//! Automatic rotation: no background thread before a pool is used or once
//! turned off; with a period set, idle objects are given back with no call
//! from the program, those in the cache of a blocked thread included.
//!
//! The rotation thread is process-wide, so this binary runs its scenarios
//! in order from its own `main` (`harness = false` in Cargo.toml): the
//! first must run before any pool is used. Linux only: it finds the thread
//! by its name in `/proc`, and reaches the blocked thread's cache through
//! `membarrier(2)`.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pool_core::{Pool, pool, set_rotation_period};

pool! {
    static SHARED_ONLY: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
    static CACHED: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(8);
}

/// Whether a thread named `pool-auto-rotator` exists in this process.
/// Linux keeps each thread's name, cut to 15 bytes, in `/proc/self/task`.
#[cfg(target_os = "linux")]
fn rotator_thread_exists() -> bool {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .any(|name| name.trim() == "pool-auto-rotat")
}

/// Waits up to `limit` for `done`.
#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
fn no_thread_when_turned_off_before_any_pool_is_used() {
    set_rotation_period(None);
    drop(SHARED_ONLY.acquire());
    drop(CACHED.acquire());
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !rotator_thread_exists(),
        "a rotation thread although turned off"
    );
    assert_eq!(SHARED_ONLY.stats().idle, 1, "and nothing rotated");
}

#[cfg(target_os = "linux")]
fn with_a_period_idle_objects_go_with_no_call() {
    set_rotation_period(Some(Duration::from_millis(20)));
    assert!(
        eventually(Duration::from_secs(5), rotator_thread_exists),
        "the thread starts once a period is set"
    );
    assert!(
        eventually(Duration::from_secs(10), || SHARED_ONLY.stats().idle == 0),
        "the shared store's idle object was not dropped: {:?}",
        SHARED_ONLY.stats()
    );
}

#[cfg(target_os = "linux")]
fn a_blocked_threads_cache_is_reached_too() {
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

#[cfg(target_os = "linux")]
fn turned_off_it_stops_rotating() {
    set_rotation_period(None);
    std::thread::sleep(Duration::from_millis(50)); // a rotation under way ends
    drop(SHARED_ONLY.acquire());
    std::thread::sleep(Duration::from_millis(300)); // 15 of the old periods
    assert_eq!(SHARED_ONLY.stats().idle, 1, "rotated while turned off");
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("auto_rotation: ignored: the scenarios need Linux (/proc, membarrier)");
}

#[cfg(target_os = "linux")]
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
