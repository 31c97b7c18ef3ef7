// What pooling buys over a faster allocator: the alternative users weigh.
// Each of `system.rs`, `jemalloc.rs` and `mimalloc.rs` sets its global
// allocator and includes this file, so the three benches run the same
// code: for the small object and the seeds' `Person`, the round trip on one
// thread and on two (`round_trips` of `benches/shared/variants.rs`), and
// the cross-thread handoff (`pool_perf::handoff`), for `box` (no pool: a
// fresh `Box` per object), `pool` (pool-core, whose slow paths use the same
// allocator) and `thread_local` (the hand-written free list; not in the
// cross-thread workload, where its objects never come back), and there
// `harness` (integers, no allocation: the handoff's own cost). The
// cross-thread rows are timed in rounds, not by criterion: their figure is
// the median of `ROUNDS`, saved in `benches/target/rounds`.
//
//   cargo bench --manifest-path benches/Cargo.toml --bench alloc_system \
//       --bench alloc_jemalloc --bench alloc_mimalloc
//
// Each bench prints, after its run, the table of every allocator's rows
// that criterion holds (`benches/target/criterion/alloc_*`), each with the
// age of its oldest figure; run the three in one command for one table of
// figures from one run, printed by the last (the system allocator's).

include!("../shared/variants.rs");

/// What this bench adds to `variants.rs`.
mod variants {
    use super::{Shared, Statics, round_trips};
    use pool_perf::handoff::TimedRun;
    use std::time::Duration;

    /// The cross-thread rows, `harness`, `box` and `pool`: one closure per
    /// variant, each running a fresh handoff of `iters` objects and
    /// returning its time.
    pub(crate) fn handoffs<T: Statics>() -> Vec<(&'static str, Box<TimedRun>)> {
        use pool_perf::handoff::{WARM, handoff};
        /// `iters` objects from `acquire` handed across and dropped, timed.
        fn timed<G: Send>(iters: u64, acquire: impl Fn(u64) -> G + Sync) -> Duration {
            // The allocator is not a counting one: no live bytes to read.
            handoff(WARM, iters, u64::MAX, || 0, acquire, drop).elapsed
        }
        vec![
            // The harness alone (integers, no allocation): what every other
            // row includes.
            ("harness", Box::new(|iters| timed(iters, |i| i))),
            (
                "box",
                Box::new(|iters| {
                    timed(iters, |i| {
                        let mut s = Box::new(T::create());
                        s.write(i);
                        s
                    })
                }),
            ),
            (
                "pool",
                Box::new(|iters| {
                    timed(iters, |i| {
                        let mut s = T::core();
                        s.write(i);
                        s
                    })
                }),
            ),
        ]
    }

    /// `round_trips`, for `box`, `pool` and `thread_local` only.
    pub(crate) fn round_trips_of<T: Statics>(
        shared: &Shared<T>,
        v: &mut impl pool_perf::round_trip::RoundTrips,
    ) {
        struct Only<'v, V>(&'v mut V);
        impl<V: pool_perf::round_trip::RoundTrips> pool_perf::round_trip::RoundTrips for Only<'_, V> {
            fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
                if super::VARIANTS.contains(&name) {
                    self.0.variant(name, rt);
                }
            }
        }
        round_trips(shared, &mut Only(v));
    }
}

use std::time::{Duration, SystemTime};

use criterion::Criterion;
use pool_perf::handoff::{ROUNDS, RoundsRun, TimedRun, round_objects};
use pool_perf::results::{estimate_ns, load_rounds, written_at};
use pool_perf::round_trip::{OneThread, TwoThreads};

/// The variants measured, in the table's order.
const VARIANTS: [&str; 4] = ["harness", "box", "pool", "thread_local"];
/// Every allocator's bench, in the table's order.
const ALLOCATORS: [&str; 3] = ["system", "jemalloc", "mimalloc"];

fn configure(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30);
}

