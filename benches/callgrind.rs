//! A plain binary (no harness) for counting instructions per round trip
//! under callgrind; `scripts/callgrind.sh` drives it.
//!
//! ```text
//! callgrind <pool|box|thread_local|none> [N]
//! ```
//!
//! Runs 1000 warm-up round trips, then `N` (default 1 000 000), then exits.
//! The round trips are the ones in `benches/round_trip.rs` (keep the two
//! definitions identical), each variant's in its own `#[inline(never)]`
//! function (`rt_pool`, `rt_box`, `rt_thread_local`) so that callgrind
//! attributes its instructions to one symbol. `none` is the baseline: the
//! same write and reset on an object the loop holds, with no acquire or
//! release. Run without a variant (as `cargo bench` does, passing
//! `--bench`), it does nothing.

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

#[inline(never)]
fn run_none(rt: fn(&mut Small, u64), s: &mut Small, n: u64) {
    for i in 0..n {
        rt(s, black_box(i));
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(variant) = args.first() else {
        eprintln!("usage: callgrind <pool|box|thread_local|none> [N]");
        return;
    };
    let rt: fn(u64) = match variant.as_str() {
        "none" => {
            let n = parse_n(args.get(1));
            let mut s = Small::new();
            run_none(rt_none, &mut s, 1000);
            run_none(rt_none, &mut s, n);
            return;
        }
        "pool" => rt_pool,
        "box" => rt_box,
        "thread_local" => rt_thread_local,
        other => {
            eprintln!("unknown variant {other:?}: expected pool, box, thread_local or none");
            std::process::exit(2);
        }
    };
    let n = parse_n(args.get(1));
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
