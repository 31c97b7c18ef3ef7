//! pool-core against every peer pool, on four workloads, with time,
//! allocations and memory, the way Go's `go test -bench . -benchmem` reports
//! them.
//!
//! ```text
//! cargo bench --bench peers                # everything, about 4 minutes
//! cargo bench --bench peers -- 1_thread    # one workload (a criterion filter)
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
//!    [`BATCH`], writes into each and sends the batch over a bounded
//!    `std::sync::mpsc::sync_channel`; another thread releases them and sends
//!    the empty batch vector back. The channel and the batches are the same
//!    for every variant; both sides spin and yield a while before they
//!    block (see [`SPINS`]). Each sample builds a fresh pool (pool-core's is a
//!    `static`, so it stays warm), runs [`WARM`] objects through untimed,
//!    then times from the producer's first acquire to the consumer's last
//!    release: time per object;
//! 4. `json_decode`: the seeds' JSON bodies (seed 000's `Person` with a
//!    2048-byte `Remark`, seed 001's `Student` with a 1024-byte one) decoded
//!    with `serde_json` into a fresh value, or into a pooled one whose
//!    `String` keeps its buffer.
//!
//! Variants (the peers are used the way their docs recommend for each
//! workload; see [`round_trips`] and [`handoffs`]):
//!
//! | variant | what it is |
//! |---|---|
//! | `pool` | pool-core: `pool!` static (`Small`) or `#[derive(Poolable)]` (`Person`) |
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
//! workload a fresh pool run for [`MEMORY_N2`] objects, reporting the heap
//! it holds (net of what was live before) after [`MEMORY_N1`] and
//! [`MEMORY_N2`] objects and the peak. A bounded pool shows the same figure
//! at both points; a pool that never reuses across threads grows.
//!
//! After the run the bench prints those tables with the ratios, read back
//! from criterion's `target/criterion/*/*/new/estimates.json`, and for the
//! two-thread and cross-thread workloads also from the fastest sample
//! (`sample.json`), which is the figure least disturbed when other work
//! shares the machine's cores;
//! `cargo run --release --example perf_chart` draws `docs/perf.svg` from
//! the same files.

use std::cell::RefCell;
use std::fmt;
use std::hint::black_box;
use std::sync::Barrier;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use pool_core::{Pool, Poolable, Pooled, Reset, pool};
use pool_suite::alloc::{Counting, Usage};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

// ---------------------------------------------------------------------------
// The counting allocator
// ---------------------------------------------------------------------------

/// Counts allocations, allocated bytes, and live bytes (with their peak)
/// inside [`Counting::measure`] only: paused while criterion times.
#[global_allocator]
static ALLOC: Counting = Counting::paused();

// ---------------------------------------------------------------------------
// The objects
// ---------------------------------------------------------------------------

/// What every variant does with an object, so that the work compared is
/// equal: make one, write a few bytes into it, reset it.
pub trait Obj: Send + Sync + Sized + 'static {
    /// A new object, as each pool's constructor makes it.
    fn create() -> Self;
    /// The reset pool-core runs on release (`Reset::reset`).
    fn clean(&mut self);
    /// The work done while the object is held. `black_box` makes the
    /// writes observable.
    fn write(&mut self, i: u64);
}

/// The small object: two words and a `Vec` with 64 bytes of capacity (as in
/// `benches/round_trip.rs`).
pub struct Small {
    a: u64,
    b: u64,
    v: Vec<u8>,
}

impl Reset for Small {
    #[inline]
    fn reset(&mut self) {
        self.a = 0;
        self.b = 0;
        self.v.clear();
    }
}

impl Obj for Small {
    fn create() -> Self {
        Small {
            a: 0,
            b: 0,
            v: Vec::with_capacity(64),
        }
    }

    #[inline(always)]
    fn clean(&mut self) {
        Reset::reset(self);
    }

    #[inline(always)]
    fn write(&mut self, i: u64) {
        self.a = i;
        self.b = i ^ 0x5a5a;
        self.v.extend_from_slice(&i.to_le_bytes());
        black_box(&*self);
    }
}

/// Seed 000's `Person{Name string; Age int32; Remark [2048]byte}`, with the
/// JSON names Go's `encoding/json` uses. The derive resets `name` (cleared,
/// buffer kept), `age` (0) and every byte of `remark` (0).
#[derive(Poolable, Deserialize)]
#[pool(new = Person::new)]
#[serde(rename_all = "PascalCase")]
pub struct Person {
    name: String,
    age: i32,
    #[serde(deserialize_with = "array")]
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
}

/// `sharded_slab::Pool` needs `Default`; arrays this long have none.
impl Default for Person {
    fn default() -> Self {
        Person::new()
    }
}

impl Obj for Person {
    fn create() -> Self {
        Person::new()
    }

    #[inline(always)]
    fn clean(&mut self) {
        Reset::reset(self);
    }

    #[inline(always)]
    fn write(&mut self, i: u64) {
        self.name.push_str("Ada");
        self.age = i as i32;
        self.remark[..8].copy_from_slice(&i.to_le_bytes());
        black_box(&*self);
    }
}

/// A `Person` as the pools that move objects by value hold it.
impl Obj for Box<Person> {
    fn create() -> Self {
        Box::new(Person::new())
    }

    #[inline(always)]
    fn clean(&mut self) {
        Reset::reset(&mut **self);
    }

