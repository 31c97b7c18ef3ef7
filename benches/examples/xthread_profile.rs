//! Where pool-core's time goes when one thread acquires and another
//! releases: the cross-thread handoff of `benches/peers` (workload 3, the
//! same rings and batches, `pool_perf::handoff`), with the pool's
//! statistics read before and after each round.
//!
//! `cargo run --release --manifest-path benches/Cargo.toml --example xthread_profile [-- ROUNDS [OBJECTS]]`
//!
//! With `HARNESS=1`: the harness alone and pool-core's default small pool,
//! alternating. With `OPOOL=1`: opool with the reset on the producer (on
//! `get`, opool's place for it) or on the consumer (before the drop, where
//! pool-core resets), alternating, for both objects. With `CIRCULATION=1`:
//! how many distinct `Person` objects pool-core's default pool and opool
//! hand out per round, the working set the two threads' caches must hold.
//! With `CACHES=1`: `Person` through pools with thread caches of 8, 16
//! and 32 (the default), interleaved round by round. With `MODES=1`: each
//! object through pools that reset on release (the default) and on
//! acquire (`reset_on_acquire`), interleaved round by round.
//!
//! For each object (`small`, and the seeds' `Person` with its 2 KiB
//! remark) and each of four pool configurations (the defaults, a larger
//! shared store, larger thread caches, reset on acquire), prints per round: ns per object,
//! then per 1000 objects handed across: objects made by the constructor
//! (`created`), acquires served by the producer's own cache (`local`) and by
//! the shared store (`primary` + `victim`: one per refill that found
//! something, which takes the store's lock once), releases that went into
//! the consumer's cache (`returned`), and returned objects dropped because
//! the store was full (`dropped`), with the objects idle at the end.
//! Every refill that finds the store empty, and every spill, costs a lock
//! too; the refills that found something are `primary + victim`, and a
//! spill moves at most one thread cache (32 objects by default), so the
//! consumer takes the lock at least `returned / 32` times.

use std::collections::HashSet;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Duration;

use pool_core::{Pool, Poolable, Pooled, Reset, Stats, pool};
use pool_perf::handoff::{WARM, handoff, load_average};

/// The small object of every bench.
struct Small {
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

    fn write(&mut self, i: u64) {
        self.a = i;
        self.b = i ^ 0x5a5a;
        self.v.extend_from_slice(&i.to_le_bytes());
        black_box(&*self);
    }
}

impl Reset for Small {
    fn reset(&mut self) {
        self.a = 0;
        self.b = 0;
        self.v.clear();
    }
}

/// Seed 000's `Person`, with the derive's reset, as in the benches.
#[derive(Poolable)]
#[pool(new = Person::new)]
struct Person {
    name: String,
    age: i32,
    remark: [u8; 2048],
}

impl Person {
    fn new() -> Self {
        Person {
            name: String::new(),
            age: 0,
            remark: [0; 2048],
        }
    }

    fn write(&mut self, i: u64) {
        self.name.push_str("Ada");
        self.age = i as i32;
        self.remark[..8].copy_from_slice(&i.to_le_bytes());
        black_box(&*self);
    }
}

pool! {
    static SMALL_BIG_STORE: Pool<Small> = Pool::new(Small::new).capacity(8192);
    static SMALL_BIG_CACHE: Pool<Small> = Pool::new(Small::new).thread_capacity(128);
    static SMALL_DEFAULT: Pool<Small> = Pool::new(Small::new);
    static PERSON_BIG_STORE: Pool<Person> = Pool::new(Person::new).capacity(8192);
    static PERSON_BIG_CACHE: Pool<Person> = Pool::new(Person::new).thread_capacity(128);
    static PERSON_CACHE_8: Pool<Person> = Pool::new(Person::new).thread_capacity(8);
    static PERSON_CACHE_16: Pool<Person> = Pool::new(Person::new).thread_capacity(16);
    static SMALL_ON_ACQUIRE: Pool<Small> = Pool::new(Small::new).reset_on_acquire();
    static PERSON_ON_ACQUIRE: Pool<Person> = Pool::new(Person::new).reset_on_acquire();
}

/// The difference between two snapshots, per 1000 objects handed across.
fn per_k(after: u64, before: u64, objects: u64) -> f64 {
    after.saturating_sub(before) as f64 * 1000.0 / objects as f64
}

fn profile(
    label: &str,
    rounds: usize,
    objects: u64,
    stats: fn() -> Stats,
    one: impl Fn(u64) -> Duration,
) {
    println!(
        "\n{label}: {rounds} rounds of {objects} objects (+{WARM} warm), load {}",
        load_average()
    );
    println!(
        "{:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
        "round", "ns/obj", "created", "local", "primary", "victim", "returned", "dropped", "idle"
    );
    for round in 1..=rounds {
        let before = stats();
        let elapsed = one(objects);
        let after = stats();
        let n = objects + WARM;
        println!(
            "{round:>5} {:>9.2} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>7}",
            elapsed.as_secs_f64() * 1e9 / objects as f64,
            per_k(after.created, before.created, n),
            per_k(after.hits_local, before.hits_local, n),
            per_k(after.hits_primary, before.hits_primary, n),
            per_k(after.hits_victim, before.hits_victim, n),
            per_k(after.returned, before.returned, n),
            per_k(after.dropped_capacity, before.dropped_capacity, n),
            after.idle,
        );
    }
}

