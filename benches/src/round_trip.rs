//! The variants, and what the benches do with each variant's round trip
//! acquire → write → release ([`RoundTrips`]): time it on one thread
//! ([`OneThread`]) or on two ([`TwoThreads`]). The round trips themselves
//! are in `benches/variants/mod.rs`.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

/// Every variant, in the order of the reports.
pub const VARIANTS: [&str; 13] = [
    "pool",
    "runtime",
    "box",
    "thread_local",
    "object-pool",
    "lifeguard",
    "opool",
    "opool_local",
    "sharded-slab",
    "regex-automata",
    "poolshark_local",
    "poolshark",
    "lockfree-object-pool",
];

/// The peer crates (not pool-core's own pools, `box`, the hand-written
/// free list, or the cross-thread workload's harness and floor rows).
pub fn is_peer_crate(name: &str) -> bool {
    !matches!(
        name,
        "pool" | "pool_on_acquire" | "runtime" | "box" | "thread_local" | "harness" | "floor"
    )
}

/// Something done with each variant's round trip: time it on one thread, on
/// two, or count its allocations.
pub trait RoundTrips {
    /// Called once per variant, in the order of [`VARIANTS`].
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync);
}

/// Times each round trip on one thread.
pub struct OneThread<'g, 'c> {
    /// Where the benchmarks go.
    pub group: &'g mut BenchmarkGroup<'c, WallTime>,
    /// Put before each variant's name in its benchmark id.
    pub prefix: &'static str,
}

impl RoundTrips for OneThread<'_, '_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        self.group
            .bench_function(format!("{}{name}", self.prefix), |b| {
                let mut i = 0u64;
                b.iter(|| {
                    i = i.wrapping_add(1);
                    rt(i);
                });
            });
    }
}

/// Times each round trip on two threads at once.
pub struct TwoThreads<'g, 'c> {
    /// Where the benchmarks go.
    pub group: &'g mut BenchmarkGroup<'c, WallTime>,
    /// Put before each variant's name in its benchmark id.
    pub prefix: &'static str,
}

impl RoundTrips for TwoThreads<'_, '_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        self.group
            .bench_function(format!("{}{name}", self.prefix), |b| {
                b.iter_custom(|iters| two_threads(iters, rt));
            });
    }
}

/// Two fresh threads each doing `iters` round trips, started together after
/// a warm-up; returns the slower thread's wall time.
pub fn two_threads(iters: u64, rt: impl Fn(u64) + Copy + Send + Sync) -> Duration {
    let barrier = Barrier::new(2);
    let barrier = &barrier;
    std::thread::scope(|scope| {
        let run = move || {
            // The first round trips on a thread take slow paths (thread-local
            // set-up, empty caches): warm up outside the timed region.
            for i in 0..1000 {
                rt(i);
            }
            barrier.wait();
            let start = Instant::now();
            for i in 0..iters {
                rt(i);
            }
            start.elapsed()
        };
        let a = scope.spawn(run);
        let b = scope.spawn(run);
        let a = a.join().expect("bench thread panicked");
        let b = b.join().expect("bench thread panicked");
        a.max(b)
    })
}
