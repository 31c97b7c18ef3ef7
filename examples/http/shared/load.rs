//! The loopback load generator of the HTTP examples (`http_server.rs`,
//! `axum_service.rs`), written once so that their figures come from the
//! same client: keep-alive hyper connections posting one JSON body,
//! a shared request budget, per-request latency, and the allocations of
//! the whole process counted by the example's global allocator.
//!
//! Not an example of its own: this package's examples are the two listed in
//! its `Cargo.toml`; each includes this file with
//! `#[path = "shared/load.rs"] mod load;`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::StatusCode;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use pool_suite::alloc::Counting;
use tokio::net::TcpStream;

/// The Go article's request: the body `http_server.rs` posts, and
/// `axum_service.rs`'s `--rss` burst.
pub const BODY: &[u8] = br#"{"name":"test","id":"id1","country":"testCountry","age":10}"#;

/// Concurrent keep-alive connections of a round.
pub const CONNECTIONS: usize = 4;
/// Requests per round, shared by its connections.
pub const REQUESTS: usize = 50_000;
/// A round stops here even if its requests are not all sent.
pub const LIMIT: Duration = Duration::from_secs(10);
/// Rounds per route, alternating routes.
pub const ROUNDS: usize = 3;

/// One connection: sends requests until the shared budget or the deadline
/// runs out; returns each request's latency in nanoseconds.
async fn client(
    addr: SocketAddr,
    path: &'static str,
    body: Bytes,
    budget: Arc<AtomicUsize>,
    deadline: Instant,
) -> Vec<u64> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    let mut latencies = Vec::with_capacity(budget.load(Ordering::Relaxed));
    while budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
        && Instant::now() < deadline
    {
        let request = hyper::Request::post(path)
            .header(hyper::header::HOST, "127.0.0.1")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(body.clone()))
            .expect("request");
        let start = Instant::now();
        let response = sender.send_request(request).await.expect("send");
        assert_eq!(response.status(), StatusCode::OK);
        response.into_body().collect().await.expect("body");
        latencies.push(start.elapsed().as_nanos() as u64);
    }
    latencies
}

/// What one round on one route measured.
pub struct Round {
    pub requests: usize,
    pub per_second: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub bytes: f64,
    pub allocs: f64,
}

/// `requests` posts of `body` to `path` over `connections` keep-alive
/// connections, or as many as fit in `limit`.
pub async fn round(
    alloc: &'static Counting,
    addr: SocketAddr,
    (path, body): (&'static str, &Bytes),
    connections: usize,
    requests: usize,
    limit: Duration,
) -> Round {
    let budget = Arc::new(AtomicUsize::new(requests));
    let before = alloc.counts();
    let start = Instant::now();
    let deadline = start + limit;
    let tasks: Vec<_> = (0..connections)
        .map(|_| tokio::spawn(client(addr, path, body.clone(), budget.clone(), deadline)))
        .collect();
    let mut latencies = Vec::with_capacity(requests);
    for task in tasks {
        latencies.extend(task.await.expect("client task"));
    }
    let elapsed = start.elapsed().as_secs_f64();
    let after = alloc.counts();
    latencies.sort_unstable();
    let n = latencies.len();
    let at = |q: f64| latencies[((n as f64 * q) as usize).min(n - 1)] as f64 / 1e3;
    Round {
        requests: n,
        per_second: n as f64 / elapsed,
        p50_us: at(0.50),
        p99_us: at(0.99),
        // Includes the latency vectors, a few hundred kB per round.
        bytes: (after.bytes - before.bytes) as f64 / n as f64,
        allocs: (after.allocs - before.allocs) as f64 / n as f64,
    }
}

/// Warms the routes up, then runs [`ROUNDS`] rounds on each, alternating,
/// each posting `body`, printing a table; returns the last round's
/// allocations per request of each route.
pub async fn compare<const N: usize>(
    alloc: &'static Counting,
    addr: SocketAddr,
    routes: [&'static str; N],
    body: &'static [u8],
) -> [f64; N] {
    let body = Bytes::from_static(body);
    // Warm up every route: connections, the allocator, the pool.
    for path in routes {
        round(alloc, addr, (path, &body), CONNECTIONS, 2_000, LIMIT).await;
    }
    println!(
        "{:<8}{:<16}{:>9}{:>10}{:>10}{:>10}{:>9}{:>11}",
        "round", "route", "requests", "req/s", "p50 µs", "p99 µs", "B/req", "allocs/req"
    );
    let mut allocs = [0.0; N];
    for n in 1..=ROUNDS {
        for (route, path) in routes.into_iter().enumerate() {
            let r = round(alloc, addr, (path, &body), CONNECTIONS, REQUESTS, LIMIT).await;
            allocs[route] = r.allocs;
            println!(
                "{n:<8}{path:<16}{:>9}{:>10.0}{:>10.1}{:>10.1}{:>9.0}{:>11.2}",
                r.requests, r.per_second, r.p50_us, r.p99_us, r.bytes, r.allocs
            );
        }
    }
    allocs
}

/// The header line both examples print before their table.
pub fn describe(example: &str, addr: SocketAddr) {
    println!(
        "{example}: server on http://{addr}, {CONNECTIONS} keep-alive connections, \
         {REQUESTS} requests (or {}s) per round,\n\
         client and server in one process on a shared 2-core machine; B/req and \
         allocs/req count the whole process\n",
        LIMIT.as_secs()
    );
}