    #[inline(always)]
    fn write(&mut self, i: u64) {
        (**self).write(i);
    }
}

/// Seed 001's `Student{Name string; Age int32; Remark [1024]byte}`.
#[derive(Poolable, Deserialize)]
#[pool(new = Student::new)]
#[serde(rename_all = "PascalCase")]
pub struct Student {
    name: String,
    age: i32,
    #[serde(deserialize_with = "array")]
    remark: [u8; 1024],
}

impl Student {
    fn new() -> Self {
        Student {
            name: String::new(),
            age: 0,
            remark: [0; 1024],
        }
    }
}

// ---------------------------------------------------------------------------
// The peers' traits, each implemented with the same `Obj` methods
// ---------------------------------------------------------------------------

/// `opool`'s allocator: makes objects with `Obj::create`, resets them (on
/// `get`, where opool resets) with `Obj::clean`.
#[derive(Clone, Copy, Debug)]
pub struct Alloc;

impl<T: Obj> opool::PoolAllocator<T> for Alloc {
    #[inline]
    fn allocate(&self) -> T {
        T::create()
    }

    #[inline]
    fn reset(&self, obj: &mut T) {
        obj.clean();
    }
}

impl sharded_slab::Clear for Small {
    #[inline]
    fn clear(&mut self) {
        Obj::clean(self);
    }
}

impl sharded_slab::Clear for Person {
    #[inline]
    fn clear(&mut self) {
        Obj::clean(self);
    }
}

impl Default for Small {
    fn default() -> Self {
        Small::create()
    }
}

/// Implements the traits of the peers that hold objects by value:
/// `lifeguard::Recycleable` and poolshark's `Poolable`.
macro_rules! by_value_peer_traits {
    ($t:ty, capacity: $capacity:expr) => {
        impl lifeguard::Recycleable for $t {
            fn new() -> Self {
                <$t as Obj>::create()
            }

            #[inline]
            fn reset(&mut self) {
                Obj::clean(self);
            }
        }

        impl poolshark::Poolable for $t {
            fn empty() -> Self {
                <$t as Obj>::create()
            }

            #[inline]
            fn reset(&mut self) {
                Obj::clean(self);
            }

            /// poolshark drops objects whose capacity is 0 or above the
            /// pool's element bound (1024 by default).
            #[inline]
            fn capacity(&self) -> usize {
                let capacity: fn(&$t) -> usize = $capacity;
                capacity(self)
            }
        }
    };
}

by_value_peer_traits!(Small, capacity: |s| s.v.capacity());
by_value_peer_traits!(Box<Person>, capacity: |_| 1);

// `location_id!()` makes an id unique to the place it is written, so each
// impl is written out here rather than in the macro above, where every
// expansion would share one place.
//
// SAFETY: the discriminant is a location id unique to this impl, so
// poolshark's thread-local pools hold only `Small`s under it, and `reset`
// puts each back in the state `empty` makes.
unsafe impl poolshark::IsoPoolable for Small {
    const DISCRIMINANT: Option<poolshark::Discriminant> =
        poolshark::Discriminant::new(poolshark::location_id!());
}

// SAFETY: as for `Small`: an id unique to this impl, so only `Box<Person>`s.
unsafe impl poolshark::IsoPoolable for Box<Person> {
    const DISCRIMINANT: Option<poolshark::Discriminant> =
        poolshark::Discriminant::new(poolshark::location_id!());
}

/// The per-thread and `static` state of the variants that need it, for one
/// object type.
pub trait Statics: Obj + Reset + sharded_slab::Clear + Default {
    /// How the pools that move objects by value hold this type: the type
    /// itself when small, a `Box` when large.
    type ByValue: Obj + lifeguard::Recycleable + poolshark::IsoPoolable;

    /// pool-core.
    fn core() -> Pooled<Self>;
    /// pool-core, a second static pool with the same configuration, kept
    /// cold for the memory pass.
    fn core_cold() -> Pooled<Self>;
    /// The hand-written free list.
    fn with_free_list<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> R;
    /// This thread's `lifeguard` pool.
    fn with_lifeguard<R>(f: impl FnOnce(&lifeguard::Pool<Self::ByValue>) -> R) -> R;
    /// This thread's `opool::LocalPool`.
    fn with_opool_local<R>(f: impl FnOnce(&opool::LocalPool<Alloc, Self::ByValue>) -> R) -> R;
}

/// Idle objects each per-thread peer pool keeps: pool-core's
/// `DEFAULT_THREAD_CAPACITY`.
const THREAD_CAPACITY: usize = 32;
/// Idle objects each shared peer pool keeps (where it has a bound):
/// pool-core's `DEFAULT_CAPACITY`.
const CAPACITY: usize = 1024;

fn lifeguard_pool<T: Obj + lifeguard::Recycleable>() -> lifeguard::Pool<T> {
    use lifeguard::settings::{MaxSize, StartingSize, Supplier};
    lifeguard::pool()
        .with(StartingSize(THREAD_CAPACITY))
        .with(MaxSize(CAPACITY))
        .with(Supplier(T::create))
        .build()
}

pool! {
    static SMALL: Pool<Small> = Pool::new(Small::create).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
    static SMALL_COLD: Pool<Small> = Pool::new(Small::create).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
    static PERSON_COLD: Pool<Person> = Pool::new(Person::new).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
}