/// What the profile does with an object: make it, write into it (the
/// producer), reset it (the consumer, or opool's `get`).
trait Object: Send + 'static {
    fn make() -> Self;
    fn write(&mut self, i: u64);
    fn clean(&mut self);
}

impl Object for Small {
    fn make() -> Self {
        Small::new()
    }
    fn write(&mut self, i: u64) {
        Small::write(self, i);
    }
    fn clean(&mut self) {
        Reset::reset(self);
    }
}

/// opool holds `Person` boxed, as its `ByValue` variants do in the benches.
impl Object for Box<Person> {
    fn make() -> Self {
        Box::new(Person::new())
    }
    fn write(&mut self, i: u64) {
        Person::write(self, i);
    }
    fn clean(&mut self) {
        Reset::reset(&mut **self);
    }
}

/// opool's allocator: resets on `get` (opool's place for it, on the
/// producer), or not at all when the consumer resets before the drop.
struct OpoolAlloc {
    reset_on_get: bool,
}

impl<S: Object> opool::PoolAllocator<S> for OpoolAlloc {
    fn allocate(&self) -> S {
        S::make()
    }

    fn reset(&self, object: &mut S) {
        if self.reset_on_get {
            object.clean();
        }
    }
}

/// opool (one crossbeam `ArrayQueue`) with the reset on the producer
/// (`get`) or on the consumer (before the drop): which thread writes the
/// object's bytes (2 KiB for `Person`).
fn opool_rounds<S: Object>(label: &str, rounds: usize, objects: u64, reset_on_get: bool) {
    println!(
        "\n{label}: {rounds} rounds of {objects} objects, load {}",
        load_average()
    );
    for round in 1..=rounds {
        let pool = opool::Pool::<OpoolAlloc, S>::new(1024, OpoolAlloc { reset_on_get });
        let elapsed = handoff(
            WARM,
            objects,
            u64::MAX,
            || 0,
            |i| {
                let mut object = pool.get();
                object.write(i);
                object
            },
            |mut object| {
                if !reset_on_get {
                    object.clean();
                }
            },
        )
        .elapsed;
        println!(
            "{round:>5} {:>9.2} ns/obj",
            elapsed.as_secs_f64() * 1e9 / objects as f64
        );
    }
}

/// pool-core's cross-thread handoff of `n` objects from `pool`, timed.
fn run<T: Reset + Send + 'static>(
    pool: &'static Pool<T>,
    n: u64,
    write: fn(&mut T, u64),
) -> Duration {
    handoff(
        WARM,
        n,
        u64::MAX,
        || 0,
        |i| {
            let mut object: Pooled<T> = pool.acquire();
            write(&mut object, i);
            object
        },
        drop,
    )
    .elapsed
}

/// The heading of an opool run.
fn opool_label(object: &str, reset_on_get: bool) -> String {
    let reset = if reset_on_get {
        "reset on get (producer)"
    } else {
        "reset before drop (consumer)"
    };
    format!("opool {object}, {reset}")
}

