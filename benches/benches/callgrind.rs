//! A plain binary (no harness) for counting instructions per round trip
//! under callgrind; `scripts/callgrind.sh` drives it.
//!
//! ```text
//! callgrind <variant> [N]
//! ```
//!
//! Runs 1000 warm-up round trips, then `N` (default 1 000 000), then exits.
//! The round trips are the one-thread small-object ones of `benches/peers`
//! and `benches/round_trip.rs`, the very same closures
//! (`round_trips` of `benches/shared/variants.rs`, with the peers set up as there),
//! each called from its own `#[inline(never)]` instance of [`round_trip`]
//! so that callgrind attributes its instructions to one symbol
//! (`callgrind::round_trip::<pool_perf::round_trip::round_trips<..>::{closure}>`,
//! in the variants' order). `none` is the baseline: the same write and reset
//! on an object the loop holds, with no acquire or release. Run without a
//! variant (as `cargo bench` does, passing `--bench`), it does nothing.
//!
//! Variants: `none`, `person_clean` and `person_restore` (the derived
//! reset's two cases, see `reset_variant`), `runtime_ref` (`runtime`
//! through a `&Pool<T>`), and those of
//! [`pool_perf::round_trip::VARIANTS`]:
//! `pool`, `runtime`, `box`, `thread_local`, and the peers `object-pool`, `lifeguard`,
//! `opool`, `opool_local`, `sharded-slab`, `regex-automata`,
//! `poolshark_local`, `poolshark`, `lockfree-object-pool`; and `derived` and
//! `generic` (and `generic_i8`, `generic_alternate`), `Small`'s fields in a derived struct and in a generic derived
//! struct (`derive_round_trips`); and `burst_box`, `burst_default`,
//! `burst_sized`, `burst_small`, `burst_huge_box` and `burst_huge`, the
//! bursts of `pool_perf::burst` (one op is one request); and `cross_harness`,
//! `cross_pool`, `cross_pool_on_acquire` and `cross_arrayqueue`, one object
//! handed from one thread to another (see [`cross`]; one op is one object).

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

use pool_perf::burst::{Held, Way, burst};
use pool_perf::round_trip::{RoundTrips, VARIANTS};

include!("shared/variants.rs");
include!("shared/derived.rs");

/// Runs the named variant's round trip, warmed up, `n` times.
struct Pick<'a> {
    variant: &'a str,
    n: u64,
    found: bool,
}

impl RoundTrips for Pick<'_> {
    fn variant(&mut self, name: &'static str, rt: impl Fn(u64) + Copy + Send + Sync) {
        if name == self.variant {
            self.found = true;
            run(rt, 1000);
            run(rt, self.n);
        }
    }
}

#[inline(never)]
fn run(rt: impl Fn(u64) + Copy, n: u64) {
    for i in 0..n {
        round_trip(rt, black_box(i));
    }
}

/// One round trip, in a symbol of its own per variant.
#[inline(never)]
fn round_trip(rt: impl Fn(u64), i: u64) {
    rt(i);
}

/// The baseline: the same write and reset on an object the caller holds, no
/// acquire or release. Subtracting it leaves the cost of getting and giving
/// back the object (and of the call into the variant's function).
#[inline(never)]
fn rt_none(s: &mut Small, i: u64) {
    s.write(i);
    s.clean();
}

#[inline(never)]
fn run_none(s: &mut Small, n: u64) {
    for i in 0..n {
        rt_none(s, black_box(i));
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(variant) = args.first() else {
        eprintln!(
            "usage: callgrind <variant> [N]; variants: none, runtime_ref, {}, derived, generic, generic_i8, generic_alternate",
            VARIANTS.join(", ")
        );
        return;
    };
    let n = parse_n(args.get(1));
    if let Some(rt) = reset_variant(variant) {
        run(rt, 1000);
        run(rt, n);
        return;
    }
    if let Some(way) = burst_way(variant) {
        // N requests, in bursts of the way's size, after one burst of
        // warm-up.
        let mut held = Held::new();
        run_bursts(way, way.requests() as u64, &mut held);
        run_bursts(way, n, &mut held);
        return;
    }
    if variant == "runtime_ref" {
        // The run-time pool's round trip through `&Pool<T>`, as code
        // written against the one pool type reaches it (`runtime` goes
        // through the handle, which skips `Pool::acquire`'s test of the
        // pool's kind).
        let shared = Shared::<Small>::new();
        let pool: &Pool<Small> = &shared.runtime;
        let rt = move |i| {
            let mut s = pool.acquire();
            s.write(i);
        };
        run(rt, 1000);
        run(rt, n);
        return;
    }
    if let Some(handoff) = variant.strip_prefix("cross_") {
        // `n` objects handed from this thread to another after `WARM`
        // (pool_perf::handoff), each run on its own pool or queue.
        let warm = pool_perf::handoff::WARM;
        if !cross(handoff, warm) {
            eprintln!("unknown variant {variant:?}: expected cross_ and one of {CROSS:?}");
            std::process::exit(2);
        }
        cross(handoff, n);
        return;
    }
    if variant == "none" {
        let mut s = Small::create();
        run_none(&mut s, 1000);
        run_none(&mut s, n);
        return;
    }
    let mut pick = Pick {
        variant,
        n,
        found: false,
    };
    round_trips(&Shared::<Small>::new(), &mut pick);
    derive_round_trips(&mut pick);
    if !pick.found {
        eprintln!(
            "unknown variant {variant:?}: expected one of none, runtime_ref, {}, derived, generic, generic_i8, generic_alternate",
            VARIANTS.join(", ")
        );
        std::process::exit(2);
    }
}

/// The cross-thread variants, `cross_<name>`: the handoff of
/// `benches/peers`' workload 3 (small object) with blocking rings
/// (`pool_perf::handoff::handoff_blocking`), so that no spinning is counted.
/// `harness` hands integers (no object, no pool); `pool` and
/// `pool_on_acquire` are pool-core's static pools of the peers bench;
/// `arrayqueue` the hand-written crossbeam `ArrayQueue` pool.
const CROSS: [&str; 4] = ["harness", "pool", "pool_on_acquire", "arrayqueue"];

/// Hands `n` objects across with the named variant; `false` if there is
/// none of that name.
fn cross(name: &str, n: u64) -> bool {
    use pool_perf::handoff::handoff_blocking;
    fn written(mut s: Pooled<Small>, i: u64) -> Pooled<Small> {
        s.write(i);
        s
    }
    match name {
        "harness" => handoff_blocking(n, |i| i, drop),
        "pool" => handoff_blocking(n, |i| written(Small::core(), i), drop),
        "pool_on_acquire" => handoff_blocking(n, |i| written(Small::core_on_acquire(), i), drop),
        "arrayqueue" => {
            static POOL: std::sync::OnceLock<ArrayQueuePool<Small>> = std::sync::OnceLock::new();
            let pool = POOL.get_or_init(ArrayQueuePool::new);
            handoff_blocking(n, |i| pool.acquire(i), |s| pool.release(s));
        }
        _ => return false,
    }
    true
}

/// `burst_<way>`: a burst workload of `pool_perf::burst`.
fn burst_way(variant: &str) -> Option<Way> {
    let name = variant.strip_prefix("burst_")?;
    Way::ALL
        .iter()
        .find(|(known, _)| *known == name)
        .map(|&(_, way)| way)
}

#[inline(never)]
fn run_bursts(way: Way, requests: u64, held: &mut Held) {
    let size = way.requests();
    for _ in 0..(requests / size as u64).max(1) {
        black_box(burst(way, size, held));
    }
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