thread_local! {
    #[allow(clippy::vec_box, reason = "boxed like pool-core's objects: a pop or push moves one pointer")]
    static SMALL_FREE: RefCell<Vec<Box<Small>>> = const { RefCell::new(Vec::new()) };
    #[allow(clippy::vec_box, reason = "boxed like pool-core's objects")]
    static PERSON_FREE: RefCell<Vec<Box<Person>>> = const { RefCell::new(Vec::new()) };
    static SMALL_LIFEGUARD: lifeguard::Pool<Small> = lifeguard_pool();
    static PERSON_LIFEGUARD: lifeguard::Pool<Box<Person>> = lifeguard_pool();
    static SMALL_OPOOL: opool::LocalPool<Alloc, Small> = opool::LocalPool::new(THREAD_CAPACITY, Alloc);
    static PERSON_OPOOL: opool::LocalPool<Alloc, Box<Person>> = opool::LocalPool::new(THREAD_CAPACITY, Alloc);
}

impl Statics for Small {
    type ByValue = Small;

    #[inline(always)]
    fn core() -> Pooled<Self> {
        SMALL.acquire()
    }

    fn core_cold() -> Pooled<Self> {
        SMALL_COLD.acquire()
    }

    #[inline(always)]
    fn with_free_list<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> R {
        SMALL_FREE.with_borrow_mut(f)
    }

    #[inline(always)]
    fn with_lifeguard<R>(f: impl FnOnce(&lifeguard::Pool<Small>) -> R) -> R {
        SMALL_LIFEGUARD.with(f)
    }

    #[inline(always)]
    fn with_opool_local<R>(f: impl FnOnce(&opool::LocalPool<Alloc, Small>) -> R) -> R {
        SMALL_OPOOL.with(f)
    }
}

impl Statics for Person {
    type ByValue = Box<Person>;

    #[inline(always)]
    fn core() -> Pooled<Self> {
        Person::acquire()
    }

    fn core_cold() -> Pooled<Self> {
        PERSON_COLD.acquire()
    }

    #[inline(always)]
    fn with_free_list<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> R {
        PERSON_FREE.with_borrow_mut(f)
    }

    #[inline(always)]
    fn with_lifeguard<R>(f: impl FnOnce(&lifeguard::Pool<Box<Person>>) -> R) -> R {
        PERSON_LIFEGUARD.with(f)
    }

    #[inline(always)]
    fn with_opool_local<R>(f: impl FnOnce(&opool::LocalPool<Alloc, Box<Person>>) -> R) -> R {
        PERSON_OPOOL.with(f)
    }
}

/// The peer pools that are values shared between threads, for one object
/// type.
struct Shared<T: Statics> {
    object_pool: object_pool::Pool<T::ByValue>,
    opool: opool::Pool<Alloc, T::ByValue>,
    sharded_slab: sharded_slab::Pool<T>,
    regex_automata: regex_automata::util::pool::Pool<T, fn() -> T>,
    poolshark: poolshark::global::Pool<T::ByValue>,
    lockfree: lockfree_object_pool::LinearObjectPool<T>,
}

impl<T: Statics> Shared<T> {
    fn new() -> Self {
        Shared {
            object_pool: object_pool::Pool::new(0, T::ByValue::create),
            opool: opool::Pool::new(CAPACITY, Alloc),
            sharded_slab: sharded_slab::Pool::new(),
            regex_automata: regex_automata::util::pool::Pool::new(T::create as fn() -> T),
            poolshark: poolshark::global::Pool::new(CAPACITY, CAPACITY),
            lockfree: lockfree_object_pool::LinearObjectPool::new(T::create, T::clean),
        }
    }
}

// ---------------------------------------------------------------------------
// Workloads 1 and 2: the round trips
// ---------------------------------------------------------------------------

/// Something done with each variant's round trip: time it on one thread, on
/// two, or count its allocations.
trait RoundTrips {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync);
}

/// Hands each variant's round trip (acquire → write → release, with the
/// same reset) to `v`. Closures, not function pointers, so that each is
/// inlined into the timed loop.
fn round_trips<T: Statics>(shared: &Shared<T>, v: &mut impl RoundTrips) {
    v.variant("pool", |i| {
        let mut s = T::core();
        s.write(i);
    });
    v.variant("box", |i| {
        let mut s = Box::new(T::create());
        s.write(i);
    });
    v.variant("thread_local", |i| {
        let mut s = T::with_free_list(Vec::pop).unwrap_or_else(|| Box::new(T::create()));
        s.write(i);
        s.clean();
        T::with_free_list(|free| free.push(s));
    });
    let object_pool = &shared.object_pool;
    v.variant("object-pool", move |i| {
        let mut s = object_pool.pull(T::ByValue::create);
        s.write(i);
        s.clean(); // object-pool returns objects as they are
    });
    v.variant("lifeguard", |i| {
        T::with_lifeguard(|pool| {
            let mut s = pool.new();
            s.write(i);
        });
    });
    let opool = &shared.opool;
    v.variant("opool", move |i| {
        let mut s = opool.get();
        s.write(i);
    });
    v.variant("opool_local", |i| {
        T::with_opool_local(|pool| {
            let mut s = pool.get();
            s.write(i);
        });
    });
    let sharded_slab = &shared.sharded_slab;
    v.variant("sharded-slab", move |i| {
        let key = sharded_slab
            .create_with(|s| s.write(i))
            .expect("sharded-slab: shard full");
        sharded_slab.clear(key);
    });
    let regex_automata = &shared.regex_automata;
    v.variant("regex-automata", move |i| {
        let mut s = regex_automata.get();
        s.write(i);
        s.clean(); // regex-automata returns objects as they are
    });
    v.variant("poolshark_local", |i| {
        let mut s = poolshark::local::LPooled::<T::ByValue>::take();
        s.write(i);
    });
    let poolshark = &shared.poolshark;
    v.variant("poolshark", move |i| {
        let mut s = poolshark.take();
        s.write(i);
    });
    let lockfree = &shared.lockfree;
    v.variant("lockfree-object-pool", move |i| {
        let mut s = lockfree.pull();
        s.write(i);
    });
}

