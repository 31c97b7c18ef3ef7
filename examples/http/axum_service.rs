//! An axum service that decodes each JSON request into a pooled struct:
//! the handler takes `PooledJson<Order>` (pool-core's feature `axum`),
//! which acquires an `Order` from its pool and decodes the body into it in
//! place, with axum's `Json` rejections; the guard is dropped when the
//! handler returns, and the order goes back, reset, for the next one. An
//! order is nested as real requests are: ten line items in a `ReuseVec`,
//! each with two `String`s and a `ReuseVec<String>` of tags, and tags of
//! its own (47 strings, 43 keys). These routes take the same body:
//!
//! - `/withoutpool`: `Json<Order>`, a fresh order per request;
//! - `/withpool`: `PooledJson<Order>`;
//! - `/withpool_json`: `Json<Pooled<Order>>`, axum's own extractor
//!   decoding into the pooled order (what these docs recommended before
//!   `PooledJson`, and what the figures below call `/withpool`);
//! - `/withpool_vec`: `Json<Pooled<VecOrder>>`, the same order with `Vec`s,
//!   whose reset drops the line items;
//! - `/withpool_bytes`: the body as `Bytes`, decoded by `serde_json` into a
//!   `Pooled<Order>` without axum's `Json`;
//! - `/baseline`: the body as `Bytes`, not decoded: what the HTTP stack
//!   allocates per request (`ROUTES=/baseline examples/http/load.sh`).
//!
//! `GET /metrics` serves the pools' statistics in Prometheus's text format
//! (`pool_core::metrics::publish` into metrics-exporter-prometheus's
//! recorder); `GET /order` serves the body and `GET /allocs` the process's
//! allocations so far, for an outside load tool (`load.sh`).
//!
//! ```text
//! examples/http/load.sh
//!     # builds, serves, and runs wrk on each route in turn (needs wrk and curl), below
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service
//!     # the same routes under the in-process client of shared/load.rs, with p50 and p99
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --serve
//!     # just serve, until killed
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --rss
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --rss --trim
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --giant
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --giant --no-trim
//!     # RSS before a burst, after it and two rotation periods later (Linux), below
//! ```
//!
//! # The routes under wrk
//!
//! These figures were measured before `PooledJson` existed: the route
//! they call `/withpool` took `Json<Pooled<Order>>`, the handler that is
//! `/withpool_json` now. `PooledJson`'s own, next to `Json<Order>` and
//! the `Bytes` route in the same rounds, are the `axum_json` bench's, in
//! the repository's docs/PERFORMANCE.md.
//!
//! One run of `examples/http/load.sh` (`wrk -t2 -c16 -d5s` per round, the
//! routes alternated, three rounds, one server process), 2026-12-02 15:52
//! UTC, wrk 4.1.0. The machine has 2 cores and other helpers' builds and
//! tests were running on it: load average 5.6 before, 6.1 after. wrk and
//! the server share the cores. allocs/req and B/req are the server's
//! alone (its counting allocator, read before and after each round):
//!
//! ```text
//! round  route              requests     req/s   latency  allocs/req    B/req
//! 1      /withoutpool          95671     19060    1.77ms      162.02    15248
//! 1      /withpool            173399     34005    1.01ms      101.00    11094
//! 1      /withpool_vec        146070     29134    0.86ms      158.00    12686
//! 1      /withpool_bytes      276695     54216  709.03us       14.00    10180
//! 2      /withoutpool         125074     24971    1.25ms      162.02    15248
//! 2      /withpool            218148     43570  711.65us      101.01    11095
//! 2      /withpool_vec        270232     52989  326.62us      158.01    12687
//! 2      /withpool_bytes      370973     72743  326.25us       14.00    10180
//! 3      /withoutpool         157636     31479  724.11us      162.00    15246
//! 3      /withpool            192782     38474  634.43us      101.01    11095
//! 3      /withpool_vec        172830     34530  556.23us      158.01    12687
//! 3      /withpool_bytes      278420     55609  588.55us       14.00    10181
//! ```
//!
//! A second run just after, the routes in the reverse order, five rounds
//! (`ROUTES="/withpool_bytes /withpool_vec /withpool /withoutpool"
//! ROUNDS=5 examples/http/load.sh`, load average 5.9 to 9.3), gave the
//! same allocations and 38.1k to 42.6k req/s for `/withpool_bytes`, 26.3k
//! to 33.1k for `/withpool`, 20.0k to 31.0k for `/withpool_vec` and 14.8k
//! to 31.1k for `/withoutpool`. A third, at 16:09 (`ROUTES="/baseline
//! /withpool_bytes /withpool /withoutpool" examples/http/load.sh`, load
//! average 10.2 to 11.8), the same allocations again, 14.00 for
//! `/baseline`, and 25.0k to 38.6k req/s for `/baseline`, 26.9k to 33.8k
//! for `/withpool_bytes`, 15.4k to 24.1k for `/withpool` and 12.7k to
//! 17.8k for `/withoutpool`.
//!
//! The allocations are exact and the same in every round; req/s is not:
//! at this load one route's rounds differ by up to 2×. `/withpool_bytes`
//! was faster than `/withpool` in every round of the three runs.
//! `/withpool` was ahead of `/withoutpool` in all three rounds of the
//! first and third runs but in three of five of the second (26.3k to
//! 33.1k req/s against 14.8k to 31.1k): a lean its way, 9 rounds of 11,
//! that the spread between rounds is too wide to turn into a figure.
//! Where the allocations come from (`/baseline`, and the decodes counted
//! apart, each repeated a thousand times warm):
//!
//! - 14 per request are hyper's, axum's and tokio's, whatever the handler
//!   does: `/baseline` makes 14 too. `/withpool_bytes` makes these 14
//!   and nothing else: its warm decode allocates nothing, as
//!   `tests/nested_decode.rs` asserts.
//! - 87 more on `/withpool` (now `/withpool_json`) are axum's `Json`: 1 in its content-type check
//!   (the `mime` crate lowercases the header into a `String`) and 86 in
//!   `serde_path_to_error`, which axum decodes through to say where a bad
//!   body went wrong: it copies each map key it passes into a `String`
//!   (`CaptureKey`), and copies that again when it hands the value's
//!   deserializer its path (`TrackedSeed` clones its `Chain`): 2 × 43
//!   keys. The decode into the pooled order allocates nothing there
//!   either.
//! - 61 more on `/withoutpool`: the fresh order's 47 strings and 14
//!   allocations for its 12 vectors' buffers (the line items' buffer
//!   grows twice): 162 = 101 + 61. `/withpool_vec` makes 57 of them again (158): its reset drops the
//!   line items with their 45 strings and 10 tag vectors, and the order's
//!   2 tags, keeping only the buffers of the two outer `Vec`s.
//!
//! So `Json<Pooled<Order>>` spent in axum's extractor what the pooled
//! decode saved, and a service that wanted the decode to allocate nothing
//! decoded the body itself, as `/withpool_bytes` does
//! (`serde_json::from_slice` into `Pooled<Order>`, a 400 on error), at
//! the cost of axum's rejections. `PooledJson<Order>` (`/withpool` now)
//! is that decode with `Json`'s rejections (its allocations per request
//! next to the stack's: the `axum_json` bench, docs/PERFORMANCE.md).
//! The in-process client of `shared/load.rs` (the second command) counts
//! its own allocations with the server's, 10 per request: in a run at
//! 15:57 (load average 6.9 to 8.1) it counted 172, 111, 168 and 24.
//!
//! The handlers hold the guard across no `.await` (the body is read before
//! it is decoded), so each request is served from its worker's thread
//! cache: the `Order` pool created 2 objects, one per worker thread, for
//! the run's 1.56 million pooled requests (`/metrics` after the run).
//!
//! # RSS after a burst, with and without the allocator trim
//!
//! `--rss` is for Linux (it reads `/proc/self/statm`; elsewhere it says so
//! and exits). It sets a 2 s rotation period
//! (`pool_core::set_rotation_period`), with `--trim` turns on
//! `pool_core::set_allocator_trim(true)`, warms up, lets two rotations
//! pass, then reads the process's RSS before a burst, just after it, and
//! two and a half periods later. The burst is 4,000 requests to `/held`,
//! whose handler keeps its `Pooled<Request>` across a 50 ms `.await` (as a
//! handler calling a database would), over 1,000 loopback connections
//! opened for it and closed after, bounded at 10 s (it takes about 1.1 s):
//! each request in flight holds a `Request`, so the burst leaves hundreds
//! of them idle in the pool. (`/withpool` holds none across an `.await`,
//! so a burst there leaves about one per worker thread.)
//!
//! Four runs of each, alternating, 2026-12-02 04:13 to 04:15 UTC, with the
//! two commands above (`/held` then took `Json<Pooled<Request>>`), on the 2-core development machine while a CI run
//! used it (load average 4.8 to 5.9), glibc 2.36. "heap" is what the
//! program holds allocated (the counting allocator's live bytes: 45 kB
//! before each burst, 48 kB two periods after, 68 kB once), "idle" the
//! `Request`s idle in the pool after the burst:
//!
//! ```text
//!              RSS kB                                      after the burst
//! run  trim    before   after the burst   two periods later   idle  heap kB
//! 1    off      4,336            22,028              22,024    491      126
//! 1    on       4,192            27,800               5,288    608      143
//! 2    off      4,424            25,804              25,528    559      138
//! 2    on       4,368            28,568               5,276    626      146
//! 3    off      4,364            30,512              29,212    703      160
//! 3    on       4,344            38,500               5,576    857      183
//! 4    off      4,320            26,260              25,984    577      159
//! 4    on       4,312            31,396               5,428    709      161
//! ```
//!
//! In every run the rotations dropped every idle `Request` and the heap
//! fell back to where it was. Without the trim RSS stayed within 1.3 MB
//! of its peak: glibc keeps small freed chunks in its arenas for the next
//! allocations. With it, the rotation that dropped the `Request`s called
//! `malloc_trim(0)`, which returned the free pages, and RSS came back to
//! about 1 MB above where it started. Most of what came back was not the
//! pool's: the idle `Request`s were 80 to 140 kB of heap, and the rest of
//! the 18 to 34 MB the burst added had been freed already when it ended
//! (the heap column): its connections' and requests' buffers and tasks,
//! kept by glibc the same way. The trim returns all free memory, whoever
//! freed it, but runs only after a rotation that dropped objects.
//!
//! # 300 giant orders with default settings
//!
//! `--giant` (issue 38) keeps every pool setting at its default (the trim
//! on; `--no-trim` turns it off): it warms up with 2,000 ordinary orders to
//! `/withpool` and two `rotate()` calls, then posts 300 orders of 500 line
//! items, each with a 1 KiB name and tag (about 1 MiB of JSON), one
//! connection, waits a second (the trim runs at most once a second) and
//! calls `rotate()` twice. "idle bytes" is every pool's
//! `Stats::idle_bytes`, summed; "shrunk" the `Order` pool's. Two runs of
//! each, alternating, at the commit that added the mode:
//!
//! ```text
//!                          RSS kB: before  after the orders  after two rotate()  idle bytes after the orders / rotations  heap kB before / after
//! trim on  (default)               4,484            10,916               6,236                              240 / 0                 53 / 55
//! trim off                         4,612            13,584              13,584                              240 / 0                 53 / 55
//! trim on  (default)               4,648            13,396               8,356                              240 / 0                 53 / 55
//! trim off                         4,568            11,304              11,304                              240 / 0                 53 / 55
//! ```
//!
//! Each giant order was shrunk on release to the size the ordinary ones
//! taught the pool (300 shrunk): the pools held 240 bytes (two objects'
//! boxes) after the burst and nothing after the rotations, and the heap
//! was where it started. RSS rose by the bodies and decode buffers glibc
//! kept; the default trim gave back 4.7 and 5.0 MB of it, where without
//! it RSS stayed at its peak.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use pool_core::axum::PooledJson;
use pool_core::{Poolable, Pooled, Reset, ReuseVec};
use pool_suite::alloc::Counting;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// The load generator, shared with http_server.rs.
#[path = "shared/load.rs"]
mod load;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// A line item of an [`Order`]: a part, reset in place with its order,
/// strings and tags kept; no pool of its own.
#[derive(Reset, Default, Serialize, Deserialize)]
struct LineItem {
    sku: String,
    name: String,
    quantity: u32,
    tags: ReuseVec<String>,
}