/// The distinct objects `acquire` hands out over a handoff of `n`, after
/// the warm-up: the working set in circulation.
fn circulation<G: Send>(
    n: u64,
    address: fn(&G) -> usize,
    acquire: impl Fn(u64) -> G + Sync,
) -> usize {
    let seen = Mutex::new(HashSet::new());
    handoff(
        WARM,
        n,
        u64::MAX,
        || 0,
        |i| {
            let object = acquire(i);
            if i >= WARM {
                seen.lock().unwrap().insert(address(&object));
            }
            object
        },
        drop,
    );
    seen.into_inner().unwrap().len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(7, |a| a.parse().expect("ROUNDS"));
    let objects: Option<u64> = args.next().map(|a| a.parse().expect("OBJECTS"));
    let small_n = objects.unwrap_or(1 << 21);
    let person_n = objects.unwrap_or(1 << 18);
    // `HARNESS=1`: the harness alone (integers), then pool-core's default
    // small pool, alternating.
    if std::env::var_os("HARNESS").is_some() {
        for round in 1..=rounds {
            let harness = handoff(WARM, small_n, u64::MAX, || 0, |i| i, drop).elapsed;
            let pool = run(&SMALL_DEFAULT, small_n, Small::write);
            let ns = |d: Duration| d.as_secs_f64() * 1e9 / small_n as f64;
            println!(
                "{round:>5} harness {:>8.2} ns/obj  pool {:>8.2} ns/obj  load {}",
                ns(harness),
                ns(pool),
                load_average()
            );
        }
        return;
    }
    // `CACHES=1`: `Person` with thread caches of 8, 16 and 32, interleaved.
    if std::env::var_os("CACHES").is_some() {
        let pools: [(&str, &'static Pool<Person>); 3] = [
            ("8", &PERSON_CACHE_8),
            ("16", &PERSON_CACHE_16),
            ("32", Person::pool()),
        ];
        for round in 1..=rounds {
            let each: Vec<String> = pools
                .iter()
                .map(|(name, pool)| {
                    let ns = run(pool, person_n, Person::write).as_secs_f64() * 1e9;
                    format!("{name}: {:>7.1}", ns / person_n as f64)
                })
                .collect();
            println!(
                "{round:>5} Person ns/obj by thread_capacity  {}  load {}",
                each.join("  "),
                load_average()
            );
        }
        return;
    }
    // `MODES=1`: each object reset on release and on acquire, interleaved.
    if std::env::var_os("MODES").is_some() {
        for round in 1..=rounds {
            let ns = |d: Duration, n: u64| d.as_secs_f64() * 1e9 / n as f64;
            let small = [&SMALL_DEFAULT, &SMALL_ON_ACQUIRE]
                .map(|p| ns(run(p, small_n, Small::write), small_n));
            let person = [Person::pool(), &PERSON_ON_ACQUIRE]
                .map(|p| ns(run(p, person_n, Person::write), person_n));
            println!(
                "{round:>5} ns/obj small: on release {:>7.2} on acquire {:>7.2}  Person: on release {:>7.2} on acquire {:>7.2}  load {}",
                small[0],
                small[1],
                person[0],
                person[1],
                load_average()
            );
        }
        return;
    }
    // `CIRCULATION=1`: distinct objects per round, pool-core and opool.
    if std::env::var_os("CIRCULATION").is_some() {
        for round in 1..=rounds {
            let core = circulation(
                person_n,
                |p: &Pooled<Person>| std::ptr::from_ref::<Person>(p).addr(),
                |i| {
                    let mut object = Person::acquire();
                    object.write(i);
                    object
                },
            );
            let opool = opool::Pool::<OpoolAlloc, Box<Person>>::new(
                1024,
                OpoolAlloc {
                    reset_on_get: false,
                },
            );
            let peer = circulation(
                person_n,
                |p: &opool::RefGuard<'_, OpoolAlloc, Box<Person>>| {
                    std::ptr::from_ref::<Person>(&***p).addr()
                },
                |i| {
                    let mut object = opool.get();
                    object.write(i);
                    object
                },
            );
            println!(
                "{round:>5} distinct Person objects handed out: pool-core {core}, opool {peer}  load {}",
                load_average()
            );
        }
        return;
    }
    // `OPOOL=1`: opool with `Person`, reset on the producer or on the
    // consumer, alternating, instead of the pool-core runs.
    if std::env::var_os("OPOOL").is_some() {
        for _ in 0..2 {
            for reset_on_get in [true, false] {
                opool_rounds::<Small>(
                    &opool_label("small", reset_on_get),
                    rounds,
                    small_n,
                    reset_on_get,
                );
            }
        }
        for _ in 0..2 {
            for reset_on_get in [true, false] {
                opool_rounds::<Box<Person>>(
                    &opool_label("Person", reset_on_get),
                    rounds,
                    person_n,
                    reset_on_get,
                );
            }
        }
        return;
    }

    profile(
        "small, defaults (capacity 65536, thread_capacity 32)",
        rounds,
        small_n,
        || SMALL_DEFAULT.stats(),
        |n| run(&SMALL_DEFAULT, n, Small::write),
    );
    profile(
        "small, capacity 8192",
        rounds,
        small_n,
        || SMALL_BIG_STORE.stats(),
        |n| run(&SMALL_BIG_STORE, n, Small::write),
    );
    profile(
        "small, thread_capacity 128",
        rounds,
        small_n,
        || SMALL_BIG_CACHE.stats(),
        |n| run(&SMALL_BIG_CACHE, n, Small::write),
    );
    profile(
        "small, reset on acquire",
        rounds,
        small_n,
        || SMALL_ON_ACQUIRE.stats(),
        |n| run(&SMALL_ON_ACQUIRE, n, Small::write),
    );
    profile(
        "Person, defaults (derived: capacity 65536, thread_capacity 32)",
        rounds,
        person_n,
        || Person::pool().stats(),
        |n| run(Person::pool(), n, Person::write),
    );
    profile(
        "Person, capacity 8192",
        rounds,
        person_n,
        || PERSON_BIG_STORE.stats(),
        |n| run(&PERSON_BIG_STORE, n, Person::write),
    );
    profile(
        "Person, thread_capacity 128",
        rounds,
        person_n,
        || PERSON_BIG_CACHE.stats(),
        |n| run(&PERSON_BIG_CACHE, n, Person::write),
    );
    profile(
        "Person, reset on acquire",
        rounds,
        person_n,
        || PERSON_ON_ACQUIRE.stats(),
        |n| run(&PERSON_ON_ACQUIRE, n, Person::write),
    );
}
