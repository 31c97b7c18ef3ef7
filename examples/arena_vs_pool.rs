//! The alternative people weigh against a pool: an arena (`bumpalo`) against this pool and plain
//! allocation, for batches of short-lived request objects.
//!
//! ```text
//! cargo run --release --example arena_vs_pool
//! ```
//!
//! Each batch builds 10,000 small requests (a path, a user name and a
//! 48-byte body each), reads them all, then drops the whole batch, the
//! workload Go's arenas were made for. Four ways:
//!
//! - **plain**: a `Request` with its own `String`s and `Vec` per object;
//! - **arena**: the same fields as `&str`/`&[u8]` in a `bumpalo::Bump`,
//!   reset after each batch (one pointer bump per allocation, one reset per
//!   batch; the objects cannot outlive it, and their destructors never run);
//! - **pool**: `Request::acquire()` from a pool sized for the batch
//!   (`capacity = 16384`), so every object and its buffers come back;
//! - **pool, capacity 1024**: the same type through a pool bounded at
//!   1024: most of each batch is dropped on return and made again,
//!   which costs more than not pooling at all. The default capacity
//!   (65,536) is a ceiling the batch fits under: bound a pool below the
//!   objects in flight at once only to cap its memory.
//!
//! Look at allocs/batch (the arena and the sized pool make none once warm),
//! the median time per batch, the peak live heap during the run, and what
//! each way keeps between batches (not counting the batch vector that plain
//! and pooled reuse, allocated before the measurement): the pool keeps its
//! 10,000 idle objects and their buffers until `rotate()` ages them out;
//! the arena keeps its largest chunk until the `Bump` is dropped. Each
//! pooled object is boxed on a 128-byte line of its own, hence the pool's
//! higher peak than plain's objects stored inline in their vector.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use bumpalo::Bump;
use pool_core::{Poolable, Pooled};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

const BATCH: usize = 10_000;
const BATCHES: usize = 200;

/// A request with its own buffers, pooled in a pool that holds a batch.
#[derive(Poolable, Default)]
#[pool(capacity = 16384)]
struct Request {
    path: String,
    user: String,
    body: Vec<u8>,
}

/// The same request through a pool bounded below the batch (1024).
#[derive(Poolable, Default)]
#[pool(capacity = 1024)]
struct Undersized(Request);

/// The arena's request: borrowed from the `Bump`, freed with it.
struct ArenaRequest<'b> {
    path: &'b str,
    user: &'b str,
    body: &'b [u8],
}

const BODY: [u8; 48] = [b'x'; 48];

fn fill(req: &mut Request, n: usize) {
    write!(req.path, "/api/v1/items/{n}").expect("formatting");
    write!(req.user, "user-{}", n % 1000).expect("formatting");
    req.body.extend_from_slice(&BODY);
}

/// What the batch does with its requests: read every field.
fn process<'a>(requests: impl Iterator<Item = (&'a str, &'a str, &'a [u8])>) -> usize {
    requests
        .map(|(path, user, body)| path.len() + user.len() + body.len())
        .sum()
}

struct Measured {
    median_us: f64,
    allocs: f64,
    peak: i64,
    kept: i64,
}

