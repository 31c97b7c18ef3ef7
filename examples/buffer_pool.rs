//! Pooled `String` and `Vec<u8>` buffers for formatting and I/O, what Go's
//! `fmt` does with its internal `sync.Pool` of printers, declared
//! with `pool!` for types the derive cannot take.
//!
//! ```text
//! cargo run --release --example buffer_pool
//! ```
//!
//! Part 1 formats a million log lines with `write!` and writes each to a
//! sink in one `write_all` (so that a real file or socket would see one
//! write per line, not one per formatted piece): into a new buffer per line
//! (`format!`, or a `Vec<u8>` with `write!`), and into a buffer from a pool
//! whose constructor starts it at 256 bytes. Look at allocs/line: one or
//! more without the pool (a growing buffer reallocates), none with it.
//!
//! Part 2 writes one 1 MiB line, then looks at the buffer the next acquire
//! gets. `Vec<u8>`'s own `Reset` only clears, but every pool holds its
//! objects to a bound in bytes, learned from what its releases held (the
//! crate docs' "Untrusted input"): after a million short lines a plain
//! `Pool<Vec<u8>>` shrinks the megabyte buffer to the lines' usual size.
//! Two ways to choose the bound yourself: a newtype with a hand-written
//! `Reset` that shrinks past 64 KiB (still the `pool!` route; a `Reset`
//! that does not report its bytes is not held to the pool's bound), or a
//! derived newtype with `#[pool(max_capacity)]`. Look at the capacity and
//! the heap kept after the huge line, and at the last line: rotation frees
//! what stays idle.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::{self, Write as _};
use std::time::Instant;

use pool_core::{Pool, Poolable, Reset, pool, rotate};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Buffers keep at most this much capacity while pooled (the bounded pools).
const MAX_IDLE: usize = 64 * 1024;

/// A byte buffer whose reset also bounds its capacity: the hand-written
/// route, for a pool declared with `pool!`.
struct Bounded(Vec<u8>);

impl Reset for Bounded {
    fn reset(&mut self) {
        self.0.clear();
        if self.0.capacity() > MAX_IDLE {
            self.0.shrink_to(MAX_IDLE);
        }
    }
}

/// The same, derived: `max_capacity` shrinks the field after its reset.
#[derive(Poolable)]
#[pool(new = Buf::new)]
struct Buf(#[pool(max_capacity = MAX_IDLE)] Vec<u8>);

impl Buf {
    fn new() -> Self {
        Buf(Vec::with_capacity(256))
    }
}

pool! {
    /// Text lines, started at 256 bytes so a typical line never regrows.
    static LINES: Pool<String> = Pool::new(|| String::with_capacity(256));
    /// Byte buffers for `io::Write`; `Vec<u8>`'s reset only clears.
    static BUFFERS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(256));
    /// Byte buffers that shrink past `MAX_IDLE` on release.
    static BOUNDED: Pool<Bounded> = Pool::new(|| Bounded(Vec::with_capacity(256)));
}

const LEVELS: [&str; 4] = ["INFO", "WARN", "DEBUG", "ERROR"];
const TARGETS: [&str; 3] = ["http::server", "db::pool", "cache"];

/// One log line's worth of formatting, the same for every variant:
/// `format_args!`, to be passed straight to `fmt::format` or `write_fmt`.
macro_rules! log_line {
    ($n:expr) => {
        format_args!(
            "2024-05-17T12:{:02}:{:02}.{:06}Z {:<5} {}: request {} served in {}us status={}\n",
            $n / 60 % 60,
            $n % 60,
            $n * 7919 % 1_000_000,
            LEVELS[$n % 4],
            TARGETS[$n % 3],
            $n,
            $n * 31 % 997,
            if $n % 50 == 0 { 500 } else { 200 },
        )
    };
}

/// Timed runs per row.
const RUNS: usize = 3;

struct Measured {
    ns: f64,
    bytes: f64,
    allocs: f64,
}