fn bench_object<T: Statics>(c: &mut Criterion, object: &str) {
    let shared = Shared::<T>::new();
    let prefix: &'static str = Box::leak(format!("{ALLOCATOR}/").into_boxed_str());
    for (workload, two) in [("1_thread", false), ("2_threads", true)] {
        let mut group = c.benchmark_group(format!("alloc_{workload}_{object}"));
        configure(&mut group);
        if two {
            variants::round_trips_of(
                &shared,
                &mut TwoThreads {
                    group: &mut group,
                    prefix,
                },
            );
        } else {
            variants::round_trips_of(
                &shared,
                &mut OneThread {
                    group: &mut group,
                    prefix,
                },
            );
        }
        group.finish();
    }
}

/// The cross-thread rows, in rounds (criterion does not time them; see
/// `pool_perf::handoff`).
fn cross_object<T: Statics>(rounds: &RoundsRun, object: &str) {
    let runs = variants::handoffs::<T>();
    let runs: Vec<(String, &TimedRun)> = runs
        .iter()
        .map(|(name, run)| (format!("{ALLOCATOR}/{name}"), &**run))
        .collect();
    rounds.run(
        &format!("alloc_cross_thread_{object}"),
        round_objects(size_of::<T>()),
        &runs,
    );
}

/// Prints every allocator's rows that criterion holds: ns per round trip
/// (per thread with two) and per object handed across, and each against
/// `pool` under the system allocator.
fn report() {
    let now = SystemTime::now();
    for object in ["small", "person"] {
        let workloads =
            ["1_thread", "2_threads", "cross_thread"].map(|w| format!("alloc_{w}_{object}"));
        // Criterion's estimate, or for the cross-thread rows the median of
        // the rounds; with when it was written.
        let figure = |group: &str, id: &str| -> Option<(f64, SystemTime)> {
            if group.starts_with("alloc_cross_thread") {
                load_rounds(group, id).map(|(r, at)| (r.median(), at))
            } else {
                Some((estimate_ns(group, id)?, written_at(group, id)?))
            }
        };
        let pool_system: Vec<Option<f64>> = workloads
            .iter()
            .map(|group| figure(group, "system/pool").map(|(ns, _)| ns))
            .collect();
        println!(
            "\n## {object}: ns (and x pool on the system allocator); cross-thread: median of {ROUNDS} rounds\n"
        );
        println!(
            "{:<24} {:>18} {:>18} {:>18}  run",
            "variant", "1 thread", "2 threads, /thr", "cross-thread"
        );
        for allocator in ALLOCATORS {
            for variant in VARIANTS {
                let id = format!("{allocator}/{variant}");
                let mut cells = Vec::new();
                let mut oldest = now;
                let mut any = false;
                for (group, pool) in workloads.iter().zip(&pool_system) {
                    match figure(group, &id) {
                        Some((ns, at)) => {
                            any = true;
                            oldest = oldest.min(at);
                            let ratio =
                                pool.map_or_else(String::new, |p| format!(" ({:.2}x)", ns / p));
                            cells.push(format!("{ns:.1}{ratio}"));
                        }
                        None => cells.push("-".to_owned()),
                    }
                }
                if !any {
                    continue;
                }
                let name = format!("{variant} ({allocator})");
                let age = now.duration_since(oldest).unwrap_or_default().as_secs_f64() / 60.0;
                println!(
                    "{name:<24} {:>18} {:>18} {:>18}  {age:.0} min ago",
                    cells[0], cells[1], cells[2],
                );
            }
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not, and
    // runs each benchmark once as a test: no report then.
    let benching = std::env::args().any(|a| a == "--bench");
    let mut c = Criterion::default().configure_from_args();
    bench_object::<Small>(&mut c, "small");
    bench_object::<Person>(&mut c, "person");
    c.final_summary();
    let rounds = RoundsRun::from_args();
    cross_object::<Small>(&rounds, "small");
    cross_object::<Person>(&rounds, "person");
    if benching {
        report();
    }
}
