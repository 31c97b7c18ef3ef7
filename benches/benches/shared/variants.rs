// Each variant's objects, peer-pool set-up and round trip, written once for
// `benches/peers`, `benches/round_trip.rs` and `benches/callgrind.rs`: the
// objects every variant acquires, writes into and resets ([`Obj`]: the same
// work for every pool), the traits the peer pools need (each with the same
// constructor and reset as pool-core's), the per-thread and `static` state
// of the variants ([`Statics`], [`Shared`]), and each variant's round trip
// acquire → write → release ([`round_trips`]).
//
// Each bench `include!`s this file at its crate root, rather than taking it
// from the `pool_perf` library or a module: a `pool!` static (and the one
// `#[derive(Poolable)]` makes) defined in another crate, or in another module
// and so in another codegen unit, has its release function called instead of
// inlined into the round trip that drops the guard: 97 or 105 instructions
// per pool round trip instead of 87 (`scripts/callgrind.sh`). At the crate
// root, as when each bench was one file, the code is compiled as it was.

use std::cell::RefCell;
use std::hint::black_box;

use pool_core::{Pool, Poolable, Pooled, Reset, pool};
use pool_perf::json::array;
use serde::Deserialize;

/// What every variant does with an object, so that the work compared is
/// equal: make one, write a few bytes into it, reset it.
trait Obj: Send + Sync + Sized + 'static {
    /// A new object, as each pool's constructor makes it.
    fn create() -> Self;
    /// The reset pool-core runs on release (`Reset::reset`).
    fn clean(&mut self);
    /// The work done while the object is held. `black_box` makes the
    /// writes observable.
    fn write(&mut self, i: u64);
}

/// The small object: two words and a `Vec` with 64 bytes of capacity (as in
/// every bench of this package).
struct Small {
    /// Set by [`Obj::write`], zeroed by the reset.
    pub a: u64,
    /// Set by [`Obj::write`], zeroed by the reset.
    pub b: u64,
    /// 64 bytes of capacity; [`Obj::write`] appends 8 bytes, the reset
    /// clears it.
    pub v: Vec<u8>,
}

/// `Small`'s write, the same in every struct with its fields (`Small`,
/// and the derived ones of `derived.rs`), so that every variant does the
/// same work.
macro_rules! small_write {
    () => {
        #[inline(always)]
        fn write(&mut self, i: u64) {
            self.a = i;
            self.b = i ^ 0x5a5a;
            self.v.extend_from_slice(&i.to_le_bytes());
            black_box(&*self);
        }
    };
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

    small_write!();
}

/// Seed 000's `Person{Name string; Age int32; Remark [2048]byte}`, with the
/// JSON names Go's `encoding/json` uses. The derive resets `name` (cleared,
/// buffer kept), `age` (0) and every byte of `remark` (0).
#[derive(Poolable, Deserialize)]
#[pool(new = Person::new)]
#[serde(rename_all = "PascalCase")]
struct Person {
    /// `Name`.
    pub name: String,
    /// `Age`.
    pub age: i32,
    /// `Remark`, a JSON array of numbers.
    #[serde(deserialize_with = "array")]
    pub remark: [u8; 2048],
}