/// The load routes' request: an order of line items, nested as real
/// requests are. Its `ReuseVec`s keep their elements across uses, so a
/// warm decode into a pooled `Order` allocates none of its strings.
#[derive(Poolable, Default, Serialize, Deserialize)]
struct Order {
    id: u64,
    items: ReuseVec<LineItem>,
    tags: ReuseVec<String>,
}

/// The same order with `Vec`s, as it is written without `ReuseVec`: the
/// reset drops every line item, so each decode allocates their strings
/// again (`/withpool_vec`).
#[derive(Reset, Default, Deserialize)]
struct VecLineItem {
    sku: String,
    name: String,
    quantity: u32,
    tags: Vec<String>,
}

#[derive(Poolable, Default, Deserialize)]
struct VecOrder {
    id: u64,
    items: Vec<VecLineItem>,
    tags: Vec<String>,
}

/// The body the load routes get: an order of ten line items of two or
/// three tags each, and two tags of its own (47 strings, none escaped).
fn order_body() -> &'static [u8] {
    let mut order = Order {
        id: 90_210,
        ..Order::default()
    };
    for i in 0..10 {
        let item = order.items.push_reused();
        item.sku = format!("SKU-{i:05}");
        item.name = format!("Espresso cups, set of {}, stoneware", i + 2);
        item.quantity = i + 1;
        item.tags.extend(["kitchen", "fragile"].map(String::from));
        if i % 2 == 0 {
            item.tags.push("gift-wrap".to_owned());
        }
    }
    order.tags.extend(["priority", "eu-west"].map(String::from));
    serde_json::to_vec(&order)
        .expect("an Order serializes")
        .leak()
}

