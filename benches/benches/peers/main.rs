//! pool-core against every peer pool, on five workloads, with time,
//! allocations and memory, the way Go's `go test -bench . -benchmem` reports
//! them.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench peers                # everything, about 4 minutes
//! cargo bench --manifest-path benches/Cargo.toml --bench peers -- 1_thread    # one workload (a criterion filter)
//! ```
//!
//! Workloads, each for a small object (`Small`: two words and a `Vec<u8>`
//! with 64 bytes of capacity) and for the seeds' `Person` (a `String`, an
//! `i32` and a 2 KiB array):
//!
//! 1. `1_thread_*`: round trip acquire → write a few bytes → release, on one
//!    thread;
//! 2. `2_threads_*`: the same on two threads at once. Each sample starts two
//!    fresh threads, warms them up, then times each; the figure is the slower
//!    thread's time divided by the round trips *each* thread did (time per
//!    round trip per thread), so equal to the one-thread figure means the
//!    aggregate throughput doubled;
//! 3. `cross_thread_*`: one thread acquires objects in batches of
//!    [`BATCH`](pool_perf::handoff::BATCH) and writes into each; another
//!    releases them. Each batch travels whole, as one `Vec`, over a bounded
//!    lock-free ring that both sides spin on (and yield, never block), and
//!    its empty buffer comes back on a second ring
//!    ([`pool_perf::handoff`]); the rings and batches are the same for
//!    every variant, and the `harness` row (integers, no pool) shows what
//!    they cost. Not timed by criterion: each variant runs
//!    [`ROUNDS`](pool_perf::handoff::ROUNDS) rounds, each on a fresh pool
//!    (pool-core's is a `static`, so it stays warm) with
//!    [`WARM`](pool_perf::handoff::WARM) objects untimed and then 2^21
//!    small objects or 2^18 `Person`s timed from the producer's first
//!    acquire to the consumer's last release; the figure is the median time
//!    per object, printed with the fastest and the slowest round (the
//!    issue's "every round within 1.5x of the median") and the load
//!    average. The same filter as criterion's selects them
//!    (`-- 'cross_thread_person/(pool|opool)$'`);
//! 4. `scaling_1_thread_*` and `scaling_2_threads_*`: workloads 1 and 2
//!    again, in interleaved rounds as workload 3's: in each round every
//!    variant runs once on one fresh thread and then on two, back to back
//!    (`pool_perf::round_trip::ScalingRounds`), so that the round's scaling
//!    (two threads' throughput over one thread's) is taken in one state of
//!    the machine; criterion runs workloads 1 and 2 minutes apart;
//! 5. `json_decode`: the seeds' JSON bodies (seed 000's `Person` with a
//!    2048-byte `Remark`, seed 001's `Student` with a 1024-byte one) decoded
//!    with `serde_json` into a fresh value, or into a pooled one whose
//!    `String` keeps its buffer; and `json_nested`, an order of ten line
//!    items (two `String`s and a list of tags each) and tags of its own
//!    (`pool_perf::json::order_body`), decoded fresh or into a
//!    `Pooled<Order>` whose lists are `ReuseVec`s or `Vec`s.
//!
//! Variants (the peers are used the way their docs recommend for each
//! workload; see [`round_trips`] and [`handoffs`]):
//!
//! | variant | what it is |
//! |---|---|
//! | `pool` | pool-core: `pool!` static (`Small`) or `#[derive(Poolable)]` (`Person`) |
//! | `runtime` | pool-core: a pool made at run time (`Pool::builder`); in the cross-thread workload, a fresh one for each run, as the peers' pools are |
//! | `box` | no pool: `Box::new` of a fresh value, dropped |
//! | `thread_local` | hand-written `thread_local!` `Vec<Box<T>>` free list: the practical one-thread floor |
//! | `object-pool` | `object_pool::Pool`: one `parking_lot::Mutex<Vec<T>>`, `pull` / drop (no reset of its own: reset by hand before drop) |
//! | `lifeguard` | a `lifeguard::Pool` per thread (`Rc`-based, not `Send`), `new` / drop |
//! | `opool` | `opool::Pool`: a crossbeam `ArrayQueue`, `get` / drop |
//! | `opool_local` | an `opool::LocalPool` per thread (not `Send`) |
//! | `sharded-slab` | `sharded_slab::Pool`: `create_with` / `clear(key)` |
//! | `regex-automata` | `regex_automata::util::pool::Pool`: owner slot + 8 mutex stacks (no reset of its own: reset by hand) |
//! | `poolshark_local` | `poolshark::local::LPooled` (thread-local pools, the crate's default choice) |
//! | `poolshark` | `poolshark::global::Pool` (`ArrayQueue`; the crate's choice for producer/consumer) |
//! | `lockfree-object-pool` | `LinearObjectPool` (pages of 32 slots with an atomic bitmap), `pull` / drop |
//! | `harness` | cross-thread only: integers through the same rings and batches, no objects and no pool; the harness's own cost, in every other row |
//!
//! Every variant resets the object with the very function pool-core uses
//! (`Reset::reset`: clear the `Vec`/`String`, zero the numbers and the
//! array), so the work compared is equal. Pools that move objects by value
//! (`object-pool`, `lifeguard`, `opool`, `poolshark`) hold a `Person` as
//! `Box<Person>`, their best configuration: unboxed, each acquire and
//! release would copy its 2 KiB, while pool-core boxes objects itself.
//!
//! A counting global allocator reports bytes and allocations per operation.
//! It is switched off while criterion times (one relaxed load and a branch
//! per allocation, the same for every variant) and on in separate, untimed
//! passes that run after criterion: [`ONE_THREAD_COUNT`] round trips on one
//! thread after a warm-up, [`JSON_COUNT`] decodes, and for the cross-thread
//! workload a fresh pool run for [`MEMORY_N2`](pool_perf::handoff::MEMORY_N2)
//! objects, reporting the heap it holds (net of what was live before) after
//! [`MEMORY_N1`](pool_perf::handoff::MEMORY_N1) and `MEMORY_N2` objects and
//! the peak. A bounded pool shows the same figure
//! at both points; a pool that never reuses across threads grows.
//!
//! After the run the bench prints those tables with the ratios, read back
//! from criterion's `target/criterion/*/*/new/estimates.json` (and the
//! cross-thread rounds from `target/rounds`), and for the
//! two-thread workload also from the fastest sample
//! (`sample.json`), which is the figure least disturbed when other work
//! shares the machine's cores;
//! `cargo run --release --manifest-path benches/Cargo.toml --example perf_chart` draws `docs/perf.svg` from
//! the same files.

