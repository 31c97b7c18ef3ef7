//! An HTTP handler that decodes JSON into a pooled request, as a real HTTP/1 server: each JSON request body is
//! decoded into a `Request { name, id, country, age }`, pooled on one route
//! and allocated per request on the other, then driven by keep-alive clients.
//!
//! ```text
//! cargo run --release --manifest-path examples/http/Cargo.toml --example http_server
//!     # load test, prints a table
//! cargo run --release --manifest-path examples/http/Cargo.toml --example http_server -- --serve
//!     # just serve, until killed
//! ```
//!
//! The load mode starts the server (hyper 1 on tokio, 127.0.0.1, a port the
//! OS picks) and drives it from the same process with concurrent keep-alive
//! connections, alternating the two routes in rounds: `/withoutpool` decodes
//! with `serde_json::from_slice::<Request>`, `/withpool` with
//! `Request::acquire()` and serde's in-place deserialization. Both reply
//! `200` with an empty body, as the Go article's pooled handler does (the article's
//! unpooled one also re-encoded the request, which made its comparison
//! unequal; its client also never closed response bodies, so every request
//! paid for a new connection).
//!
//! Look at allocs/req: the pooled route saves the three `String`s of each
//! request; the other allocations (16 per request, about 18 KB, when this
//! was written) are hyper's, tokio's and the client's, the same on both
//! routes, and counted for the whole process. The req/s and latency columns
//! are dominated by HTTP and the loopback, so expect the two routes to
//! differ by less than the round-to-round noise on a shared machine. The
//! pool's statistics show where requests found their object: the handler
//! acquires and releases with no `.await` in between, so each request is
//! served from its worker thread's cache, and `created` stays at about the
//! number of tokio worker threads.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Method, StatusCode};
use hyper_util::rt::TokioIo;
use pool_core::Poolable;
use pool_suite::alloc::Counting;
use serde::Deserialize;
use tokio::net::TcpListener;

// The load generator, shared with axum_service.rs.
#[path = "shared/load.rs"]
mod load;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The Go article's request body. `Deserialize` with serde_derive's
/// `deserialize_in_place` feature (which pool-core's `serde` feature turns on)
/// decodes field by field into an existing value, each string cleared and
/// refilled in its kept buffer; `Poolable` resets it on release the same way.
#[derive(Poolable, Default, Deserialize)]
struct Request {
    name: String,
    id: String,
    country: String,
    age: i64,
}

// ---------------------------------------------------------------------------
// The server.
// ---------------------------------------------------------------------------

type Response = hyper::Response<Full<Bytes>>;

fn status(code: StatusCode) -> Response {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

/// What the handler does with the decoded request (the Go article's does nothing).
fn use_request(req: &Request) -> StatusCode {
    if req.name.is_empty() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

async fn handle(request: hyper::Request<Incoming>) -> Result<Response, Infallible> {
    let pooled = match (request.method(), request.uri().path()) {
        (&Method::POST, "/withpool") => true,
        (&Method::POST, "/withoutpool") => false,
        _ => return Ok(status(StatusCode::NOT_FOUND)),
    };
    let Ok(body) = request.into_body().collect().await else {
        return Ok(status(StatusCode::BAD_REQUEST));
    };
    let body = body.to_bytes();
    let code = if pooled {
        let mut req = Request::acquire();
        let mut de = serde_json::Deserializer::from_slice(&body);
        match Request::deserialize_in_place(&mut de, &mut req).and_then(|()| de.end()) {
            Ok(()) => use_request(&req),
            Err(_) => StatusCode::BAD_REQUEST,
        }
        // `req` is reset and returned to the pool here.
    } else {
        match serde_json::from_slice::<Request>(&body) {
            Ok(req) => use_request(&req),
            Err(_) => StatusCode::BAD_REQUEST,
        }
    };
    Ok(status(code))
}

async fn serve(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(handle));
            if let Err(e) = connection.await {
                eprintln!("connection error: {e}");
            }
        });
    }
}

async fn measure() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(serve(listener));

    load::describe("http_server", addr);
    let allocs = load::compare(&ALLOC, addr, ["/withoutpool", "/withpool"], load::BODY).await;

    if allocs[1] > allocs[0] - 2.5 {
        println!(
            "! the pooled route saves fewer than three allocations per request: serde_derive's\n  \
             `deserialize_in_place` feature looks off (check: cargo tree -e features -i serde_derive)"
        );
    }
    let s = Request::pool().stats();
    println!(
        "\nRequest pool: created {}, reused {} (thread cache {}, shared {}, victim {}), \
         returned {}, dropped for capacity {}, idle {}",
        s.created,
        s.reused(),
        s.hits_local,
        s.hits_primary,
        s.hits_victim,
        s.returned,
        s.dropped_capacity,
        s.idle
    );
}

async fn serve_forever() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    println!("listening on http://{addr} (POST a JSON body to /withpool or /withoutpool)");
    println!(
        "try: curl -i -d '{}' http://{addr}/withpool",
        std::str::from_utf8(load::BODY).expect("utf-8")
    );
    serve(listener).await;
}

fn main() {
    let serve_only = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--serve") => true,
        Some(other) => {
            eprintln!("unknown argument {other:?}; usage: http_server [--serve]");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if serve_only {
        runtime.block_on(serve_forever());
    } else {
        runtime.block_on(measure());
    }
}