/// What the load routes do with the decoded order.
fn use_order(items: usize, tags: usize) -> StatusCode {
    if items == 0 || tags == 0 {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// Decoded in place into an `Order` from its pool. A body that does not
/// decode is rejected as `Json<Order>` rejects it (the half-filled object
/// is reset and returned before the rejection is sent).
async fn with_pool(order: PooledJson<Order>) -> StatusCode {
    use_order(order.items.len(), order.tags.len())
} // `order` is reset (line items kept) and returned to this worker's cache here.

/// Decoded by axum's `Json` into an `Order` from its pool, in place, but
/// through `serde_path_to_error`, which copies every key it passes.
async fn with_pool_json(Json(order): Json<Pooled<Order>>) -> StatusCode {
    use_order(order.items.len(), order.tags.len())
}

async fn without_pool(Json(order): Json<Order>) -> StatusCode {
    use_order(order.items.len(), order.tags.len())
}

async fn with_pool_vec(Json(order): Json<Pooled<VecOrder>>) -> StatusCode {
    use_order(order.items.len(), order.tags.len())
}

/// The pooled route without axum's `Json`, which decodes through
/// `serde_path_to_error` to report where a bad body went wrong, and that
/// copies every map key it passes into a `String` of its own: the body as
/// bytes, decoded with `serde_json`.
async fn with_pool_bytes(body: Bytes) -> StatusCode {
    match serde_json::from_slice::<Pooled<Order>>(&body) {
        Ok(order) => use_order(order.items.len(), order.tags.len()),
        Err(_) => StatusCode::BAD_REQUEST,
    }
}

/// The Go article's request body, as in `http_server.rs`: `/held`'s, for
/// `--rss`.
#[derive(Poolable, Default, Deserialize)]
struct Request {
    name: String,
    id: String,
    country: String,
    age: i64,
}

/// What the handler does with the decoded request.
fn use_request(req: &Request) -> StatusCode {
    if req.name.is_empty() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// How long `/held` keeps its request: a call to a database or another
/// service, awaited with the request in hand.
const HOLD: Duration = Duration::from_millis(50);

/// The pooled route of a handler that awaits something with its request:
/// each request in flight holds a `Request`, so a burst of concurrent
/// requests makes as many of them, and leaves them idle in the pool after.
async fn held(req: PooledJson<Request>) -> StatusCode {
    tokio::time::sleep(HOLD).await;
    use_request(&req)
}

/// The body the load routes take, for an outside load tool (`load.sh`).
async fn order() -> &'static [u8] {
    order_body()
}

/// The process's allocations and allocated bytes so far, as the counting
/// allocator sees them: `load.sh` reads them around each round of `wrk`,
/// which runs in a process of its own, so their difference is the server's.
async fn allocs() -> String {
    let counts = ALLOC.counts();
    format!("{} {}\n", counts.allocs, counts.bytes)
}

/// The body taken and not decoded: what the HTTP stack allocates per
/// request, for the other routes' figures to be read against.
async fn baseline(body: Bytes) -> StatusCode {
    if body.is_empty() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// Prometheus's scrape: the pools' values as of this request.
async fn metrics(State(prometheus): State<PrometheusHandle>) -> String {
    pool_core::metrics::publish();
    prometheus.render()
}

fn app(prometheus: PrometheusHandle) -> Router {
    Router::new()
        .route("/withpool", post(with_pool))
        .route("/withpool_json", post(with_pool_json))
        .route("/withoutpool", post(without_pool))
        .route("/withpool_vec", post(with_pool_vec))
        .route("/withpool_bytes", post(with_pool_bytes))
        .route("/baseline", post(baseline))
        .route("/held", post(held))
        .route("/metrics", get(metrics))
        .route("/order", get(order))
        .route("/allocs", get(allocs))
        .with_state(prometheus)
}

/// A plain HTTP/1.0 GET over loopback, as a scraper makes it: the body.
async fn scrape(addr: std::net::SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("headers");
    assert_eq!(head.split(' ').nth(1), Some("200"), "{head}");
    body.to_owned()
}

async fn measure(prometheus: PrometheusHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app(prometheus)).await });

    load::describe("axum_service", addr);
    let routes = [
        "/withoutpool",
        "/withpool_json",
        "/withpool",
        "/withpool_vec",
        "/withpool_bytes",
    ];
    let allocs = load::compare(&ALLOC, addr, routes, order_body()).await;
    if allocs[2] > allocs[4] + 1.0 {
        println!(
            "! PooledJson allocates more than the Bytes route: it did not decode in place\n  \
             (check: cargo tree -e features -i serde_derive)"
        );
    }

    println!("\nGET /metrics, the Order pool's series:");
    let body = scrape(addr).await;
    let mut series: Vec<&str> = body
        .lines()
        .filter(|line| line.starts_with("pool_objects") && line.contains(r#"pool="Order""#))
        .collect();
    assert!(!series.is_empty(), "no Order series in /metrics:\n{body}");
    series.sort_unstable(); // the recorder renders in no fixed order
    for line in series {
        println!("  {line}");
    }
}

async fn serve_forever(prometheus: PrometheusHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    println!(
        "listening on http://{addr} (POST an order to /withpool, /withoutpool, /withpool_json, \
         /withpool_vec, /withpool_bytes or /baseline; GET /metrics, /order for the body, /allocs for the \
         allocations so far)"
    );
    println!(
        "try: curl -i -H 'content-type: application/json' -d '{}' http://{addr}/withpool",
        std::str::from_utf8(order_body()).expect("utf-8")
    );
    axum::serve(listener, app(prometheus)).await.expect("serve");
}

// ---------------------------------------------------------------------------
// `--rss [--trim]`: the process's RSS around a burst, with and without
// `pool_core::set_allocator_trim`.
// ---------------------------------------------------------------------------

/// The rotation period of `--rss`: short, so that the run takes seconds.
/// Two seconds, not less: the trim runs at most once a second, and a
/// rotation that dropped objects within a second of the last trim does
/// not trim.
const PERIOD: Duration = Duration::from_secs(2);
/// The burst: concurrent connections, each with one request in flight.
const BURST_CONNECTIONS: usize = 1_000;
/// The burst's requests, shared by its connections.
const BURST_REQUESTS: usize = 4_000;

/// The process's resident set in kB, from `/proc/self/statm` (its second
/// field, in pages); `None` where there is no such file (not Linux).
fn rss_kb() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size()? / 1024)
}