/// Times each round trip on one thread.
struct OneThread<'g, 'c>(&'g mut BenchmarkGroup<'c, WallTime>);

impl RoundTrips for OneThread<'_, '_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        self.0.bench_function(name, |b| {
            let mut i = 0u64;
            b.iter(|| {
                i = i.wrapping_add(1);
                rt(i);
            });
        });
    }
}

/// Times each round trip on two threads at once.
struct TwoThreads<'g, 'c>(&'g mut BenchmarkGroup<'c, WallTime>);

impl RoundTrips for TwoThreads<'_, '_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        self.0.bench_function(name, |b| {
            b.iter_custom(|iters| two_threads(iters, rt));
        });
    }
}

/// Two fresh threads each doing `iters` round trips, started together after
/// a warm-up; returns the slower thread's wall time.
fn two_threads(iters: u64, rt: impl Fn(u64) + Copy + Send + Sync) -> Duration {
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

/// Round trips counted on one thread, after a warm-up.
const ONE_THREAD_COUNT: u64 = 100_000;

/// Counts each round trip's allocations on this thread.
struct CountOne<'a> {
    group: &'a str,
    rows: &'a mut Vec<Row>,
}

impl RoundTrips for CountOne<'_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        for i in 0..1000 {
            rt(i);
        }
        let (counted, ()) = ALLOC.measure(|| {
            for i in 0..ONE_THREAD_COUNT {
                rt(i);
            }
        });
        self.rows
            .push(Row::new(self.group, name, counted, ONE_THREAD_COUNT));
    }
}

// ---------------------------------------------------------------------------
// Workload 3: cross-thread return
// ---------------------------------------------------------------------------

/// Objects per batch handed from the producer to the consumer.
const BATCH: usize = 64;
/// Batches in flight in the channel (plus one being filled and one being
/// drained): at most `(DEPTH + 2) * BATCH` objects out of the pool.
const DEPTH: usize = 4;
/// Objects run through each sample's fresh pool before the clock starts.
const WARM: u64 = 4096;
/// The memory pass: heap held after this many objects...
const MEMORY_N1: u64 = 50_000;
/// ... and after this many.
const MEMORY_N2: u64 = 200_000;

/// How one run of the handoff went.
#[derive(Clone, Copy, Default)]
struct Handoff {
    /// From the producer's first timed acquire to the consumer's last
    /// release.
    elapsed: Duration,
    /// Live heap bytes (`Counting::live`) after `checkpoint` objects were
    /// released, and after all of them.
    live_at_checkpoint: i64,
    live_at_end: i64,
}

/// The producer acquires `warm + iters` objects in batches and writes into
/// each; the consumer releases them. Both threads are fresh. The clock runs
/// over the last `iters` only.
fn handoff<G: Send>(
    warm: u64,
    iters: u64,
    checkpoint: u64,
    acquire: impl Fn(u64) -> G + Sync,
    release: impl Fn(G) + Sync,
) -> Handoff {
    let (full_tx, full_rx) = sync_channel::<Vec<G>>(DEPTH);
    let (empty_tx, empty_rx) = sync_channel::<Vec<G>>(DEPTH + 2);
    for _ in 0..DEPTH + 2 {
        empty_tx
            .send(Vec::with_capacity(BATCH))
            .expect("receiver alive");
    }
    let barrier = Barrier::new(2);
    let (acquire, release, barrier) = (&acquire, &release, &barrier);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            let produce = |n: u64| {
                let mut i = 0;
                while i < n {
                    let mut batch = recv(&empty_rx).expect("consumer alive");
                    let end = (i + BATCH as u64).min(n);
                    for j in i..end {
                        batch.push(acquire(j));
                    }
                    assert!(send(&full_tx, batch), "consumer gone");
                    i = end;
                }
            };
            produce(warm);
            barrier.wait();
            let start = Instant::now();
            produce(iters);
            start
        });
        let consumer = scope.spawn(move || {
            let drain = |n: u64, checkpoint: u64| {
                let mut released = 0;
                let mut at_checkpoint = None;
                while released < n {
                    let mut batch = recv(&full_rx).expect("producer alive");
                    released += batch.len() as u64;
                    batch.drain(..).for_each(release);
                    if released >= checkpoint && at_checkpoint.is_none() {
                        at_checkpoint = Some(ALLOC.live());
                    }
                    // The producer may be gone after the last batch.
                    send(&empty_tx, batch);
                }
                at_checkpoint.unwrap_or_default()
            };
            drain(warm, u64::MAX);
            barrier.wait();
            let live_at_checkpoint = drain(iters, checkpoint);
            (Instant::now(), live_at_checkpoint)
        });
        let start = producer.join().expect("producer panicked");
        let (end, live_at_checkpoint) = consumer.join().expect("consumer panicked");
        Handoff {
            elapsed: end.saturating_duration_since(start),
            live_at_checkpoint,
            live_at_end: ALLOC.live(),
        }
    })
}

