//! `pool_core::axum` under load (issue 39's targets): an axum 0.8 server
//! and a keep-alive HTTP/1.1 load generator of its own, in one process, on
//! 127.0.0.1, in interleaved rounds; and, under callgrind, the routes'
//! instructions per request in process (`tower::ServiceExt::oneshot`, no
//! socket), which the machine's load does not move.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench axum_json
//! ROUNDS=5 REQUESTS=20000 SECONDS=2 cargo bench --manifest-path benches/Cargo.toml --bench axum_json
//! scripts/axum_callgrind.sh     # instructions per request, each route
//! ```
//!
//! Every route takes the same body, a 4 KB order (a customer, an address,
//! 30 line items with tags, notes), and all but the last two answer the
//! same small `Json<Ack>`:
//!
//! - `/stack`: the body as `Bytes`, not decoded: the HTTP stack's own
//!   allocations, response included, which the others are read against;
//! - `/json`: `Json<Order>`, a fresh order per request;
//! - `/json_pooled`: `Json<Pooled<Order>>`, axum's extractor decoding in
//!   place into the pooled order;
//! - `/pooled`: `PooledJson<Order>`;
//! - `/bytes`: `Bytes`, then `serde_json::from_slice::<Pooled<Order>>`;
//! - `/pooled_out`: `PooledJson<Order>` in, the order answered as a
//!   `PooledJson` (a 4 KB response from a pooled buffer);
//! - `/json_out`: `Json<Order>` in and out, the same exchange without the
//!   pool.
//!
//! A round posts to one route over [`CONNECTIONS`] connections until
//! `REQUESTS` requests are answered or `SECONDS` pass; each round runs
//! every route once, starting one route further each time, so each ratio
//! compares routes run in the same state of a shared machine.
//! Allocations per request are the server's: the process's, counted by
//! `pool_suite::alloc::Counting`, less the load generator's (its thread's
//! own count, `pool_suite::alloc::this_thread`; it allocates nothing per
//! request once connected). The server is a multi-thread runtime of two
//! workers; the load generator a current-thread runtime on the main thread.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use pool_core::axum::PooledJson;
use pool_core::{Poolable, Pooled, Reset, ReuseVec};
use pool_suite::alloc::{Counting, Counts, this_thread};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Keep-alive connections per round, as in the issue's measurement.
const CONNECTIONS: usize = 16;

#[derive(Reset, Default, Serialize, Deserialize)]
struct Customer {
    name: String,
    email: String,
}

#[derive(Reset, Default, Serialize, Deserialize)]
struct Address {
    street: String,
    city: String,
    zip: String,
}

#[derive(Reset, Default, Serialize, Deserialize)]
struct LineItem {
    sku: String,
    name: String,
    quantity: u32,
    price_cents: u64,
    tags: ReuseVec<String>,
}

/// The order every route takes.
#[derive(Poolable, Default, Serialize, Deserialize)]
struct Order {
    id: u64,
    customer: Customer,
    address: Address,
    items: ReuseVec<LineItem>,
    notes: ReuseVec<String>,
}

/// The small answer of all but the `_out` routes.
#[derive(Serialize)]
struct Ack {
    items: usize,
    notes: usize,
}

fn order_body() -> Vec<u8> {
    let mut order = Order {
        id: 90_210,
        ..Order::default()
    };
    order.customer.name.push_str("Ada Lovelace");
    order.customer.email.push_str("ada@example.com");
    order.address.street.push_str("12 St James's Square");
    order.address.city.push_str("London");
    order.address.zip.push_str("SW1Y 4JH");
    for i in 0..30 {
        let item = order.items.push_reused();
        item.sku = format!("SKU-{i:05}");
        item.name = format!("Espresso cups, set of {}, stoneware", i + 2);
        item.quantity = i + 1;
        item.price_cents = 1999 + u64::from(i);
        item.tags.extend(["kitchen", "fragile"].map(String::from));
        if i % 3 == 0 {
            item.tags.push("gift-wrap".to_owned());
        }
    }
    order
        .notes
        .extend(["leave at the door", "ring twice"].map(String::from));
    serde_json::to_vec(&order).expect("an Order serializes")
}

fn ack(order: &Order) -> Json<Ack> {
    Json(Ack {
        items: order.items.len(),
        notes: order.notes.len(),
    })
}

async fn stack(body: Bytes) -> Json<Ack> {
    Json(Ack {
        items: body.len(),
        notes: 0,
    })
}

