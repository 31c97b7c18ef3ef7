//! The variants, and what the benches do with each variant's round trip
//! acquire → write → release ([`RoundTrips`]): time it on one thread
//! ([`OneThread`]) or on two ([`TwoThreads`]). The round trips themselves
//! are in `benches/variants/mod.rs`.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

use crate::handoff::{Rounds, RoundsRun};

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

/// One fresh thread doing `iters` round trips after the same warm-up as
/// [`two_threads`]'; returns its wall time.
pub fn one_thread(iters: u64, rt: impl Fn(u64) + Copy + Send + Sync) -> Duration {
    std::thread::scope(|scope| {
        scope
            .spawn(move || warmed_up(iters, rt, || ()))
            .join()
            .expect("bench thread panicked")
    })
}

/// On the calling thread, a fresh one: the warm-up, then `ready` (a start
/// line shared with other threads, or nothing), then `iters` round trips;
/// returns the time they took.
fn warmed_up(iters: u64, rt: impl Fn(u64), ready: impl FnOnce()) -> Duration {
    // The first round trips on a thread take slow paths (thread-local
    // set-up, empty caches): warm up outside the timed region.
    for i in 0..1000 {
        rt(i);
    }
    ready();
    let start = Instant::now();
    for i in 0..iters {
        rt(i);
    }
    start.elapsed()
}

/// Each variant's round trip on one thread and then on two, back to back,
/// in interleaved rounds ([`RoundsRun`]): one call of a bench's variants
/// (`round_trips`) per round, each variant timed on one fresh thread
/// ([`one_thread`]) and on two ([`two_threads`]). The scaling of a round,
/// 2 × t(one thread) / t(two threads, per thread), is then taken in one
/// state of the machine, where criterion's two workloads run minutes
/// apart. Saved as the rounds of `scaling_1_thread_<object>` and
/// `scaling_2_threads_<object>`.
pub struct ScalingRounds<'r> {
    rounds: &'r RoundsRun,
    one: String,
    two: String,
    /// Rounds to run, of `objects` round trips per thread each
    /// ([`RoundsRun::plan`]).
    count: usize,
    objects: u64,
    /// Each wanted variant's rounds on one thread and on two, in the order
    /// of [`VARIANTS`].
    results: Vec<(&'static str, Rounds, Rounds)>,
}

impl<'r> ScalingRounds<'r> {
    /// Rounds of `objects` round trips (per thread), for `object`.
    pub fn new(rounds: &'r RoundsRun, object: &str, objects: u64) -> Self {
        let (count, objects) = rounds.plan(objects);
        ScalingRounds {
            rounds,
            one: format!("scaling_1_thread_{object}"),
            two: format!("scaling_2_threads_{object}"),
            count,
            objects,
            results: Vec::new(),
        }
    }

    /// How many rounds to run: one call of the variants each.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Prints and saves the rounds (see [`RoundsRun::finish`]).
    pub fn finish(self, load_before: &str) {
        let ones = self.results.iter().map(|(id, one, _)| (*id, one));
        self.rounds.finish(&self.one, load_before, ones);
        let twos = self.results.iter().map(|(id, _, two)| (*id, two));
        self.rounds.finish(&self.two, load_before, twos);
    }
}

impl RoundTrips for ScalingRounds<'_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        if !self.rounds.wanted(&self.one, name) {
            return;
        }
        let at = match self.results.iter().position(|(id, ..)| *id == name) {
            Some(at) => at,
            None => {
                self.results
                    .push((name, Rounds::default(), Rounds::default()));
                self.results.len() - 1
            }
        };
        let one = one_thread(self.objects, rt);
        let two = two_threads(self.objects, rt);
        let (_, ones, twos) = &mut self.results[at];
        ones.push(one, self.objects);
        twos.push(two, self.objects);
    }
}

/// Two fresh threads each doing `iters` round trips, started together after
/// a warm-up; returns the slower thread's wall time.
pub fn two_threads(iters: u64, rt: impl Fn(u64) + Copy + Send + Sync) -> Duration {
    let barrier = Barrier::new(2);
    let barrier = &barrier;
    std::thread::scope(|scope| {
        let run = move || {
            warmed_up(iters, rt, || {
                barrier.wait();
            })
        };
        let a = scope.spawn(run);
        let b = scope.spawn(run);
        let a = a.join().expect("bench thread panicked");
        let b = b.join().expect("bench thread panicked");
        a.max(b)
    })
}
