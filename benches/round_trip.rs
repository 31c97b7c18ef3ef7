//! Round trip acquire → write a few bytes → drop, for a small object, against
//! the two things a pool must beat or match:
//!
//! - `box`: no pool, a fresh `Box<Small>` (two allocations: the box and the
//!   `Vec`'s 64-byte buffer) made and freed every time;
//! - `thread_local`: a hand-written `thread_local!` free list, the practical
//!   floor for a per-thread cache;
//! - `pool`: a `pool_core::pool!` static.
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
//! Look at the per-sample times (`target/criterion/round_trip/*/new/
//! sample.json`), not only the estimate.
//!
//! ```text
//! cargo bench --bench round_trip
//! ```
//!
//! `benches/callgrind.rs` runs the same three round trips under callgrind
//! (see `scripts/callgrind.sh`); keep the two definitions identical.

use std::cell::RefCell;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant, SystemTime};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group};
use pool_core::{Pool, Reset, pool};

/// The pooled object: two words and a `Vec` with 64 bytes of capacity.
pub struct Small {
    a: u64,
    b: u64,
    v: Vec<u8>,
}

impl Small {
    fn new() -> Self {
        Small {
            a: 0,
            b: 0,
            v: Vec::with_capacity(64),
        }
    }
}

impl Reset for Small {
    #[inline]
    fn reset(&mut self) {
        self.a = 0;
        self.b = 0;
        self.v.clear();
    }
}

pool! {
    static POOL: Pool<Small> = Pool::new(Small::new).capacity(1024).thread_capacity(32);
}

thread_local! {
    #[allow(clippy::vec_box, reason = "boxed like the pool's objects: a pop or push moves one pointer")]
    static FREE: RefCell<Vec<Box<Small>>> = const { RefCell::new(Vec::new()) };
}

/// The work done on the object while it is held: two words and 8 bytes
/// into the buffer. `black_box` makes the writes observable.
#[inline(always)]
fn write(s: &mut Small, i: u64) {
    s.a = i;
    s.b = i ^ 0x5a5a;
    s.v.extend_from_slice(&i.to_le_bytes());
    black_box(&*s);
}

#[inline(always)]
fn rt_pool(i: u64) {
    let mut s = POOL.acquire();
    write(&mut s, i);
    drop(s);
}

#[inline(always)]
fn rt_box(i: u64) {
    let mut s = Box::new(Small::new());
    write(&mut s, i);
    drop(s);
}

#[inline(always)]
fn rt_thread_local(i: u64) {
    let mut s = FREE
        .with_borrow_mut(Vec::pop)
        .unwrap_or_else(|| Box::new(Small::new()));
    write(&mut s, i);
    s.reset();
    FREE.with_borrow_mut(|free| free.push(s));
}

/// Two threads each doing `iters` round trips, started together; returns the
/// slower thread's wall time (criterion divides by `iters`, giving time per
/// round trip per thread).
///
/// Generic over the round trip (a function item, not a pointer) so that it
/// is inlined into the timed loop exactly as in the one-thread case.
fn two_threads(iters: u64, rt: impl Fn(u64) + Copy + Send) -> Duration {
    let barrier = Barrier::new(2);
    let barrier = &barrier;
    std::thread::scope(|scope| {
        let run = move || {
            // Warm this thread's cache up (first use takes the slow path)
            // outside the timed region.
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

fn one(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, rt: impl Fn(u64) + Copy) {
    group.bench_function(format!("1_thread/{name}"), |b| {
        let mut i = 0u64;
        b.iter(|| {
            i = i.wrapping_add(1);
            rt(i);
        });
    });
}

fn two(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, rt: impl Fn(u64) + Copy + Send) {
    group.bench_function(format!("2_threads/{name}"), |b| {
        b.iter_custom(|iters| two_threads(iters, rt));
    });
}

const VARIANTS: [&str; 3] = ["pool", "box", "thread_local"];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("round_trip");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    one(&mut group, "pool", rt_pool);
    one(&mut group, "box", rt_box);
    one(&mut group, "thread_local", rt_thread_local);
    two(&mut group, "pool", rt_pool);
    two(&mut group, "box", rt_box);
    two(&mut group, "thread_local", rt_thread_local);
    group.finish();
}

criterion_group!(benches, bench);

/// Criterion's headline estimate (ns) for `round_trip/<id>`, the middle
/// figure it prints: the slope of its linear fit, or the mean where it has no
/// slope. `None` unless this run wrote it.
fn estimate_ns(id: &str, since: SystemTime) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        std::path::PathBuf::from,
    );
    let path = target
        .join("criterion/round_trip")
        .join(id.replace('/', "_"))
        .join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let json = std::fs::read_to_string(path).ok()?;
    // {"mean":{"confidence_interval":{...},"point_estimate":X,...},...,
    //  "slope":{...} or "slope":null,...}
    let key = match json.find("\"slope\":{") {
        Some(at) => at,
        None => json.find("\"mean\":{")?,
    };
    let estimate = &json[key..];
    let value = &estimate[estimate.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = value.find([',', '}'])?;
    value[..end].trim().parse().ok()
}

fn main() {
    let since = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();

    let floor = estimate_ns("1_thread/thread_local", since);
    let mut printed_header = false;
    for name in VARIANTS {
        let (Some(one), Some(two)) = (
            estimate_ns(&format!("1_thread/{name}"), since),
            estimate_ns(&format!("2_threads/{name}"), since),
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