async fn json(Json(order): Json<Order>) -> Json<Ack> {
    ack(&order)
}

async fn json_pooled(Json(order): Json<Pooled<Order>>) -> Json<Ack> {
    ack(&order)
}

async fn pooled(order: PooledJson<Order>) -> Json<Ack> {
    ack(&order)
}

async fn bytes(body: Bytes) -> Response {
    match serde_json::from_slice::<Pooled<Order>>(&body) {
        Ok(order) => ack(&order).into_response(),
        Err(_) => StatusCode::BAD_REQUEST.into_response(),
    }
}

async fn pooled_out(order: PooledJson<Order>) -> PooledJson<Order> {
    order
}

async fn json_out(order: Json<Order>) -> Json<Order> {
    order
}

const ROUTES: [&str; 7] = [
    "/stack",
    "/json",
    "/json_pooled",
    "/pooled",
    "/bytes",
    "/pooled_out",
    "/json_out",
];

fn app() -> Router {
    Router::new()
        .route("/stack", post(stack))
        .route("/json", post(json))
        .route("/json_pooled", post(json_pooled))
        .route("/pooled", post(pooled))
        .route("/bytes", post(bytes))
        .route("/pooled_out", post(pooled_out))
        .route("/json_out", post(json_out))
}

/// The position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads one response into `buffer`, checks its status is 200 and returns
/// its body's length. The server sends `content-length` (every body here
/// is one chunk) and nothing after the body (one request in flight).
async fn read_response(stream: &mut TcpStream, buffer: &mut [u8]) -> usize {
    let mut filled = 0;
    let (head, length) = loop {
        let n = stream.read(&mut buffer[filled..]).await.expect("read");
        assert!(n > 0, "the server closed the connection");
        filled += n;
        if let Some(end) = find(&buffer[..filled], b"\r\n\r\n") {
            let head = std::str::from_utf8(&buffer[..end]).expect("an ASCII head");
            assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().expect("a length"))
                })
                .expect("a content-length");
            break (end + 4, length);
        }
    };
    while filled < head + length {
        let n = stream.read(&mut buffer[filled..]).await.expect("read");
        assert!(n > 0, "the server closed the connection");
        filled += n;
    }
    assert_eq!(filled, head + length, "bytes after the response");
    length
}

/// One connection: posts `request` (head and body, written once) until the
/// shared budget or the deadline runs out; returns the requests answered.
async fn connection(
    addr: SocketAddr,
    request: Arc<[u8]>,
    budget: Arc<AtomicUsize>,
    deadline: Instant,
) -> usize {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut buffer = vec![0; 1 << 16];
    let mut answered = 0;
    while Instant::now() < deadline
        && budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    {
        stream.write_all(&request).await.expect("write");
        read_response(&mut stream, &mut buffer).await;
        answered += 1;
    }
    answered
}

/// What one round of one route measured.
struct Round {
    per_second: f64,
    allocs: f64,
    bytes: f64,
}

