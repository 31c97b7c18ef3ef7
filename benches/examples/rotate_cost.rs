//! What one `rotate()` costs with many threads that have used a pool and
//! gone idle (blocked, alive), as a thread pool's workers do: each rotation
//! claims every idle thread's cache, runs one process-wide barrier, and ages
//! the caches.
//!
//! `cargo run --release --manifest-path benches/Cargo.toml --example rotate_cost`
//!
//! Prints the median and best of 201 rotations, for caches holding objects
//! (the first two rotations after a burst, which move them to the victim
//! tier and drop them) and for empty ones (every later rotation), next to
//! the same with no thread but this one.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pool_core::{Pool, pool, rotate};

pool! {
    static BUFFERS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(256)).thread_capacity(8);
}

fn time_rotations(n: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            rotate();
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    times
}

fn report(label: &str, times: &[Duration]) {
    println!(
        "{label:<44} median {:>9.1} us   best {:>9.1} us",
        times[times.len() / 2].as_secs_f64() * 1e6,
        times[0].as_secs_f64() * 1e6
    );
}

fn main() {
    pool_core::set_rotation_period(None); // only the rotations timed here
    drop(BUFFERS.acquire());
    report("no other thread", &time_rotations(201));

    for threads in [8, 64] {
        let (filled, wait_filled) = mpsc::channel();
        let mut releases = Vec::new();
        let mut workers = Vec::new();
        for _ in 0..threads {
            let (release, blocked) = mpsc::channel::<()>();
            let filled = filled.clone();
            releases.push(release);
            workers.push(std::thread::spawn(move || {
                let held: Vec<_> = (0..8).map(|_| BUFFERS.acquire()).collect();
                drop(held); // eight objects in this thread's cache
                filled.send(()).unwrap();
                blocked.recv().unwrap();
            }));
        }
        for _ in 0..threads {
            wait_filled.recv().unwrap();
        }
        let with_objects = time_rotations(2);
        let idle = BUFFERS.stats().idle;
        report(
            &format!("{threads} idle threads, caches full (2 rotations)"),
            &with_objects,
        );
        report(
            &format!("{threads} idle threads, caches empty"),
            &time_rotations(201),
        );
        println!("  idle objects after the two rotations: {idle}");
        for release in releases {
            release.send(()).unwrap();
        }
        for worker in workers {
            worker.join().unwrap();
        }
    }
}