/// The page size, from the kernel's auxiliary vector (`AT_PAGESZ`).
fn page_size() -> Option<u64> {
    const AT_PAGESZ: usize = 6;
    let auxv = std::fs::read("/proc/self/auxv").ok()?;
    let word = size_of::<usize>();
    let value = |bytes: &[u8]| usize::from_ne_bytes(bytes.try_into().expect("a word"));
    auxv.chunks_exact(2 * word)
        .find(|pair| value(&pair[..word]) == AT_PAGESZ)
        .map(|pair| value(&pair[word..]) as u64)
}

/// One connection of the burst: posts to `/held` until the shared budget
/// or the deadline runs out, then closes. Returns the requests it sent.
async fn burst_client(addr: SocketAddr, budget: Arc<AtomicUsize>, deadline: Instant) -> usize {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    let connection = tokio::spawn(connection);
    let mut sent = 0;
    while budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
        && Instant::now() < deadline
    {
        let request = hyper::Request::post("/held")
            .header(hyper::header::HOST, "127.0.0.1")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from_static(load::BODY)))
            .expect("request");
        let response = sender.send_request(request).await.expect("send");
        assert_eq!(response.status(), StatusCode::OK);
        response.into_body().collect().await.expect("body");
        sent += 1;
    }
    drop(sender); // ends the connection
    connection
        .await
        .expect("connection task")
        .expect("connection");
    sent
}

