//! Decoding JSON request bodies straight into pooled objects: the Rust form
//! of Go's `json.Unmarshal(body, pooledObj)`.
//!
//! ```text
//! cargo run --release --manifest-path examples/json/Cargo.toml --example serde_decode
//! ```
//!
//! `Pooled<Request>` implements `Deserialize` (pool-core's `serde`
//! feature): it takes a `Request` from the type's pool and decodes into it
//! in place, so the `String` and `Vec` fields keep their buffers from one
//! request to the next. The example decodes the same bodies with and
//! without the pool and prints the heap allocations per request, counted by
//! a global allocator.
//!
//! In-place decoding of a derived struct needs serde_derive's
//! `deserialize_in_place` feature, which pool-core's `serde` feature turns
//! on, so this package's `Cargo.toml` asks for nothing more than:
//!
//! ```toml
//! pool-core = { version = "0.1", features = ["serde"] }
//! serde = { version = "1", features = ["derive"] }
//! ```

use std::hint::black_box;
use std::time::Instant;

use pool_core::{Poolable, Pooled};
use pool_suite::alloc::Counting;
use serde::Deserialize;

/// A request body as a web handler receives it.
#[derive(Poolable, Default, Deserialize)]
struct Request {
    method: String,
    path: String,
    user: User,
    #[pool(max_capacity = 1024)] // an outsized list must not stay outsized in the pool
    ids: Vec<u64>,
}

/// A nested struct: decoded in place too.
#[derive(Poolable, Default, Deserialize)]
struct User {
    name: String,
    age: u32,
}

/// The handler: decode, use, and let the guard return the object.
fn handle(body: &[u8]) -> Result<usize, serde_json::Error> {
    let req: Pooled<Request> = serde_json::from_slice(body)?;
    Ok(req.method.len() + req.path.len() + req.user.name.len() + req.ids.len())
}

/// The same handler without the pool, for comparison.
fn handle_unpooled(body: &[u8]) -> Result<usize, serde_json::Error> {
    let req: Request = serde_json::from_slice(body)?;
    Ok(req.method.len() + req.path.len() + req.user.name.len() + req.ids.len())
}

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Runs `handler` over `bodies` `rounds` times; returns ns and allocations
/// per request.
fn measure(
    bodies: &[Vec<u8>],
    rounds: usize,
    handler: fn(&[u8]) -> Result<usize, serde_json::Error>,
) -> (f64, f64) {
    for body in bodies {
        black_box(handler(body).expect("valid body")); // warm up
    }
    let allocs = ALLOC.counts().allocs;
    let start = Instant::now();
    for _ in 0..rounds {
        for body in bodies {
            black_box(handler(body).expect("valid body"));
        }
    }
    let requests = (rounds * bodies.len()) as f64;
    let ns = start.elapsed().as_nanos() as f64 / requests;
    (ns, (ALLOC.counts().allocs - allocs) as f64 / requests)
}

fn main() -> Result<(), serde_json::Error> {
    let bodies: Vec<Vec<u8>> = (0..8)
        .map(|n| {
            format!(
                r#"{{"method": "POST", "path": "/api/v1/people/{n}", "user": {{"name": "萌哦科技 {n}", "age": {age}}}, "ids": [{n}, 20, 300, 4000]}}"#,
                age = 20 + n
            )
            .into_bytes()
        })
        .collect();

    // What a handler looks like.
    let req: Pooled<Request> = serde_json::from_slice(&bodies[0])?;
    println!(
        "{} {} from {} ({}), ids {:?}",
        req.method, req.path, req.user.name, req.user.age, req.ids
    );
    drop(req);

    // A bad body is an error; the half-filled object goes back to the pool,
    // reset, and is never seen.
    let bad = serde_json::from_slice::<Pooled<Request>>(br#"{"method": "GET", "path": 404}"#);
    println!("bad body: {}", bad.err().expect("a type error"));

    let rounds = 50_000;
    let (plain_ns, plain_allocs) = measure(&bodies, rounds, handle_unpooled);
    let (pooled_ns, pooled_allocs) = measure(&bodies, rounds, handle);
    println!("\n{:<34}{:>10}{:>12}", "", "ns/op", "allocs/op");
    println!(
        "{:<34}{plain_ns:>10.1}{plain_allocs:>12.3}",
        "serde_json::from_slice::<Request>"
    );
    println!(
        "{:<34}{pooled_ns:>10.1}{pooled_allocs:>12.3}",
        "... ::<Pooled<Request>>"
    );

    let stats = Request::pool().stats();
    println!(
        "\npool: {} created, {} reused, {} in use",
        stats.created,
        stats.reused(),
        stats.in_use()
    );
    Ok(())
}
