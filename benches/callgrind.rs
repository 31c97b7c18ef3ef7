//! A plain binary (no harness) for counting instructions per round trip
//! under callgrind; `scripts/callgrind.sh` drives it.
//!
//! ```text
//! callgrind <variant> [N]
//! ```
//!
//! Runs 1000 warm-up round trips, then `N` (default 1 000 000), then exits.
//! The round trips are the one-thread small-object ones of
//! `benches/round_trip.rs` (`pool`, `box`, `thread_local`) and
//! `benches/peers.rs` (the peer crates; keep the definitions identical),
//! each variant's in its own `#[inline(never)]` function (`rt_pool`,
//! `rt_lockfree_object_pool`, ...) so that callgrind attributes its
//! instructions to one symbol. `none` is the baseline: the same write and
//! reset on an object the loop holds, with no acquire or release. Run
//! without a variant (as `cargo bench` does, passing `--bench`), it does
//! nothing.
//!
//! Variants: `none`, `pool`, `box`, `thread_local`, and the peers
//! `object-pool`, `lifeguard`, `opool`, `opool_local`, `sharded-slab`,
//! `regex-automata`, `poolshark_local`, `poolshark`,
//! `lockfree-object-pool`. Each peer is used as in `benches/peers.rs`: the
//! value pools (`object-pool`, `opool`, `sharded-slab`, `regex-automata`,
//! `poolshark`, `lockfree-object-pool`) are made once in `main` and passed
//! by reference; the per-thread ones (`lifeguard`, `opool_local`) live in a
//! `thread_local!`; each resets the object with `Small::reset`.

use std::cell::RefCell;
use std::hint::black_box;

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

impl Default for Small {
    fn default() -> Self {
        Small::new()
    }
}

// The peers' traits, each with the same constructor and reset.

impl sharded_slab::Clear for Small {
    #[inline]
    fn clear(&mut self) {
        Reset::reset(self);
    }
}

impl lifeguard::Recycleable for Small {
    fn new() -> Self {
        Small::new()
    }

    #[inline]
    fn reset(&mut self) {
        Reset::reset(self);
    }
}

impl poolshark::Poolable for Small {
    fn empty() -> Self {
        Small::new()
    }

    #[inline]
    fn reset(&mut self) {
        Reset::reset(self);
    }

    /// poolshark drops objects whose capacity is 0 or above its bound.
    #[inline]
    fn capacity(&self) -> usize {
        self.v.capacity()
    }
}

// SAFETY: the discriminant is a location id unique to this impl, so
// poolshark's thread-local pools hold only `Small`s under it, and `reset`
// puts each back in the state `empty` makes.
unsafe impl poolshark::IsoPoolable for Small {
    const DISCRIMINANT: Option<poolshark::Discriminant> =
        poolshark::Discriminant::new(poolshark::location_id!());
}

/// `opool`'s allocator: makes and resets `Small`s (opool resets on `get`).
struct Alloc;

impl opool::PoolAllocator<Small> for Alloc {
    #[inline]
    fn allocate(&self) -> Small {
        Small::new()
    }

    #[inline]
    fn reset(&self, obj: &mut Small) {
        Reset::reset(obj);
    }
}

pool! {
    static POOL: Pool<Small> = Pool::new(Small::new).capacity(1024).thread_capacity(32);
}