/// Tries before a handoff blocks. Blocking parks the thread on a futex and
/// the other thread's next send or receive must wake it (a system call and a
/// reschedule, microseconds): when one side waits for every batch, that
/// cost, not the pools', is what a run measures, and whether it happens
/// flips from sample to sample. So a handoff first tries [`SPINS`] times
/// with a spin hint, then [`YIELDS`] times yielding the core (which lets the
/// other thread run if the two share one), and only then blocks.
const SPINS: u32 = 256;
/// See [`SPINS`].
const YIELDS: u32 = 256;

/// Between two tries of a handoff.
fn pause(attempt: u32) {
    if attempt < SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// `rx.recv()`, spinning and yielding first.
fn recv<T>(rx: &Receiver<T>) -> Option<T> {
    for attempt in 0..SPINS + YIELDS {
        match rx.try_recv() {
            Ok(value) => return Some(value),
            Err(TryRecvError::Empty) => pause(attempt),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
    rx.recv().ok()
}

/// `tx.send(value)`, spinning and yielding first while the channel is full.
/// `false` if the receiver is gone.
fn send<T>(tx: &SyncSender<T>, mut value: T) -> bool {
    for attempt in 0..SPINS + YIELDS {
        match tx.try_send(value) {
            Ok(()) => return true,
            Err(TrySendError::Full(back)) => {
                value = back;
                pause(attempt);
            }
            Err(TrySendError::Disconnected(_)) => return false,
        }
    }
    tx.send(value).is_ok()
}

/// Parameters of one handoff run.
#[derive(Clone, Copy)]
struct Run {
    warm: u64,
    iters: u64,
    checkpoint: u64,
    /// The memory pass: pool-core uses its cold static pool.
    cold: bool,
}

/// Something done with each variant's cross-thread run.
trait Handoffs {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff);
}

/// Hands each variant's cross-thread run to `v`: a fresh pool, then
/// [`handoff`] with the peer's acquire and release. Variants that cannot
/// return an object on another thread are listed in [`CROSS_NOT_APPLICABLE`].
fn handoffs<T: Statics>(v: &mut impl Handoffs) {
    v.variant("pool", |run| {
        let acquire = if run.cold { T::core_cold } else { T::core };
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = acquire();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("box", |run| {
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = Box::new(T::create());
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("thread_local", |run| {
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = T::with_free_list(Vec::pop).unwrap_or_else(|| Box::new(T::create()));
                s.write(i);
                s
            },
            |mut s| {
                s.clean();
                T::with_free_list(|free| free.push(s));
            },
        )
    });
    v.variant("object-pool", |run| {
        let pool = object_pool::Pool::<T::ByValue>::new(0, T::ByValue::create);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = pool.pull(T::ByValue::create);
                s.write(i);
                s
            },
            |mut s| s.clean(),
        )
    });
    v.variant("opool", |run| {
        let pool = opool::Pool::<Alloc, T::ByValue>::new(CAPACITY, Alloc);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = pool.get();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("sharded-slab", |run| {
        let pool = sharded_slab::Pool::<T>::new();
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                pool.create_with(|s| s.write(i))
                    .expect("sharded-slab: shard full")
            },
            |key| {
                pool.clear(key);
            },
        )
    });
    v.variant("regex-automata", |run| {
        let pool = regex_automata::util::pool::Pool::<T, fn() -> T>::new(T::create as fn() -> T);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = pool.get();
                s.write(i);
                s
            },
            |mut s| s.clean(),
        )
    });
    v.variant("poolshark", |run| {
        let pool = poolshark::global::Pool::<T::ByValue>::new(CAPACITY, CAPACITY);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = pool.take();
                s.write(i);
                s
            },
            drop,
        )
    });
    v.variant("lockfree-object-pool", |run| {
        let pool = lockfree_object_pool::LinearObjectPool::<T>::new(T::create, T::clean);
        handoff(
            run.warm,
            run.iters,
            run.checkpoint,
            |i| {
                let mut s = pool.pull();
                s.write(i);
                s
            },
            drop,
        )
    });
}

/// Variants with no cross-thread run, and why.
const CROSS_NOT_APPLICABLE: [(&str, &str); 3] = [
    (
        "lifeguard",
        "not Send: the pool is an Rc<RefCell<..>> and a guard borrows it",
    ),
    (
        "opool_local",
        "not Send: a LocalPool's guard cannot leave its thread",
    ),
    (
        "poolshark_local",
        "returns objects to the dropping thread's pool, so the producer never reuses; the crate points to its global pool (`poolshark`) for this",
    ),
];

/// Times each cross-thread run.
struct CrossTimed<'g, 'c>(&'g mut BenchmarkGroup<'c, WallTime>);

impl Handoffs for CrossTimed<'_, '_> {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff) {
        self.0.bench_function(name, |b| {
            b.iter_custom(|iters| {
                run(Run {
                    warm: WARM,
                    iters,
                    checkpoint: u64::MAX,
                    cold: false,
                })
                .elapsed
            });
        });
    }
}

/// Counts each cross-thread run's allocations and memory, on a fresh pool.
struct CrossCounted<'a> {
    group: &'a str,
    rows: &'a mut Vec<Row>,
}