/// `requests` posts to `path`, or as many as `limit` allows.
async fn round(
    addr: SocketAddr,
    path: &str,
    body: &[u8],
    requests: usize,
    limit: Duration,
) -> Round {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let request: Arc<[u8]> = request.into();
    let budget = Arc::new(AtomicUsize::new(requests));
    let (process, client) = (ALLOC.counts(), this_thread());
    let start = Instant::now();
    let deadline = start + limit;
    let tasks: Vec<_> = (0..CONNECTIONS)
        .map(|_| tokio::spawn(connection(addr, request.clone(), budget.clone(), deadline)))
        .collect();
    let mut answered = 0;
    for task in tasks {
        answered += task.await.expect("a connection");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let server: Counts = (ALLOC.counts() - process) - (this_thread() - client);
    Round {
        per_second: answered as f64 / elapsed,
        allocs: server.allocs as f64 / answered as f64,
        bytes: server.bytes as f64 / answered as f64,
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn range(values: &[f64]) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map_or(default, |v| v.parse().expect("a number"))
}

fn load() {
    let rounds = setting("ROUNDS", 5);
    let requests = setting("REQUESTS", 20_000);
    let limit = Duration::from_secs(setting("SECONDS", 2) as u64);
    let body = order_body();

    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("the server's runtime");
    let listener = server
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    server.spawn(async move { axum::serve(listener, app()).await });

    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the client's runtime");
    println!(
        "axum_json: server on http://{addr} (2 workers), {CONNECTIONS} keep-alive connections, \
         {requests} requests or {}s per round, {rounds} rounds, a {} B order",
        limit.as_secs(),
        body.len()
    );
    client.block_on(async {
        // Warm up: connections, the allocator, the pools.
        for path in ROUTES {
            round(addr, path, &body, 2_000, limit).await;
        }
        let mut per_second = vec![Vec::new(); ROUTES.len()];
        let mut allocs = vec![Vec::new(); ROUTES.len()];
        println!(
            "\n{:<7}{:<13}{:>10}{:>12}{:>10}",
            "round", "route", "req/s", "allocs/req", "B/req"
        );
        for n in 0..rounds {
            for k in 0..ROUTES.len() {
                let route = (n + k) % ROUTES.len();
                let r = round(addr, ROUTES[route], &body, requests, limit).await;
                println!(
                    "{:<7}{:<13}{:>10.0}{:>12.2}{:>10.0}",
                    n + 1,
                    ROUTES[route],
                    r.per_second,
                    r.allocs,
                    r.bytes
                );
                per_second[route].push(r.per_second);
                allocs[route].push(r.allocs);
            }
        }
        report(&per_second, &allocs);
    });
}

fn report(per_second: &[Vec<f64>], allocs: &[Vec<f64>]) {
    let index = |path: &str| ROUTES.iter().position(|&r| r == path).expect("a route");
    println!(
        "\n{:<13}{:>14}{:>26}",
        "route", "allocs/req", "req/s median (range)"
    );
    for (route, path) in ROUTES.iter().enumerate() {
        let (lo, hi) = range(&allocs[route]);
        let (slow, fast) = range(&per_second[route]);
        println!(
            "{path:<13}{:>14}{:>26}",
            if hi - lo < 0.005 {
                format!("{lo:.2}")
            } else {
                format!("{lo:.2}-{hi:.2}")
            },
            format!(
                "{:.1}k ({:.1}-{:.1}k)",
                median(&per_second[route]) / 1e3,
                slow / 1e3,
                fast / 1e3
            )
        );
    }
    let ratio = |a: &str, b: &str| -> Vec<f64> {
        let (a, b) = (&per_second[index(a)], &per_second[index(b)]);
        a.iter().zip(b).map(|(a, b)| a / b).collect()
    };
    println!("\nreq/s, per-round ratios: median (range) [each round]");
    for (a, b) in [
        ("/pooled", "/json"),
        ("/json_pooled", "/json"),
        ("/pooled", "/bytes"),
        ("/pooled", "/stack"),
        ("/pooled_out", "/json_out"),
    ] {
        let r = ratio(a, b);
        let (lo, hi) = range(&r);
        let each: Vec<String> = r.iter().map(|x| format!("{x:.2}")).collect();
        println!(
            "{a} / {b}: {:.2} ({lo:.2}-{hi:.2}) [{}]",
            median(&r),
            each.join(" ")
        );
    }
    let most = |path: &str| range(&allocs[index(path)]).1;
    let floor = range(&allocs[index("/stack")]).0;
    println!(
        "\ntargets: /pooled allocs {:.2} <= /stack + 1 = {:.2}: {}; /pooled_out {:.2}: {}; \
         /pooled over /json >= 1.4: {}; /pooled over /bytes >= 0.9: {}",
        most("/pooled"),
        floor + 1.0,
        most("/pooled") <= floor + 1.0,
        most("/pooled_out"),
        most("/pooled_out") <= floor + 1.0,
        median(&ratio("/pooled", "/json")) >= 1.4,
        median(&ratio("/pooled", "/bytes")) >= 0.9,
    );
}

/// `--oneshot <route> <n>`: `n` requests to `route` in process, through
/// `tower::ServiceExt::oneshot`, each response's body read; for callgrind
/// (`scripts/axum_callgrind.sh`), which counts the instructions of two
/// such runs and divides their difference.
fn oneshot(path: &str, n: usize) {
    let body = Bytes::from(order_body());
    let app = app();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        for _ in 0..n {
            let request = Request::post(path)
                .header("content-type", "application/json")
                .body(Body::from(body.clone()))
                .expect("a request");
            let response = app.clone().oneshot(request).await.expect("a response");
            assert_eq!(response.status(), StatusCode::OK);
            axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .expect("the body");
        }
    });
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match &args[..] {
        [flag, path, n] if flag == "--oneshot" => {
            oneshot(path, n.parse().expect("a count"));
        }
        // `cargo bench` passes `--bench`; a filter of criterion's is
        // ignored: this bench has one workload.
        _ => load(),
    }
}