thread_local! {
    #[allow(clippy::vec_box, reason = "boxed like the pool's objects: a pop or push moves one pointer")]
    static FREE: RefCell<Vec<Box<Small>>> = const { RefCell::new(Vec::new()) };
    static LIFEGUARD: lifeguard::Pool<Small> = {
        use lifeguard::settings::{MaxSize, StartingSize, Supplier};
        lifeguard::pool()
            .with(StartingSize(32))
            .with(MaxSize(1024))
            .with(Supplier(Small::new))
            .build()
    };
    static OPOOL_LOCAL: opool::LocalPool<Alloc, Small> = opool::LocalPool::new(32, Alloc);
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

#[inline(never)]
fn rt_pool(i: u64) {
    let mut s = POOL.acquire();
    write(&mut s, i);
    drop(s);
}

#[inline(never)]
fn rt_box(i: u64) {
    let mut s = Box::new(Small::new());
    write(&mut s, i);
    drop(s);
}

#[inline(never)]
fn rt_thread_local(i: u64) {
    let mut s = FREE
        .with_borrow_mut(Vec::pop)
        .unwrap_or_else(|| Box::new(Small::new()));
    write(&mut s, i);
    s.reset();
    FREE.with_borrow_mut(|free| free.push(s));
}

#[inline(never)]
fn rt_object_pool(pool: &object_pool::Pool<Small>, i: u64) {
    let mut s = pool.pull(Small::new);
    write(&mut s, i);
    s.reset(); // object-pool returns objects as they are
}

#[inline(never)]
fn rt_lifeguard(i: u64) {
    LIFEGUARD.with(|pool| {
        let mut s = pool.new();
        write(&mut s, i);
    });
}

#[inline(never)]
fn rt_opool(pool: &opool::Pool<Alloc, Small>, i: u64) {
    let mut s = pool.get();
    write(&mut s, i);
}

#[inline(never)]
fn rt_opool_local(i: u64) {
    OPOOL_LOCAL.with(|pool| {
        let mut s = pool.get();
        write(&mut s, i);
    });
}

#[inline(never)]
fn rt_sharded_slab(pool: &sharded_slab::Pool<Small>, i: u64) {
    let key = pool
        .create_with(|s| write(s, i))
        .expect("sharded-slab: shard full");
    pool.clear(key);
}

#[inline(never)]
fn rt_regex_automata(pool: &RegexPool, i: u64) {
    let mut s = pool.get();
    write(&mut s, i);
    s.reset(); // regex-automata returns objects as they are
}

#[inline(never)]
fn rt_poolshark_local(i: u64) {
    let mut s = poolshark::local::LPooled::<Small>::take();
    write(&mut s, i);
}

#[inline(never)]
fn rt_poolshark(pool: &poolshark::global::Pool<Small>, i: u64) {
    let mut s = pool.take();
    write(&mut s, i);
}

#[inline(never)]
fn rt_lockfree_object_pool(pool: &lockfree_object_pool::LinearObjectPool<Small>, i: u64) {
    let mut s = pool.pull();
    write(&mut s, i);
}

type RegexPool = regex_automata::util::pool::Pool<Small, fn() -> Small>;

/// The baseline: the same write and reset on an object the caller holds, no
/// acquire or release. Subtracting it leaves the cost of getting and giving
/// back the object (and of the call into the variant's function).
#[inline(never)]
fn rt_none(s: &mut Small, i: u64) {
    write(s, i);
    s.reset();
}

#[inline(never)]
fn run(rt: fn(u64), n: u64) {
    for i in 0..n {
        rt(black_box(i));
    }
}

/// `run` for the peers whose pool is a value, made in `main`.
#[inline(never)]
fn run_on<P>(pool: &P, rt: fn(&P, u64), n: u64) {
    for i in 0..n {
        rt(pool, black_box(i));
    }
}

/// Warms up, then runs `n` round trips on `pool`.
fn warm_and_run_on<P>(pool: P, rt: fn(&P, u64), n: u64) {
    run_on(&pool, rt, 1000);
    run_on(&pool, rt, n);
}

#[inline(never)]
fn run_none(rt: fn(&mut Small, u64), s: &mut Small, n: u64) {
    for i in 0..n {
        rt(s, black_box(i));
    }
}

const VARIANTS: [&str; 13] = [
    "none",
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

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(variant) = args.first() else {
        eprintln!(
            "usage: callgrind <variant> [N]; variants: {}",
            VARIANTS.join(", ")
        );
        return;
    };
    let n = parse_n(args.get(1));
    let rt: fn(u64) = match variant.as_str() {
        "none" => {
            let mut s = Small::new();
            run_none(rt_none, &mut s, 1000);
            run_none(rt_none, &mut s, n);
            return;
        }
        "pool" => rt_pool,
        "box" => rt_box,
        "thread_local" => rt_thread_local,
        "lifeguard" => rt_lifeguard,
        "opool_local" => rt_opool_local,
        "poolshark_local" => rt_poolshark_local,
        "object-pool" => {
            return warm_and_run_on(object_pool::Pool::new(0, Small::new), rt_object_pool, n);
        }
        "opool" => return warm_and_run_on(opool::Pool::new(1024, Alloc), rt_opool, n),
        "sharded-slab" => return warm_and_run_on(sharded_slab::Pool::new(), rt_sharded_slab, n),
        "regex-automata" => {
            let pool = RegexPool::new(Small::new as fn() -> Small);
            return warm_and_run_on(pool, rt_regex_automata, n);
        }
        "poolshark" => {
            let pool = poolshark::global::Pool::new(1024, 1024);
            return warm_and_run_on(pool, rt_poolshark, n);
        }
        "lockfree-object-pool" => {
            let pool = lockfree_object_pool::LinearObjectPool::new(Small::new, Small::reset);
            return warm_and_run_on(pool, rt_lockfree_object_pool, n);
        }
        other => {
            eprintln!(
                "unknown variant {other:?}: expected one of {}",
                VARIANTS.join(", ")
            );
            std::process::exit(2);
        }
    };
    run(rt, 1000);
    run(rt, n);
}

fn parse_n(arg: Option<&String>) -> u64 {
    match arg {
        Some(n) => n.parse().unwrap_or_else(|_| {
            eprintln!("N must be a non-negative integer, got {n:?}");
            std::process::exit(2);
        }),
        None => 1_000_000,
    }
}
