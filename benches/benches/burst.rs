//! A burst of requests held at once, then all dropped (issue 16): does a
//! pool smaller than the burst cost more than no pool? Every way of
//! `pool_perf::burst` in one run, each request written the same way: a
//! fresh `Box` per request, derived pools with the default settings, sized
//! for the burst and bounded below it, in bursts of 10,000; and a fresh
//! `Box` and a default pool in bursts of 100,000, past the default
//! capacity. Each way is compared with no pool in bursts of its size.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench burst
//! ```
//!
//! Prints the time per request of each way and its ratio to no pool, from
//! criterion's estimates of this run. Instruction counts of the same
//! bursts: `VARIANTS="none thread_local pool burst_box burst_default
//! burst_sized burst_small burst_huge_box burst_huge" scripts/callgrind.sh`
//! (per request).

use std::time::{Duration, SystemTime};

use criterion::{Criterion, Throughput, criterion_group};
use pool_perf::burst::{BATCH, Held, Way, burst};
use pool_perf::results::{estimate_ns, written_since};

fn bench(c: &mut Criterion) {
    let mut held = Held::new();
    for (name, way) in Way::ALL {
        let mut group = c.benchmark_group("burst");
        group
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4))
            .sample_size(if way.requests() > BATCH { 10 } else { 20 })
            .throughput(Throughput::Elements(way.requests() as u64));
        group.bench_function(name, |b| {
            b.iter(|| burst(way, way.requests(), &mut held));
        });
        group.finish();
    }
}

criterion_group!(benches, bench);

fn main() {
    let since = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();

    let per_request = |way: Way| {
        let (name, _) = Way::ALL.iter().find(|(_, w)| *w == way)?;
        written_since("burst", name, since)
            .then(|| estimate_ns("burst", name))
            .flatten()
            .map(|ns| ns / way.requests() as f64)
    };
    println!(
        "\n{:<10} {:>9} {:>12} {:>16}",
        "way", "burst", "ns/request", "vs no pool"
    );
    for (name, way) in Way::ALL {
        let Some(ns) = per_request(way) else {
            continue;
        };
        let ratio = per_request(way.baseline())
            .map_or_else(String::new, |plain| format!("{:.2}x", ns / plain));
        println!("{name:<10} {:>9} {ns:>12.1} {ratio:>16}", way.requests());
    }
}