mod counting;
mod handoff;
mod json;
mod report;

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use pool_perf::handoff::{RoundsRun, load_average, round_objects};
use pool_perf::json::{Order, VecOrder, body_000, body_001, fields_in_place, order_body};
use pool_perf::round_trip::{OneThread, ScalingRounds, TwoThreads};

use crate::counting::{DecodeCounted, count_object};
use crate::handoff::{CrossRounds, handoffs};
use crate::json::{DecodeTimed, decodes, nested_decodes};
use crate::report::report;

include!("../shared/variants.rs");

/// Short warm-up and measurement, so that the whole bench takes a few
/// minutes; 30 samples.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30);
}

fn bench_object<T: Statics>(c: &mut Criterion, object: &str, shared: &Shared<T>) {
    let mut group = c.benchmark_group(format!("1_thread_{object}"));
    configure(&mut group);
    round_trips(
        shared,
        &mut OneThread {
            group: &mut group,
            prefix: "",
        },
    );
    group.finish();

    let mut group = c.benchmark_group(format!("2_threads_{object}"));
    configure(&mut group);
    round_trips(
        shared,
        &mut TwoThreads {
            group: &mut group,
            prefix: "",
        },
    );
    group.finish();
}

/// The cross-thread workload, in rounds (criterion does not time it).
fn cross_object<T: Statics>(rounds: &RoundsRun, object: &str) {
    let mut runs = CrossRounds::default();
    handoffs::<T>(&mut runs);
    runs.run(
        rounds,
        &format!("cross_thread_{object}"),
        round_objects(size_of::<T>()),
    );
}

/// The round trip on one thread and on two in interleaved rounds
/// (`ScalingRounds`; criterion does not time these), of half a
/// cross-thread round's objects per thread.
fn scaling_object<T: Statics>(shared: &Shared<T>, rounds: &RoundsRun, object: &str) {
    let objects = round_objects(size_of::<T>()) / 2;
    let mut scaling = ScalingRounds::new(rounds, object, objects);
    let load_before = load_average();
    for _ in 0..scaling.count() {
        round_trips(shared, &mut scaling);
    }
    scaling.finish(&load_before);
}