/// `requests` posts to `/held` over `connections` connections opened for
/// them and closed after, within [`load::LIMIT`]. Returns the requests sent.
async fn burst(addr: SocketAddr, connections: usize, requests: usize) -> usize {
    let budget = Arc::new(AtomicUsize::new(requests));
    let deadline = Instant::now() + load::LIMIT;
    let tasks: Vec<_> = (0..connections)
        .map(|_| tokio::spawn(burst_client(addr, budget.clone(), deadline)))
        .collect();
    let mut sent = 0;
    for task in tasks {
        sent += task.await.expect("client task");
    }
    sent
}

/// One line of the `--rss` table: RSS, the heap's live bytes (what the
/// program has allocated and not freed, as the counting allocator sees it)
/// and the `Request` pool's idle objects and rotation drops.
fn reading(when: &str) {
    let stats = Request::pool().stats();
    println!(
        "{when:<22}{:>9}{:>10}{:>9}{:>7}{:>9}",
        rss_kb().expect("/proc/self/statm"),
        ALLOC.live() / 1024,
        stats.created,
        stats.idle,
        stats.dropped_rotation
    );
}

async fn measure_rss(prometheus: PrometheusHandle, trim: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app(prometheus)).await });

    println!(
        "axum_service --rss: server on http://{addr}, rotation every {}s, allocator trim {};\n\
         burst: {BURST_REQUESTS} requests to /held ({} ms each) over {BURST_CONNECTIONS} \
         connections opened for it and closed after\n",
        PERIOD.as_secs(),
        match (trim, cfg!(all(target_os = "linux", target_env = "gnu"))) {
            (false, _) => "off",
            (true, true) => "on (glibc's malloc_trim)",
            (true, false) => "on (no glibc here: it does nothing)",
        },
        HOLD.as_millis()
    );
    // Warm up (the runtime, the allocator's arenas, the pool and its
    // rotation thread), then let two rotations drop the warm-up's objects.
    burst(addr, 4, 100).await;
    tokio::time::sleep(2 * PERIOD + PERIOD / 2).await;
    println!(
        "{:<22}{:>9}{:>10}{:>9}{:>7}{:>9}",
        "", "RSS kB", "heap kB", "created", "idle", "dropped"
    );
    reading("before the burst");
    let start = Instant::now();
    let sent = burst(addr, BURST_CONNECTIONS, BURST_REQUESTS).await;
    let took = start.elapsed();
    // The server's side of each connection ends just after the client's.
    tokio::time::sleep(Duration::from_millis(100)).await;
    reading("after the burst");
    tokio::time::sleep(2 * PERIOD + PERIOD / 2).await;
    reading("two periods later");
    println!(
        "\n{sent} requests in {:.2}s; \"two periods later\" is {:.1}s after the burst; \
         heap kB counts the bytes the program holds, RSS the pages the system gave the process",
        took.as_secs_f64(),
        (2 * PERIOD + PERIOD / 2 + Duration::from_millis(100)).as_secs_f64()
    );
}