impl Person {
    /// An empty `Person`: no name, age 0, a zeroed remark.
    pub fn new() -> Self {
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

/// The seeds' `Person` with a constructor whose values are not the reset
/// ones (a name, an age), so the derived reset copies them back from the
/// template (issue 13); `remark` stays zeroed, as in `Person`.
#[derive(Poolable)]
#[pool(new = TunedPerson::new)]
struct TunedPerson {
    /// `"anonymous"` when new.
    pub name: String,
    /// `18` when new.
    pub age: i32,
    /// Zeroed when new.
    pub remark: [u8; 2048],
}

impl TunedPerson {
    fn new() -> Self {
        TunedPerson {
            name: String::from("anonymous"),
            age: 18,
            remark: [0; 2048],
        }
    }
}

/// The derived reset's two cases, as round trips through `T::acquire()`
/// with the same write: `person_clean` (`Person`, whose constructor makes
/// what a plain reset makes) and `person_restore` (`TunedPerson`). Not in
/// `VARIANTS`: they compare the derive with itself, not with the peers
/// (`benches/callgrind.rs` and `benches/derived_reset.rs` run them).
pub fn reset_variant(name: &str) -> Option<fn(u64)> {
    fn clean(i: u64) {
        let mut person = Person::acquire();
        person.write(i);
    }
    fn restore(i: u64) {
        let mut person = TunedPerson::acquire();
        person.name.push_str("Ada");
        person.age = i as i32;
        person.remark[..8].copy_from_slice(&i.to_le_bytes());
        black_box(&*person);
    }
    match name {
        "person_clean" => Some(clean),
        "person_restore" => Some(restore),
        _ => None,
    }
}

/// The names [`reset_variant`] knows.
pub const RESET_VARIANTS: [&str; 2] = ["person_clean", "person_restore"];

/// Seed 001's `Student{Name string; Age int32; Remark [1024]byte}`.
#[derive(Poolable, Deserialize)]
#[pool(new = Student::new)]
#[serde(rename_all = "PascalCase")]
struct Student {
    /// `Name`.
    pub name: String,
    /// `Age`.
    pub age: i32,
    /// `Remark`, a JSON array of numbers.
    #[serde(deserialize_with = "array")]
    pub remark: [u8; 1024],
}

impl Student {
    /// An empty `Student`.
    pub fn new() -> Self {
        Student {
            name: String::new(),
            age: 0,
            remark: [0; 1024],
        }
    }
}

impl Default for Student {
    fn default() -> Self {
        Student::new()
    }
}

/// `opool`'s allocator: makes objects with `Obj::create`, resets them (on
/// `get`, where opool resets) with `Obj::clean`.
#[derive(Clone, Copy, Debug)]
struct Alloc;

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

/// Idle objects each per-thread peer pool keeps: pool-core's
/// `DEFAULT_THREAD_CAPACITY`.
const THREAD_CAPACITY: usize = 32;
/// Idle objects each shared peer pool keeps (where it has a bound), and
/// pool-core's run-time pool: 1024, pool-core's `DEFAULT_CAPACITY` until
/// it became a ceiling of 65,536 (2026-12-01). These workloads keep a few
/// hundred idle objects at most, so neither bound is reached; 1024 keeps
/// the peers that allocate their bound up front (opool's queue) as they
/// were measured.
const CAPACITY: usize = 1024;

/// A `lifeguard` pool as every variant uses it: pool-core's capacities.
fn lifeguard_pool<T: Obj + lifeguard::Recycleable>() -> lifeguard::Pool<T> {
    use lifeguard::settings::{MaxSize, StartingSize, Supplier};
    lifeguard::pool()
        .with(StartingSize(THREAD_CAPACITY))
        .with(MaxSize(CAPACITY))
        .with(Supplier(T::create))
        .build()
}

/// The hand-written pool of the cross-thread workloads: one crossbeam
/// `ArrayQueue` of boxes, reset on acquire as opool's, with no thread
/// cache: the least a shared pool can do per object.
struct ArrayQueuePool<T>(crossbeam_queue::ArrayQueue<Box<T>>);

impl<T: Obj> ArrayQueuePool<T> {
    /// An empty pool with room for [`CAPACITY`] idle objects.
    fn new() -> Self {
        ArrayQueuePool(crossbeam_queue::ArrayQueue::new(CAPACITY))
    }

    /// An idle object reset, or a new one, with `i` written into it.
    fn acquire(&self, i: u64) -> Box<T> {
        let mut s = match self.0.pop() {
            Some(mut s) => {
                s.clean();
                s
            }
            None => Box::new(T::create()),
        };
        s.write(i);
        s
    }

    /// Keeps `s`; drops it if the queue is full, as a bounded pool drops
    /// past its bound.
    fn release(&self, s: Box<T>) {
        let _ = self.0.push(s);
    }
}

/// The per-thread and `static` state of the variants that need it, for one
/// object type.
trait Statics: Obj + Reset + sharded_slab::Clear + Default {
    /// How the pools that move objects by value hold this type: the type
    /// itself when small, a `Box` when large.
    type ByValue: Obj + lifeguard::Recycleable + poolshark::IsoPoolable;

    /// pool-core.
    fn core() -> Pooled<Self>;
    /// pool-core, a second static pool with the same configuration, kept
    /// cold for the memory pass.
    fn core_cold() -> Pooled<Self>;
    /// pool-core, a static pool with the same configuration that resets
    /// on acquire (`reset_on_acquire`).
    fn core_on_acquire() -> Pooled<Self>;
    /// The hand-written free list.
    fn with_free_list<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> R;
    /// This thread's `lifeguard` pool.
    fn with_lifeguard<R>(f: impl FnOnce(&lifeguard::Pool<Self::ByValue>) -> R) -> R;
    /// This thread's `opool::LocalPool`.
    fn with_opool_local<R>(f: impl FnOnce(&opool::LocalPool<Alloc, Self::ByValue>) -> R) -> R;
}

pool! {
    static SMALL: Pool<Small> = Pool::new(Small::create).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
    static SMALL_COLD: Pool<Small> = Pool::new(Small::create).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
    static PERSON_COLD: Pool<Person> = Pool::new(Person::new).capacity(CAPACITY).thread_capacity(THREAD_CAPACITY);
    static SMALL_ON_ACQUIRE: Pool<Small> = Pool::new(Small::create)
        .capacity(CAPACITY)
        .thread_capacity(THREAD_CAPACITY)
        .reset_on_acquire();
    // The derived `Person`'s configuration (the defaults) and its derived
    // reset, run on acquire.
    static PERSON_ON_ACQUIRE: Pool<Person> = Pool::new(Person::new).reset_on_acquire();
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
    fn core_on_acquire() -> Pooled<Self> {
        SMALL_ON_ACQUIRE.acquire()
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
    fn core_on_acquire() -> Pooled<Self> {
        PERSON_ON_ACQUIRE.acquire()
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
    /// pool-core, a pool made at run time (`Pool::builder`), with the
    /// static pool's configuration.
    runtime: pool_core::PoolHandle<T>,
    object_pool: object_pool::Pool<T::ByValue>,
    opool: opool::Pool<Alloc, T::ByValue>,
    sharded_slab: sharded_slab::Pool<T>,
    regex_automata: regex_automata::util::pool::Pool<T, fn() -> T>,
    poolshark: poolshark::global::Pool<T::ByValue>,
    lockfree: lockfree_object_pool::LinearObjectPool<T>,
}

impl<T: Statics> Shared<T> {
    /// Each peer pool, new and empty.
    pub fn new() -> Self {
        Shared {
            runtime: Pool::builder(T::create)
                .capacity(CAPACITY)
                .thread_capacity(THREAD_CAPACITY)
                .build(),
            object_pool: object_pool::Pool::new(0, T::ByValue::create),
            opool: opool::Pool::new(CAPACITY, Alloc),
            sharded_slab: sharded_slab::Pool::new(),
            regex_automata: regex_automata::util::pool::Pool::new(T::create as fn() -> T),
            poolshark: poolshark::global::Pool::new(CAPACITY, CAPACITY),
            lockfree: lockfree_object_pool::LinearObjectPool::new(T::create, T::clean),
        }
    }
}

/// Hands each variant's round trip (acquire → write → release, with the
/// same reset) to `v`. Closures, not function pointers, so that each is
/// inlined into the timed loop.
fn round_trips<T: Statics>(shared: &Shared<T>, v: &mut impl pool_perf::round_trip::RoundTrips) {
    v.variant("pool", |i| {
        let mut s = T::core();
        s.write(i);
    });
    let runtime = &shared.runtime;
    v.variant("runtime", move |i| {
        let mut s = runtime.acquire();
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
