//! The `metrics` feature end to end, as a Prometheus server sees it: the
//! pools' counters go through `pool_core::metrics::publish()` into
//! metrics-exporter-prometheus's recorder, whose text is served on a
//! loopback port and scraped over TCP, twice, with pool traffic between.
//!
//! The exporter is built without its HTTP listener (that feature brings
//! hyper and a tokio runtime into every `cargo test --workspace`); the
//! endpoint here is a few lines of `std::net` serving the real
//! `PrometheusHandle::render()` output, which is all the listener serves
//! too. `examples/http/axum_service.rs` serves it from an axum route.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use pool_core::{Pool, pool};

pool! {
    // No thread cache: every release reaches the shared store, so the
    // reuse this test makes is counted in the primary tier.
    static JOBS: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
}

/// A scrape must not hang the test run if the server thread dies.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `GET /metrics` with the recorder's text, `scrapes` times, then
/// returns: the endpoint lives exactly as long as the test needs it.
fn serve(listener: TcpListener, prometheus: PrometheusHandle, scrapes: usize) {
    for stream in listener.incoming().take(scrapes) {
        let mut stream = stream.expect("accept");
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut request = BufReader::new(&stream);
        let mut line = String::new();
        request.read_line(&mut line).unwrap();
        assert!(line.starts_with("GET /metrics "), "request line {line:?}");
        // The headers end at the first empty line.
        while line != "\r\n" {
            line.clear();
            request.read_line(&mut line).unwrap();
        }
        let body = prometheus.render();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
    }
}

/// One scrape over loopback, as Prometheus makes it: the response body.
fn scrape(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("headers end");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    body.to_owned()
}

/// The value of the series written exactly as `series` (name and labels).
fn value(body: &str, series: &str) -> f64 {
    let line = body
        .lines()
        .find(|line| line.split_once(' ').is_some_and(|(s, _)| s == series))
        .unwrap_or_else(|| panic!("no {series} in the scrape:\n{body}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Holds `n` jobs at once, then releases them all.
fn burst(n: usize) {
    let held: Vec<_> = (0..n).map(|_| JOBS.acquire()).collect();
    drop(held);
}

#[test]
fn a_scrape_sees_the_counters_move() {
    let prometheus = PrometheusBuilder::new()
        .install_recorder()
        .expect("no other recorder in this test binary");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || serve(listener, prometheus, 3));

    let created = r#"pool_objects_created_total{pool="JOBS"}"#;
    let reused = r#"pool_objects_reused_total{pool="JOBS",tier="primary"}"#;
    let idle = r#"pool_objects_idle{pool="JOBS"}"#;

    burst(3); // three made, three idle
    pool_core::metrics::publish();
    let first = scrape(addr);
    assert!(
        first.contains("# TYPE pool_objects_created_total counter"),
        "{first}"
    );
    assert!(first.contains("# TYPE pool_objects_idle gauge"), "{first}");
    assert_eq!(value(&first, created), 3.0);
    assert_eq!(value(&first, reused), 0.0);
    assert_eq!(value(&first, idle), 3.0);

    burst(5); // the three idle ones reused, two more made
    // Nothing reaches the recorder until the next publish: the acquire
    // path pushes nothing, the pools' counters are read when published.
    assert_eq!(JOBS.stats().created, 5);
    assert_eq!(value(&scrape(addr), created), 3.0);
    pool_core::metrics::publish();
    let second = scrape(addr);
    assert_eq!(value(&second, created), 5.0);
    assert_eq!(value(&second, reused), 3.0);
    assert_eq!(value(&second, idle), 5.0);

    server.join().expect("the endpoint served every scrape");
}
