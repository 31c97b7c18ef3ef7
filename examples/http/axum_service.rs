//! An axum service that decodes each JSON request into a pooled struct:
//! the handler takes `Json<Pooled<Request>>`, so axum's own extractor
//! acquires a `Request` from its pool and decodes the body into it in
//! place; the guard is dropped when the handler returns, and the request
//! goes back, reset, for the next one. Measured under the same loopback
//! load as `http_server.rs` (the client is `shared/load.rs`), next to the
//! same handler taking `Json<Request>`. `GET /metrics` serves the pools'
//! statistics in Prometheus's text format (`pool_core::metrics::publish`
//! into metrics-exporter-prometheus's recorder).
//!
//! ```text
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service
//!     # load test, prints a table and the pool's series from /metrics
//! cargo run --release --manifest-path examples/http/Cargo.toml --example axum_service -- --serve
//!     # just serve, until killed
//! ```
//!
//! One run, 2026-12-01, at commit `d48be89`, with the first command above,
//! on the 2-core development machine shared with other builds (load
//! average 2.3 to 3.1; client and server in one process):
//!
//! ```text
//! axum_service: server on http://127.0.0.1:41435, 4 keep-alive connections, 50000 requests (or 10s) per round,
//! client and server in one process on a shared 2-core machine; B/req and allocs/req count the whole process
//!
//! round   route          requests     req/s    p50 µs    p99 µs    B/req allocs/req
//! 1       /withoutpool      50000     51343      71.3     167.6    19916      35.99
//! 1       /withpool         50000     47548      75.3     189.9    19894      32.99
//! 2       /withoutpool      50000     44884      69.5     202.9    19916      35.99
//! 2       /withpool         50000     49573      73.4     186.2    19894      32.99
//! 3       /withoutpool      50000     50479      72.1     178.2    19916      35.99
//! 3       /withpool         50000     43493      78.1     228.2    19894      32.99
//!
//! GET /metrics, the Request pool's series:
//!   pool_objects_created_total{pool="Request"} 2
//!   pool_objects_detached_total{pool="Request"} 0
//!   pool_objects_discarded_total{pool="Request"} 0
//!   pool_objects_dropped_total{pool="Request",reason="capacity"} 0
//!   pool_objects_dropped_total{pool="Request",reason="rotation"} 0
//!   pool_objects_idle{pool="Request"} 2
//!   pool_objects_in_use{pool="Request"} 0
//!   pool_objects_returned_total{pool="Request"} 152000
//!   pool_objects_reused_total{pool="Request",tier="primary"} 0
//!   pool_objects_reused_total{pool="Request",tier="thread"} 151998
//!   pool_objects_reused_total{pool="Request",tier="victim"} 0
//! ```
//!
//! The pooled route saves the three `String`s of each request (3
//! allocations: 32.99 against 35.99 per request above); the rest is
//! axum's, hyper's, tokio's and the client's, the same on both routes. As
//! in `http_server.rs`, req/s and latency are HTTP's and the loopback's,
//! and the two routes differ by less than the noise between rounds. The handler holds the guard across no `.await`
//! (the body is read before the extractor decodes), so each request is
//! served from its worker's thread cache and `created` stays near the
//! number of worker threads.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use pool_core::{Poolable, Pooled};
use pool_suite::alloc::Counting;
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// The load generator, shared with http_server.rs.
#[path = "shared/load.rs"]
mod load;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The Go article's request body, as in `http_server.rs`.
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

/// Decoded by axum's `Json` into an object from `Request`'s pool. A body
/// that does not decode is rejected by the extractor (the half-filled
/// object is reset and returned before the rejection is sent).
async fn with_pool(Json(req): Json<Pooled<Request>>) -> StatusCode {
    use_request(&req)
} // `req` is reset and returned to this worker's cache here.

async fn without_pool(Json(req): Json<Request>) -> StatusCode {
    use_request(&req)
}

/// Prometheus's scrape: the pools' values as of this request.
async fn metrics(State(prometheus): State<PrometheusHandle>) -> String {
    pool_core::metrics::publish();
    prometheus.render()
}

fn app(prometheus: PrometheusHandle) -> Router {
    Router::new()
        .route("/withpool", post(with_pool))
        .route("/withoutpool", post(without_pool))
        .route("/metrics", get(metrics))
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
    let allocs = load::compare(&ALLOC, addr, ["/withoutpool", "/withpool"]).await;
    if allocs[1] > allocs[0] - 2.5 {
        println!(
            "! the pooled route saves fewer than three allocations per request: the Json\n  \
             extractor did not decode in place (check: cargo tree -e features -i serde_derive)"
        );
    }

    println!("\nGET /metrics, the Request pool's series:");
    let body = scrape(addr).await;
    let mut series: Vec<&str> = body
        .lines()
        .filter(|line| line.starts_with("pool_objects") && line.contains(r#"pool="Request""#))
        .collect();
    assert!(!series.is_empty(), "no Request series in /metrics:\n{body}");
    series.sort_unstable(); // the recorder renders in no fixed order
    for line in series {
        println!("  {line}");
    }
}

async fn serve_forever(prometheus: PrometheusHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    println!("listening on http://{addr} (POST JSON to /withpool or /withoutpool; GET /metrics)");
    println!(
        "try: curl -i -H 'content-type: application/json' -d '{}' http://{addr}/withpool",
        std::str::from_utf8(load::BODY).expect("utf-8")
    );
    axum::serve(listener, app(prometheus)).await.expect("serve");
}

fn main() {
    let serve_only = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--serve") => true,
        Some(other) => {
            eprintln!("unknown argument {other:?}; usage: axum_service [--serve]");
            std::process::exit(2);
        }
    };
    // The process-wide recorder `pool_core::metrics::publish` writes to;
    // the `/metrics` route renders it.
    let prometheus = PrometheusBuilder::new()
        .install_recorder()
        .expect("the only recorder");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if serve_only {
        runtime.block_on(serve_forever(prometheus));
    } else {
        runtime.block_on(measure(prometheus));
    }
}
