//! A burst of requests held at once, then all dropped (issue 16): does a
//! pool smaller than the burst cost more than no pool? Three ways in one
//! run, each request written the same way (`pool_perf::burst`): a fresh
//! `Box` per request, a derived pool with the default settings, and one
//! sized for the burst (`capacity = 16384`).
//!
//! ```text
//! cargo bench --manifest-path perf/Cargo.toml --bench burst
//! ```
//!
//! Prints the time per request of each way and its ratio to `box`, from
//! criterion's estimates of this run. Instruction counts of the same
//! bursts: `VARIANTS="none thread_local pool burst_box burst_default
//! burst_sized burst_small" scripts/callgrind.sh` (per request).

use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput, criterion_group};
use pool_perf::burst::{BATCH, Held, Way, burst};
use pool_perf::results::{estimate_ns, written_since};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("burst");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(20)
        .throughput(Throughput::Elements(BATCH as u64));
    let mut held = Held::new();
    for (name, way) in Way::ALL {
        group.bench_function(name, |b| b.iter(|| burst(way, BATCH, &mut held)));
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    let since = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();

    let per_request = |name: &str| {
        written_since("burst", name, since)
            .then(|| estimate_ns("burst", name))
            .flatten()
            .map(|ns| ns / BATCH as f64)
    };
    let Some(plain) = per_request("box") else {
        return;
    };
    println!("\n{:<10} {:>12} {:>10}", "way", "ns/request", "vs box");
    for (name, _) in Way::ALL {
        if let Some(ns) = per_request(name) {
            println!("{name:<10} {ns:>12.1} {:>9.2}x", ns / plain);
        }
    }
}
