//! Round trip acquire → write a few bytes → drop, for a small object, against
//! the two things a pool must beat or match:
//!
//! - `box`: no pool, a fresh `Box<Small>` (two allocations: the box and the
//!   `Vec`'s 64-byte buffer) made and freed every time;
//! - `thread_local`: a hand-written `thread_local!` free list, the practical
//!   floor for a per-thread cache;
//! - `pool`: a `pool_core::pool!` static;
//! - `runtime`: a pool made at run time (`pool_core::Pool::builder`), with
//!   the same configuration;
//! - `derived` and `generic`: `Small`'s fields in a struct that derives
//!   `Poolable`, and in a generic one (`SmallGeneric::<u8>::acquire()`).
//!
//! Each on one thread (`1_thread/*`) and on two threads at once
//! (`2_threads/*`). The two-thread figure is the wall time of the slower
//! thread divided by the round trips *each* thread did, so it is time per
//! round trip per thread: equal to the one-thread figure means perfect 2×
//! scaling. After the run the bench prints the aggregate throughput ratio
//! (2 threads vs 1) for each variant, from criterion's headline (slope)
//! estimates. Each two-thread sample uses fresh threads, so the pool's
//! threads take objects other threads released; two such 40-byte objects can
//! share a cache line, and samples where they do are several times slower.
//! Look at the per-sample times (`benches/target/criterion/round_trip/*/new/
//! sample.json`), not only the estimate.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench round_trip
//! ```
//!
//! The round trips are those of `benches/peers` and `benches/callgrind.rs`
//! (`round_trips` of `benches/shared/variants.rs`), with longer measurements and only these six
//! variants.

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

use std::time::{Duration, SystemTime};

use criterion::{Criterion, criterion_group};
use pool_perf::results::{estimate_ns, written_since};
use pool_perf::round_trip::{OneThread, RoundTrips, TwoThreads};

include!("shared/variants.rs");
include!("shared/derived.rs");

/// The variants this bench runs.
const VARIANTS: [&str; 6] = [
    "pool",
    "runtime",
    "derived",
    "generic",
    "box",
    "thread_local",
];

/// Passes on [`VARIANTS`]' round trips only.
struct Only<V>(V);

impl<V: RoundTrips> RoundTrips for Only<V> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        if VARIANTS.contains(&name) {
            self.0.variant(name, rt);
        }
    }
}

fn bench(c: &mut Criterion) {
    let shared = Shared::<Small>::new();
    let mut group = c.benchmark_group("round_trip");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    round_trips(
        &shared,
        &mut Only(OneThread {
            group: &mut group,
            prefix: "1_thread/",
        }),
    );
    derive_round_trips(&mut Only(OneThread {
        group: &mut group,
        prefix: "1_thread/",
    }));
    round_trips(
        &shared,
        &mut Only(TwoThreads {
            group: &mut group,
            prefix: "2_threads/",
        }),
    );
    derive_round_trips(&mut Only(TwoThreads {
        group: &mut group,
        prefix: "2_threads/",
    }));
    group.finish();
}

criterion_group!(benches, bench);

/// Criterion's headline estimate (ns) for `round_trip/<id>`, the middle
/// figure it prints. `None` unless this run wrote it.
fn estimate(id: &str, since: SystemTime) -> Option<f64> {
    written_since("round_trip", id, since)
        .then(|| estimate_ns("round_trip", id))
        .flatten()
}

fn main() {
    let since = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();

    let floor = estimate("1_thread/thread_local", since);
    let mut printed_header = false;
    for name in VARIANTS {
        let (Some(one), Some(two)) = (
            estimate(&format!("1_thread/{name}"), since),
            estimate(&format!("2_threads/{name}"), since),
        ) else {
            continue;
        };
        if !printed_header {
            println!(
                "\n{:<14} {:>10} {:>14} {:>16} {:>14}",
                "variant", "1 thr ns", "2 thr ns/thr", "2-thr thruput", "1-thr vs tl"
            );
            printed_header = true;
        }
        let vs_floor = floor.map_or_else(|| "-".to_owned(), |f| format!("{:.3}x", one / f));
        println!(
            "{name:<14} {one:>10.3} {two:>14.3} {:>15.3}x {vs_floor:>14}",
            2.0 * one / two
        );
    }
}
