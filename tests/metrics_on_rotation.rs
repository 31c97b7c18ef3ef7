//! With the `metrics` feature, every rotation publishes every pool's
//! figures: a scrape shows them with no `pool_core::metrics::publish()`
//! call. A file of its own, so that no other test has called `publish` in
//! this process first.

use metrics_exporter_prometheus::PrometheusBuilder;
use pool_core::{Pool, pool};

pool! {
    static ORDERS: Pool<String> = Pool::new(String::new);
}

#[test]
fn a_rotation_publishes_without_a_publish_call() {
    pool_core::set_rotation_period(None); // only this test's rotation
    let prometheus = PrometheusBuilder::new()
        .install_recorder()
        .expect("the only recorder of this process");

    // First a pool made at run time, before any `pool!` static is used or
    // `publish` is called in this process: rotations publish it too.
    let tenants = Pool::builder(String::new).name("tenants").build();
    drop(tenants.acquire());
    tenants.put(String::with_capacity(8)); // made elsewhere
    assert!(
        !prometheus.render().contains(r#"pool="tenants""#),
        "published before the rotation"
    );
    pool_core::rotate();
    let text = prometheus.render();
    assert!(
        text.contains(r#"pool_objects_created_total{pool="tenants"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"pool_objects_put_total{pool="tenants"} 1"#),
        "{text}"
    );

    drop(ORDERS.acquire()); // made
    drop(ORDERS.acquire()); // reused from this thread's cache
    let text = prometheus.render();
    assert!(
        !text.contains(r#"pool="ORDERS""#),
        "published before any rotation:\n{text}"
    );

    pool_core::rotate();

    let text = prometheus.render();
    assert!(
        text.contains(r#"pool_objects_created_total{pool="ORDERS"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"pool_objects_returned_total{pool="ORDERS"} 2"#),
        "{text}"
    );
    assert!(
        text.contains(r#"pool_objects_reused_total{pool="ORDERS",tier="thread"} 1"#),
        "{text}"
    );
}