impl Handoffs for CrossCounted<'_> {
    fn variant(&mut self, name: &'static str, run: impl Fn(Run) -> Handoff) {
        let start = ALLOC.live();
        let (counted, handoff) = ALLOC.measure(|| {
            run(Run {
                warm: 0,
                iters: MEMORY_N2,
                checkpoint: MEMORY_N1,
                cold: true,
            })
        });
        let mut row = Row::new(self.group, name, counted, MEMORY_N2);
        row.memory = Some(Memory {
            at_n1: handoff.live_at_checkpoint - start,
            at_n2: handoff.live_at_end - start,
            peak: counted.peak,
        });
        self.rows.push(row);
    }
}

// ---------------------------------------------------------------------------
// Workload 4: JSON decode
// ---------------------------------------------------------------------------

/// What Go's `json.Marshal` makes of seed 000's `Person{Name: "萌哦科技",
/// Age: 25}` (a `[2048]byte` encodes as an array of numbers).
fn body_000() -> Vec<u8> {
    go_json("萌哦科技", 25, 2048)
}

/// Seed 001's `Student{Name: "lxy", Age: 18}`, `Remark [1024]byte`.
fn body_001() -> Vec<u8> {
    go_json("lxy", 18, 1024)
}

fn go_json(name: &str, age: i32, remark: usize) -> Vec<u8> {
    let zeros = vec!["0"; remark].join(",");
    format!(r#"{{"Name":"{name}","Age":{age},"Remark":[{zeros}]}}"#).into_bytes()
}

/// Deserializes a JSON array of numbers into `[u8; N]` (serde derives
/// arrays up to 32 only). Like Go, a shorter array leaves zeros, a longer
/// one is cut.
fn array<'de, D: Deserializer<'de>, const N: usize>(de: D) -> Result<[u8; N], D::Error> {
    let mut bytes = [0; N];
    BytesInPlace(&mut bytes).deserialize(de)?;
    Ok(bytes)
}

/// Decodes a JSON array of numbers into a byte slice in place.
struct BytesInPlace<'a>(&'a mut [u8]);

impl<'de> DeserializeSeed<'de> for BytesInPlace<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BytesInPlace<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of at most {} bytes", self.0.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut filled = 0;
        for slot in self.0.iter_mut() {
            match seq.next_element()? {
                Some(byte) => *slot = byte,
                None => break,
            }
            filled += 1;
        }
        self.0[filled..].fill(0);
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// Decodes into `T` in place with `T::deserialize_in_place`.
struct InPlace<'a, T>(&'a mut T);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for InPlace<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        T::deserialize_in_place(de, self.0)
    }
}

/// A HAND-WRITTEN field-by-field `deserialize_in_place` for `Person` and
/// `Student`: what serde_derive generates when its `deserialize_in_place`
/// feature is on. That feature is off in this workspace (`cargo tree -e
/// features -i serde_derive` shows only "default"), so the derived
/// `Deserialize::deserialize_in_place` is serde's default,
/// `*place = Deserialize::deserialize(de)?`, which builds a new `String`
/// and drops the old one (variant `pooled_derive`). This one decodes `Name`
/// into the existing `String` (serde's `String::deserialize_in_place`:
/// clear, then push, so the buffer is kept), `Age` by value and `Remark`
/// into the existing array (variant `pooled`).
///
/// Like the derive: unknown keys are skipped, a missing or repeated field
/// is an error.
fn fields_in_place<'de, D: Deserializer<'de>>(
    de: D,
    name: &mut String,
    age: &mut i32,
    remark: &mut [u8],
) -> Result<(), D::Error> {
    /// The keys, decoded from borrowed or owned strings without allocating.
    enum Key {
        Name,
        Age,
        Remark,
        Other,
    }

    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl Visitor<'_> for KeyVisitor {
                type Value = Key;

                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a field name")
                }

                fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                    Ok(match key {
                        "Name" => Key::Name,
                        "Age" => Key::Age,
                        "Remark" => Key::Remark,
                        _ => Key::Other,
                    })
                }
            }
            de.deserialize_identifier(KeyVisitor)
        }
    }

    struct Fields<'a> {
        name: &'a mut String,
        age: &'a mut i32,
        remark: &'a mut [u8],
    }

    impl<'de> Visitor<'de> for Fields<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object with Name, Age and Remark")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = [false; 3];
            let mut first = |index: usize, field: &'static str| {
                if std::mem::replace(&mut seen[index], true) {
                    Err(de::Error::duplicate_field(field))
                } else {
                    Ok(())
                }
            };
            while let Some(key) = map.next_key::<Key>()? {
                match key {
                    Key::Name => {
                        first(0, "Name")?;
                        map.next_value_seed(InPlace(&mut *self.name))?;
                    }
                    Key::Age => {
                        first(1, "Age")?;
                        *self.age = map.next_value()?;
                    }
                    Key::Remark => {
                        first(2, "Remark")?;
                        map.next_value_seed(BytesInPlace(&mut *self.remark))?;
                    }
                    Key::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            for (seen, field) in seen.iter().zip(FIELDS) {
                if !seen {
                    return Err(de::Error::missing_field(field));
                }
            }
            Ok(())
        }
    }

    const FIELDS: &[&str] = &["Name", "Age", "Remark"];
    de.deserialize_struct("Person", FIELDS, Fields { name, age, remark })
}

/// The JSON decode variants, for one body and type.
trait Decodes {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8]));
}