fn bench_json(c: &mut Criterion) {
    let mut group = c.benchmark_group("json_decode");
    configure(&mut group);
    let (b000, b001) = (body_000(), body_001());
    decodes!(
        Person,
        &mut DecodeTimed {
            group: &mut group,
            seed: "000_person",
            body: &b000,
        }
    );
    decodes!(
        Student,
        &mut DecodeTimed {
            group: &mut group,
            seed: "001_student",
            body: &b001,
        }
    );
    group.finish();

    let mut group = c.benchmark_group("json_nested");
    configure(&mut group);
    let body = order_body();
    nested_decodes(&mut DecodeTimed {
        group: &mut group,
        seed: "order",
        body: &body,
    });
    group.finish();
}

/// Checks that the variants compute what they claim before timing them.
fn check() {
    use poolshark::IsoPoolable;
    assert_ne!(
        <Small as IsoPoolable>::DISCRIMINANT,
        <Box<Person> as IsoPoolable>::DISCRIMINANT,
        "poolshark location ids must differ per type"
    );
    let body = body_000();
    let fresh: Person = serde_json::from_slice(&body).expect("valid body");
    let mut pooled = Person::acquire();
    pooled
        .name
        .push_str("a much longer name left over from the last request");
    pooled.age = 99;
    pooled.remark[2047] = 1;
    let capacity = pooled.name.capacity();
    let mut de = serde_json::Deserializer::from_slice(&body);
    let place = &mut *pooled;
    fields_in_place(&mut de, &mut place.name, &mut place.age, &mut place.remark)
        .expect("valid body");
    for person in [&fresh, &*pooled] {
        assert_eq!(person.name, "萌哦科技");
        assert_eq!(person.age, 25);
        assert!(person.remark.iter().all(|&b| b == 0));
    }
    assert_eq!(pooled.name.capacity(), capacity, "the buffer is kept");

    let body = order_body();
    let first: Pooled<Order> = serde_json::from_slice(&body).expect("valid body");
    let name = first.items[9].name.as_ptr();
    drop(first);
    let order: Pooled<Order> = serde_json::from_slice(&body).expect("valid body");
    let plain: VecOrder = serde_json::from_slice(&body).expect("valid body");
    assert_eq!((order.items.len(), plain.items.len()), (10, 10));
    assert_eq!(order.items[9].name, plain.items[9].name);
    assert_eq!(order.items[8].tags, plain.items[8].tags);
    assert_eq!(order.items[9].name.as_ptr(), name, "the line item is kept");
}

fn main() {
    check();
    let small = Shared::<Small>::new();
    let person = Shared::<Person>::new();

    let mut c = Criterion::default().configure_from_args();
    bench_object(&mut c, "small", &small);
    bench_object(&mut c, "person", &person);
    bench_json(&mut c);
    c.final_summary();
    let rounds = RoundsRun::from_args();
    cross_object::<Small>(&rounds, "small");
    cross_object::<Person>(&rounds, "person");
    scaling_object(&small, &rounds, "small");
    scaling_object(&person, &rounds, "person");

    // The untimed passes, only under `cargo bench` (not `cargo test
    // --benches`, which runs each benchmark once as a test, nor `--list`).
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    if !flag("--bench") || flag("--test") || flag("--list") {
        return;
    }
    let filter = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let wanted =
        |group: &str| filter.is_empty() || group.contains(&filter) || filter.contains(group);

    let mut rows = Vec::new();
    count_object(&small, "small", &wanted, &mut rows);
    count_object(&person, "person", &wanted, &mut rows);
    if wanted("json_decode") {
        let (b000, b001) = (body_000(), body_001());
        decodes!(
            Person,
            &mut DecodeCounted {
                group: "json_decode",
                seed: "000_person",
                body: &b000,
                rows: &mut rows,
            }
        );
        decodes!(
            Student,
            &mut DecodeCounted {
                group: "json_decode",
                seed: "001_student",
                body: &b001,
                rows: &mut rows,
            }
        );
    }
    if wanted("json_nested") {
        nested_decodes(&mut DecodeCounted {
            group: "json_nested",
            seed: "order",
            body: &order_body(),
            rows: &mut rows,
        });
    }
    report(&rows);
}
