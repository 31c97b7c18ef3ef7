//! What the allocator trim after a rotation costs, and what it gives back
//! (issue 38, item 5: the trim is on by default).
//!
//! ```text
//! cargo run --release --example trim_cost
//! ```
//!
//! A pool of 4 KiB buffers serves a burst of 16,384 of them (64 MiB), which
//! goes idle; every other buffer is then held by the program, so the freed
//! ones are holes glibc cannot return from the top of its heap. Two
//! rotations drop the idle half. With the trim off, RSS stays; with it on
//! (the default), `malloc_trim(0)` runs after the second rotation. Printed
//! for each: how long the rotation that drops the objects took, RSS before
//! and after, and the 99th percentile and maximum of a request loop (a
//! `Vec` of 1 KiB made, written, dropped) timed on another thread while the
//! rotations run.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pool_core::{Pool, pool, rotate, set_allocator_trim, set_rotation_period};

pool! {
    static PAGES: Pool<Vec<u8>> = Pool::new(|| vec![1u8; 4096]).thread_capacity(0);
}

/// The process's resident set, in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

/// Requests timed on another thread while `work` runs: (p99, max).
fn beside(work: impl FnOnce()) -> (Duration, Duration) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let timer = scope.spawn(|| {
            let mut times = Vec::with_capacity(1 << 20);
            while !stop.load(Ordering::Relaxed) {
                let start = Instant::now();
                let mut request = vec![0u8; 1024];
                request[7] = 1;
                black_box(&request);
                drop(request);
                times.push(start.elapsed());
            }
            times.sort_unstable();
            let p99 = times[times.len() * 99 / 100];
            (p99, *times.last().expect("timed some requests"))
        });
        std::thread::sleep(Duration::from_millis(50));
        work();
        std::thread::sleep(Duration::from_millis(50));
        stop.store(true, Ordering::Relaxed);
        timer.join().expect("the timer thread")
    })
}

fn run(trim: bool) {
    set_allocator_trim(trim);
    let burst: Vec<_> = (0..16_384).map(|_| PAGES.acquire()).collect();
    drop(burst);
    // Hold every other buffer: the rest are holes in the heap.
    let held: Vec<_> = (0..8_192).map(|_| PAGES.acquire()).collect();
    let before = rss_kib();
    rotate();
    let mut took = Duration::ZERO;
    let (p99, max) = beside(|| {
        let start = Instant::now();
        rotate(); // drops the idle buffers; trims if on
        took = start.elapsed();
    });
    let after = rss_kib();
    println!(
        "trim {:>3}: rotation {:>8.2?}, RSS {before} KiB -> {after} KiB, requests beside it: p99 {p99:?}, max {max:?}",
        if trim { "on" } else { "off" },
        took
    );
    drop(held);
    rotate();
    rotate();
    // The trim runs at most once a second.
    std::thread::sleep(Duration::from_millis(1100));
}

fn main() {
    set_rotation_period(None);
    for _ in 0..3 {
        run(false);
        run(true);
    }
}