macro_rules! decodes {
    ($t:ty, $v:expr) => {{
        let v = $v;
        v.variant("fresh", |body| {
            let value: $t = serde_json::from_slice(body).expect("valid body");
            black_box(&value);
        });
        v.variant("fresh_boxed", |body| {
            let value: Box<$t> = Box::new(serde_json::from_slice(body).expect("valid body"));
            black_box(&value);
        });
        v.variant("pooled_derive", |body| {
            let mut value = <$t>::acquire();
            let mut de = serde_json::Deserializer::from_slice(body);
            Deserialize::deserialize_in_place(&mut de, &mut *value).expect("valid body");
            de.end().expect("nothing after the body");
            black_box(&*value);
        });
        v.variant("pooled", |body| {
            let mut value = <$t>::acquire();
            let value = &mut *value;
            let mut de = serde_json::Deserializer::from_slice(body);
            fields_in_place(&mut de, &mut value.name, &mut value.age, &mut value.remark)
                .expect("valid body");
            de.end().expect("nothing after the body");
            black_box(&*value);
        });
    }};
}

struct DecodeTimed<'g, 'c, 'b> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    seed: &'static str,
    body: &'b [u8],
}

impl Decodes for DecodeTimed<'_, '_, '_> {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8])) {
        let body = self.body;
        self.group
            .bench_function(format!("{}/{name}", self.seed), |b| {
                b.iter(|| decode(black_box(body)));
            });
    }
}

/// Decodes counted, after a warm-up.
const JSON_COUNT: u64 = 5_000;

struct DecodeCounted<'a, 'b> {
    group: &'a str,
    seed: &'static str,
    body: &'b [u8],
    rows: &'a mut Vec<Row>,
}

impl Decodes for DecodeCounted<'_, '_> {
    fn variant(&mut self, name: &'static str, decode: impl Fn(&[u8])) {
        for _ in 0..100 {
            decode(self.body);
        }
        let (counted, ()) = ALLOC.measure(|| {
            for _ in 0..JSON_COUNT {
                decode(black_box(self.body));
            }
        });
        let name = format!("{}/{name}", self.seed);
        self.rows
            .push(Row::new(self.group, &name, counted, JSON_COUNT));
    }
}

// ---------------------------------------------------------------------------
// The run and the report
// ---------------------------------------------------------------------------

/// One variant's counted figures.
struct Row {
    group: String,
    name: String,
    bytes_per_op: f64,
    allocs_per_op: f64,
    memory: Option<Memory>,
}

/// Heap held in the cross-thread memory pass, net of what was live before.
#[derive(Clone, Copy)]
struct Memory {
    at_n1: i64,
    at_n2: i64,
    peak: i64,
}

impl Row {
    fn new(group: &str, name: &str, counted: Usage, ops: u64) -> Self {
        Row {
            group: group.to_owned(),
            name: name.to_owned(),
            bytes_per_op: counted.bytes as f64 / ops as f64,
            allocs_per_op: counted.allocs as f64 / ops as f64,
            memory: None,
        }
    }
}

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
    round_trips(shared, &mut OneThread(&mut group));
    group.finish();

    let mut group = c.benchmark_group(format!("2_threads_{object}"));
    configure(&mut group);
    round_trips(shared, &mut TwoThreads(&mut group));
    group.finish();

    let mut group = c.benchmark_group(format!("cross_thread_{object}"));
    configure(&mut group);
    handoffs::<T>(&mut CrossTimed(&mut group));
    group.finish();
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
    report(&rows);
}

/// The untimed passes for one object type: allocations of the one-thread
/// round trips, allocations and memory of the cross-thread runs.
fn count_object<T: Statics>(
    shared: &Shared<T>,
    object: &str,
    wanted: &impl Fn(&str) -> bool,
    rows: &mut Vec<Row>,
) {
    let group = format!("1_thread_{object}");
    if wanted(&group) {
        round_trips(
            shared,
            &mut CountOne {
                group: &group,
                rows,
            },
        );
    }
    let group = format!("cross_thread_{object}");
    if wanted(&group) {
        handoffs::<T>(&mut CrossCounted {
            group: &group,
            rows,
        });
    }
}

/// `target/criterion/<group>/<id>/new/<file>`, parsed.
fn criterion_json(group: &str, id: &str, file: &str) -> Option<serde_json::Value> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        std::path::PathBuf::from,
    );
    let path = target
        .join("criterion")
        .join(group)
        .join(id.replace('/', "_"))
        .join("new")
        .join(file);
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Criterion's headline estimate (ns) for `group/id` from this or an
/// earlier run: the slope of its linear fit, or the mean where there is no
/// slope.
fn estimate_ns(group: &str, id: &str) -> Option<f64> {
    let json = criterion_json(group, id, "estimates.json")?;
    let slope = &json["slope"]["point_estimate"];
    slope
        .as_f64()
        .or_else(|| json["mean"]["point_estimate"].as_f64())
}

/// The fastest of criterion's samples (ns per iteration) for `group/id`.
/// On a machine shared with other work a sample that was preempted is
/// slower, never faster, so the best sample is the figure least disturbed
/// by the neighbours; it is printed next to the estimate for the workloads
/// with two threads, which suffer most.
fn best_sample_ns(group: &str, id: &str) -> Option<f64> {
    let json = criterion_json(group, id, "sample.json")?;
    let iters = json["iters"].as_array()?;
    let times = json["times"].as_array()?;
    iters
        .iter()
        .zip(times)
        .filter_map(|(i, t)| Some(t.as_f64()? / i.as_f64()?))
        .min_by(f64::total_cmp)
}