/// Runs `f` on `0..lines` three times after a warm-up; time is the best of
/// the three runs (the least disturbed by other work on the machine),
/// bytes and allocations the average over all of them.
fn measure(lines: usize, mut f: impl FnMut(usize)) -> Measured {
    for n in 0..lines / 10 {
        f(n); // warm up: fill the pool, settle the allocator
    }
    let before = ALLOC.counts();
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let start = Instant::now();
        for n in 0..lines {
            f(n);
        }
        best = best.min(start.elapsed().as_nanos() as f64 / lines as f64);
    }
    let per = |now: u64, before: u64| (now - before) as f64 / (RUNS * lines) as f64;
    Measured {
        ns: best,
        bytes: per(ALLOC.counts().bytes, before.bytes),
        allocs: per(ALLOC.counts().allocs, before.allocs),
    }
}

fn main() {
    let lines = 400_000;
    let mut sink = io::sink();
    let mut write = |bytes: &[u8]| sink.write_all(black_box(bytes)).expect("sink");

    println!(
        "buffer_pool: {RUNS} x {lines} log lines per row, each formatted with write! and written to\n\
         io::sink(); ns: best of {RUNS} runs on a shared 2-core machine; B and allocs: counted\n"
    );
    println!(
        "{:<40}{:>10}{:>10}{:>12}",
        "", "ns/line", "B/line", "allocs/line"
    );
    let rows = [
        (
            "format!(...) per line",
            measure(lines, |n| {
                let line = std::fmt::format(log_line!(n)); // what format! expands to
                write(line.as_bytes());
            }),
        ),
        (
            "Vec::new() per line, write!",
            measure(lines, |n| {
                let mut line = Vec::new();
                line.write_fmt(log_line!(n)).expect("formatting");
                write(&line);
            }),
        ),
        (
            "LINES.acquire(): pooled String",
            measure(lines, |n| {
                let mut line = LINES.acquire();
                line.write_fmt(log_line!(n)).expect("formatting");
                write(line.as_bytes());
            }),
        ),
        (
            "BUFFERS.acquire(): pooled Vec<u8>",
            measure(lines, |n| {
                let mut line = BUFFERS.acquire();
                line.write_fmt(log_line!(n)).expect("formatting");
                write(&line);
            }),
        ),
    ];
    for (label, m) in &rows {
        println!(
            "{label:<40}{:>10.1}{:>10.1}{:>12.3}",
            m.ns, m.bytes, m.allocs
        );
    }
    let mut sample = String::new();
    sample.write_fmt(log_line!(1234)).expect("formatting");
    print!("\na line: {sample}");
    let s = LINES.stats();
    println!(
        "LINES pool: created {}, reused {}, idle {}",
        s.created,
        s.reused(),
        s.idle
    );

    // Part 2: one huge line, then what the pool keeps.
    const HUGE: usize = 1 << 20;
    println!("\nafter one {HUGE}-byte line, the next acquire gets:");
    println!("{:<40}{:>12}{:>16}", "", "capacity", "heap kept (B)");
    let live = || ALLOC.live();
    let report = |label: &str, capacity: usize, before: i64| {
        println!("{label:<40}{capacity:>12}{:>16}", live() - before);
    };

    let before = live();
    {
        let mut buf = BUFFERS.acquire();
        buf.resize(HUGE, b'x');
        write(&buf);
    }
    report(
        "Pool<Vec<u8>> (reset = clear)",
        BUFFERS.acquire().capacity(),
        before,
    );

    let before = live();
    {
        let mut buf = BOUNDED.acquire();
        buf.0.resize(HUGE, b'x');
        write(&buf.0);
    }
    report(
        "Pool<Bounded> (hand-written Reset)",
        BOUNDED.acquire().0.capacity(),
        before,
    );

    let before = live();
    {
        let mut buf = Buf::acquire();
        buf.0.resize(HUGE, b'x');
        write(&buf.0);
    }
    report(
        "Buf::acquire() (#[pool(max_capacity)])",
        Buf::acquire().0.capacity(),
        before,
    );

    // Idle buffers go once they have been idle across two rotations (a
    // thread's cache ages when the thread next touches the pool).
    let before = live();
    rotate();
    rotate();
    drop(BUFFERS.acquire());
    println!(
        "\ntwo rotate() calls later, Pool<Vec<u8>> dropped its idle buffers: heap {:+} B",
        live() - before
    );
}