/// Runs one warm-up batch and `BATCHES` timed ones; `batch` is called with
/// the batch number. The peak is taken over all of them and what is kept
/// after the last, both relative to the live heap before the first.
fn measure(mut batch: impl FnMut(usize)) -> Measured {
    let base = ALLOC.live();
    ALLOC.reset_peak();
    batch(0);
    let a0 = ALLOC.counts().allocs;
    let mut times: Vec<f64> = Vec::with_capacity(BATCHES);
    for b in 1..=BATCHES {
        let start = Instant::now();
        batch(b);
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let allocs = (ALLOC.counts().allocs - a0) as f64 / BATCHES as f64;
    let peak = ALLOC.peak() - base;
    // Between batches: the arena's chunk, the pool's idle objects; not
    // `times`, which is the measurement's own.
    let kept = ALLOC.live() - base - (times.capacity() * size_of::<f64>()) as i64;
    times.sort_by(f64::total_cmp);
    Measured {
        median_us: times[BATCHES / 2],
        allocs,
        peak,
        kept,
    }
}

fn main() {
    println!(
        "arena_vs_pool: {BATCHES} batches (+1 warm-up) of {BATCH} requests, each request a path,\n\
         a user name and a 48-byte body; time: median batch on a shared 2-core machine\n"
    );

    let plain = {
        let mut batch: Vec<Request> = Vec::with_capacity(BATCH);
        measure(move |b| {
            for n in 0..BATCH {
                let mut req = Request::default();
                fill(&mut req, b * BATCH + n);
                batch.push(req);
            }
            let fields = batch.iter().map(|r| (&*r.path, &*r.user, &*r.body));
            black_box(process(fields));
            batch.clear();
        })
    };

    let arena = {
        let mut bump = Bump::new();
        let mut scratch = String::new();
        measure(move |b| {
            let requests = bump.alloc_slice_fill_with(BATCH, |n| {
                scratch.clear();
                write!(scratch, "/api/v1/items/{}", b * BATCH + n).expect("formatting");
                let path = &*bump.alloc_str(&scratch);
                scratch.clear();
                write!(scratch, "user-{}", (b * BATCH + n) % 1000).expect("formatting");
                let user = &*bump.alloc_str(&scratch);
                let body = &*bump.alloc_slice_copy(&BODY);
                ArenaRequest { path, user, body }
            });
            black_box(process(requests.iter().map(|r| (r.path, r.user, r.body))));
            bump.reset(); // frees the batch at once; keeps the largest chunk
        })
    };

    let pooled = {
        let mut batch: Vec<Pooled<Request>> = Vec::with_capacity(BATCH);
        measure(move |b| {
            for n in 0..BATCH {
                let mut req = Request::acquire();
                fill(&mut req, b * BATCH + n);
                batch.push(req);
            }
            let fields = batch.iter().map(|r| (&*r.path, &*r.user, &*r.body));
            black_box(process(fields));
            batch.clear(); // every request reset and back in the pool
        })
    };
    let pool_stats = Request::pool().stats();

    let undersized = {
        let mut batch: Vec<Pooled<Undersized>> = Vec::with_capacity(BATCH);
        measure(move |b| {
            for n in 0..BATCH {
                let mut req = Undersized::acquire();
                fill(&mut req.0, b * BATCH + n);
                batch.push(req);
            }
            let fields = batch.iter().map(|r| (&*r.0.path, &*r.0.user, &*r.0.body));
            black_box(process(fields));
            batch.clear();
        })
    };
    let undersized_stats = Undersized::pool().stats();

    println!(
        "{:<34}{:>12}{:>10}{:>14}{:>14}{:>14}",
        "", "µs/batch", "ns/req", "allocs/batch", "peak live KB", "kept KB"
    );
    for (label, m) in [
        ("plain: new Request per request", &plain),
        ("arena: bumpalo, reset per batch", &arena),
        ("pool: Request::acquire()", &pooled),
        ("pool, capacity 1024", &undersized),
    ] {
        println!(
            "{label:<34}{:>12.0}{:>10.1}{:>14.1}{:>14}{:>14}",
            m.median_us,
            m.median_us * 1e3 / BATCH as f64,
            m.allocs,
            m.peak / 1024,
            m.kept / 1024
        );
    }

    for (label, s) in [
        ("pool", pool_stats),
        ("pool, capacity 1024", undersized_stats),
    ] {
        println!(
            "\n{label}: created {}, reused {}, dropped for capacity {}, idle {}",
            s.created,
            s.reused(),
            s.dropped_capacity,
            s.idle
        );
    }
}
