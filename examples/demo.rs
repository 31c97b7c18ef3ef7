//! The pool at work: a request handler that fills a request object per
//! request, with and without the pool, measured here and now.
//!
//! ```text
//! cargo run --release --example demo
//! ```
//!
//! Prints time per request, heap allocations and bytes per request (counted
//! by a global allocator, like Go's `-benchmem`), what the pool's statistics
//! say, and how much memory two rotations give back once the load stops.

use std::hint::black_box;
use std::time::Instant;

use pool_core::{Poolable, rotate};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// A parsed request, as a web handler would fill it from a body.
/// `#[derive(Poolable)]` resets every field on release (clearing the buffers
/// but keeping their capacity) and gives the type its own static pool.
#[derive(Poolable, Default)]
struct Request {
    method: String,
    path: String,
    params: Vec<u64>,
    #[pool(max_capacity = 65536)] // a huge body must not stay huge in the pool
    body: Vec<u8>,
}

/// Fills `req` the way a parser would, copying into its buffers.
fn parse_into(req: &mut Request, n: usize) {
    req.method.push_str("POST");
    req.path.push_str("/api/v1/people?page=");
    req.path
        .push_str(if n.is_multiple_of(2) { "even" } else { "odd" });
    req.params.extend([n as u64, 20, 3]);
    req.body.extend_from_slice(&[b'x'; 512]);
    req.body[0] = n as u8;
}

fn handle(req: &Request) -> usize {
    req.method.len() + req.path.len() + req.body.len() + req.params.len()
}

struct Measured {
    ns: f64,
    allocs: f64,
    bytes: f64,
}

fn measure(requests: usize, mut f: impl FnMut(usize)) -> Measured {
    for n in 0..1_000 {
        f(n); // warm up: fill the pool, settle the allocator
    }
    let before = ALLOC.counts();
    let start = Instant::now();
    for n in 0..requests {
        f(n);
    }
    let ns = start.elapsed().as_nanos() as f64 / requests as f64;
    let per = |now: u64, before: u64| (now - before) as f64 / requests as f64;
    Measured {
        ns,
        allocs: per(ALLOC.counts().allocs, before.allocs),
        bytes: per(ALLOC.counts().bytes, before.bytes),
    }
}

fn main() {
    let requests = 2_000_000;
    println!("pool-core demo: {requests} requests, each parsed into a Request and handled\n");

    let plain = measure(requests, |n| {
        let mut req = Request::default();
        parse_into(&mut req, n);
        black_box(handle(&req));
    });
    let pooled = measure(requests, |n| {
        let mut req = Request::acquire();
        parse_into(&mut req, n);
        black_box(handle(&req));
    });

    println!("{:<22}{:>10}{:>12}{:>12}", "", "ns/op", "B/op", "allocs/op");
    for (name, m) in [
        ("allocate per request", &plain),
        ("Request::acquire()", &pooled),
    ] {
        println!(
            "{name:<22}{:>10.1}{:>12.1}{:>12.3}",
            m.ns, m.bytes, m.allocs
        );
    }
    println!(
        "\npooled is {:.1}x the speed of allocating",
        plain.ns / pooled.ns
    );

    let stats = Request::pool().stats();
    println!(
        "\npool stats: created {}, reused {} ({} from this thread's cache), idle {}",
        stats.created,
        stats.reused(),
        stats.hits_local,
        stats.idle
    );

    // A burst: many requests in flight at once, then the load stops.
    let burst: Vec<_> = (0..512)
        .map(|n| {
            let mut req = Request::acquire();
            parse_into(&mut req, n);
            req
        })
        .collect();
    drop(burst);
    let after_burst = ALLOC.live();
    let idle = Request::pool().stats().idle;
    rotate();
    let after_one = ALLOC.live();
    rotate();
    // The cache of this thread ages when the thread next touches the pool.
    drop(Request::acquire());
    let after_two = ALLOC.live();
    println!(
        "\nafter a burst of 512: {idle} idle requests, {after_burst} bytes live\n\
         one rotation later:   {after_one} bytes live (idle objects are victims, still served)\n\
         two rotations later:  {after_two} bytes live (idle objects dropped: {} by rotation)",
        Request::pool().stats().dropped_rotation
    );
}