// ---------------------------------------------------------------------------
// `--giant [--no-trim]`: 300 giant orders with default settings, then two
// rotations: what the pools and the process hold (issue 38).
// ---------------------------------------------------------------------------

/// An order of 500 line items, each with a 1 KiB name and a 1 KiB tag:
/// about 1 MiB of JSON, 500 times the load routes' order.
fn giant_body() -> Bytes {
    let mut order = Order {
        id: 1,
        ..Order::default()
    };
    for i in 0..500 {
        let item = order.items.push_reused();
        item.sku = format!("SKU-{i:05}");
        item.name = "n".repeat(1024);
        item.quantity = 1;
        item.tags.push("t".repeat(1024));
    }
    order.tags.push("giant".to_owned());
    Bytes::from(serde_json::to_vec(&order).expect("an Order serializes"))
}

/// Posts `body` to `path` `n` times over one connection.
async fn post_all(addr: SocketAddr, path: &'static str, body: Bytes, n: usize) {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    let connection = tokio::spawn(connection);
    for _ in 0..n {
        sender.ready().await.expect("the connection stays open");
        let request = hyper::Request::post(path)
            .header(hyper::header::HOST, "127.0.0.1")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(body.clone()))
            .expect("request");
        let response = sender.send_request(request).await.expect("send");
        assert_eq!(response.status(), StatusCode::OK);
        response.into_body().collect().await.expect("body");
    }
    drop(sender);
    connection
        .await
        .expect("connection task")
        .expect("connection");
}