const VARIANTS: [&str; 12] = [
    "pool",
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

/// The peer crates (not `pool`, `box` or the hand-written free list).
fn is_peer_crate(name: &str) -> bool {
    !matches!(name, "pool" | "box" | "thread_local")
}

fn counted<'r>(rows: &'r [Row], group: &str, name: &str) -> Option<&'r Row> {
    rows.iter().find(|r| r.group == group && r.name == name)
}

fn fmt_opt(v: Option<f64>, width: usize, precision: usize) -> String {
    v.map_or_else(
        || format!("{:>width$}", "-"),
        |v| format!("{v:>width$.precision$}"),
    )
}

fn report(rows: &[Row]) {
    for object in ["small", "person"] {
        let one = format!("1_thread_{object}");
        let two = format!("2_threads_{object}");
        let pool_ns = estimate_ns(&one, "pool");
        let floor = estimate_ns(&one, "thread_local");
        let fastest_peer = VARIANTS
            .iter()
            .filter(|n| is_peer_crate(n))
            .filter_map(|n| estimate_ns(&one, n).map(|t| (t, *n)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        println!("\n## round trip, {object}: 1 thread and 2 threads\n");
        println!(
            "{:<22} {:>9} {:>8} {:>8} {:>8} {:>9} {:>11} {:>10} {:>9} {:>10}",
            "variant",
            "1thr ns",
            "/pool",
            "/tl",
            "B/op",
            "allocs/op",
            "2thr ns/thr",
            "agg Mop/s",
            "2thr/1thr",
            "best-smpl"
        );
        for name in VARIANTS {
            let t1 = estimate_ns(&one, name);
            let t2 = estimate_ns(&two, name);
            let row = counted(rows, &one, name);
            let best = best_sample_ns(&one, name).zip(best_sample_ns(&two, name));
            println!(
                "{name:<22} {} {} {} {} {} {} {} {} {}",
                fmt_opt(t1, 9, 2),
                fmt_opt(t1.zip(pool_ns).map(|(t, p)| t / p), 8, 2),
                fmt_opt(t1.zip(floor).map(|(t, f)| t / f), 8, 2),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
                fmt_opt(t2, 11, 2),
                fmt_opt(t2.map(|t| 2.0 * 1e3 / t), 10, 1),
                fmt_opt(t1.zip(t2).map(|(a, b)| 2.0 * a / b), 9, 2),
                fmt_opt(best.map(|(a, b)| 2.0 * a / b), 10, 2),
            );
        }
        if let (Some(p), Some(f), Some((peer, peer_name))) = (pool_ns, floor, fastest_peer) {
            println!(
                "pool / thread_local = {:.2}x; fastest peer crate {peer_name} / pool = {:.2}x",
                p / f,
                peer / p
            );
        }

        let cross = format!("cross_thread_{object}");
        let pool_ns = estimate_ns(&cross, "pool");
        println!(
            "\n## cross-thread return, {object} (batches of {BATCH}, channel depth {DEPTH})\n"
        );
        let pool_best = best_sample_ns(&cross, "pool");
        println!(
            "{:<22} {:>9} {:>8} {:>9} {:>8} {:>8} {:>9} {:>12} {:>12} {:>12}",
            "variant",
            "ns/obj",
            "/pool",
            "best-smpl",
            "/pool",
            "B/op",
            "allocs/op",
            format!("heap@{}k", MEMORY_N1 / 1000),
            format!("heap@{}k", MEMORY_N2 / 1000),
            "peak heap"
        );
        for name in VARIANTS {
            if let Some((_, why)) = CROSS_NOT_APPLICABLE.iter().find(|(n, _)| *n == name) {
                println!("{name:<22} n/a: {why}");
                continue;
            }
            let t = estimate_ns(&cross, name);
            let best = best_sample_ns(&cross, name);
            let row = counted(rows, &cross, name);
            let memory = row.and_then(|r| r.memory);
            let kib = |v: i64| format!("{:>9.0} KiB", v as f64 / 1024.0);
            println!(
                "{name:<22} {} {} {} {} {} {} {:>12} {:>12} {:>12}",
                fmt_opt(t, 9, 2),
                fmt_opt(t.zip(pool_ns).map(|(t, p)| t / p), 8, 2),
                fmt_opt(best, 9, 2),
                fmt_opt(best.zip(pool_best).map(|(t, p)| t / p), 8, 2),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.at_n1)),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.at_n2)),
                memory.map_or_else(|| "-".to_owned(), |m| kib(m.peak)),
            );
        }
    }

    println!("\n## JSON decode (seeds 000 and 001)\n");
    println!(
        "{:<28} {:>10} {:>8} {:>9}",
        "variant", "ns/op", "B/op", "allocs/op"
    );
    for seed in ["000_person", "001_student"] {
        for name in ["fresh", "fresh_boxed", "pooled_derive", "pooled"] {
            let id = format!("{seed}/{name}");
            let row = counted(rows, "json_decode", &id);
            println!(
                "{id:<28} {} {} {}",
                fmt_opt(estimate_ns("json_decode", &id), 10, 1),
                fmt_opt(row.map(|r| r.bytes_per_op), 8, 1),
                fmt_opt(row.map(|r| r.allocs_per_op), 9, 3),
            );
        }
    }
}