/// One line of the `--giant` table: RSS, the heap's live bytes, and what
/// every pool holds idle (`Stats::idle_bytes`, summed over `pools()`).
fn giant_reading(when: &str) {
    let pools = pool_core::pools();
    let idle_bytes: u64 = pools.iter().map(|pool| pool.stats().idle_bytes).sum();
    let order = Order::pool().stats();
    println!(
        "{when:<28}{:>9}{:>10}{:>14}{:>8}{:>8}",
        rss_kb().expect("/proc/self/statm"),
        ALLOC.live() / 1024,
        idle_bytes,
        order.idle,
        order.shrunk
    );
}

async fn measure_giant(prometheus: PrometheusHandle, trim: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app(prometheus)).await });
    println!(
        "axum_service --giant: server on http://{addr}, default pool settings, allocator trim {}",
        if trim { "on (the default)" } else { "off" }
    );
    // Warm up with ordinary orders, then drop what the warm-up left.
    post_all(addr, "/withpool", Bytes::from_static(order_body()), 2_000).await;
    pool_core::rotate();
    pool_core::rotate();
    println!(
        "{:<28}{:>9}{:>10}{:>14}{:>8}{:>8}",
        "", "RSS kB", "heap kB", "idle bytes", "idle", "shrunk"
    );
    giant_reading("before");
    post_all(addr, "/withpool", giant_body(), 300).await;
    giant_reading("after 300 giant orders");
    // The trim runs at most once a second: the warm-up's rotations trimmed.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    pool_core::rotate();
    pool_core::rotate();
    giant_reading("after two rotate() calls");
}

enum Mode {
    Load,
    Serve,
    Rss { trim: bool },
    Giant { trim: bool },
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mode = match args[..] {
        [] => Mode::Load,
        ["--serve"] => Mode::Serve,
        ["--rss"] => Mode::Rss { trim: false },
        ["--rss", "--trim"] => Mode::Rss { trim: true },
        ["--giant"] => Mode::Giant { trim: true },
        ["--giant", "--no-trim"] => {
            pool_core::set_allocator_trim(false);
            Mode::Giant { trim: false }
        }
        _ => {
            eprintln!(
                "unknown arguments {args:?}; usage: axum_service [--serve | --rss [--trim] | --giant [--no-trim]]"
            );
            std::process::exit(2);
        }
    };
    if let Mode::Rss { trim } = mode {
        if rss_kb().is_none() {
            println!("axum_service --rss: no /proc/self/statm (not Linux), nothing to measure");
            return;
        }
        // First thing, before a pool is used: the rotation thread starts
        // with this period.
        pool_core::set_rotation_period(Some(PERIOD));
        pool_core::set_allocator_trim(trim);
    }
    // The process-wide recorder `pool_core::metrics::publish` writes to;
    // the `/metrics` route renders it.
    let prometheus = PrometheusBuilder::new()
        .install_recorder()
        .expect("the only recorder");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    match mode {
        Mode::Load => runtime.block_on(measure(prometheus)),
        Mode::Serve => runtime.block_on(serve_forever(prometheus)),
        Mode::Rss { trim } => runtime.block_on(measure_rss(prometheus, trim)),
        Mode::Giant { trim } => runtime.block_on(measure_giant(prometheus, trim)),
    }
}
