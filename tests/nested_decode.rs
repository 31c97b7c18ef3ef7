//! Heap allocations of a warm decode into `Pooled<T>`, counted by the
//! shared counting allocator (`pool_suite::alloc`), for requests as they
//! come: the seeds' flat `Person`, and an `Order` with ten line items, each
//! with two strings and a list of tag strings, plus tags of its own
//! (issue 25, item 3). Plain user code: `#[derive(Poolable)]` on the order,
//! `#[derive(Reset)]` on its parts, serde's plain derive on both.
//!
//! A warm decode must allocate nothing. With `Vec` in place of `ReuseVec`
//! the reset drops every line item and tag, and each decode allocates their
//! strings again; the test measures that too, so the difference is the
//! kept elements and nothing else.
//!
//! The counters are per thread, so the tests may run in parallel.
//! `cargo test -p pool-tests --test nested_decode -- --nocapture` prints
//! the figures.

use pool_core::{Poolable, Pooled};
use pool_suite::alloc::{Counting, on_this_thread};
use serde::Deserialize;

#[path = "support/seeds.rs"]
mod seeds;

#[path = "support/order.rs"]
mod order;
use order::{Order, VecOrder, order_body};

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Warm decodes timed per test.
const ROUNDS: u64 = 1000;

/// Allocations and bytes requested by this thread while `f` runs.
fn allocations<R>(f: impl FnOnce() -> R) -> (u64, u64, R) {
    let (counted, out) = on_this_thread(f);
    (counted.allocs, counted.bytes, out)
}

/// Allocations and bytes per decode of `body` into a `Pooled<T>` once warm,
/// the release (reset, back to this thread's cache) included.
fn warm_decode<T>(body: &[u8], check: impl Fn(&T)) -> (u64, u64)
where
    T: Poolable + for<'de> Deserialize<'de>,
{
    for _ in 0..2 {
        drop(serde_json::from_slice::<Pooled<T>>(body).expect("decodes"));
    }
    let (allocs, bytes, ()) = allocations(|| {
        for _ in 0..ROUNDS {
            let value: Pooled<T> = serde_json::from_slice(body).expect("decodes");
            check(&value);
        }
    });
    (allocs / ROUNDS, bytes / ROUNDS)
}

#[test]
fn a_warm_decode_of_the_seeds_person_allocates_nothing() {
    let body = seeds::seed_payload();
    let per_decode = warm_decode::<seeds::Person>(&body, |person| {
        assert_eq!((person.name.as_str(), person.age), ("萌哦科技", 25));
        assert_eq!(person.remark, [0; 2048]);
    });
    println!("Pooled<Person>, warm: {per_decode:?} (allocs, B) per decode");
    assert_eq!(
        per_decode,
        (0, 0),
        "a warm decode of the seeds' Person allocated"
    );
}

/// Checks a decoded `order_body()`, `Order` or `VecOrder`, without
/// allocating.
macro_rules! check_order {
    ($order:expr) => {{
        let order = $order;
        assert_eq!(order.id, 90_210);
        assert_eq!(order.items.len(), 10);
        assert_eq!(order.items[3].sku, "SKU-00003");
        assert_eq!(order.items[3].name, "Espresso cups, set of 5, stoneware");
        assert_eq!(order.items[9].quantity, 10);
        assert_eq!(order.items[8].tags, ["kitchen", "fragile", "gift-wrap"]);
        assert_eq!(order.items[9].tags, ["kitchen", "fragile"]);
        assert_eq!(order.tags, ["priority", "eu-west"]);
    }};
}

#[test]
fn a_warm_decode_of_a_nested_order_allocates_nothing() {
    let body = order_body();
    let (allocs, bytes) = warm_decode::<Order>(&body, |order| check_order!(order));
    let (fresh_allocs, fresh_bytes, order) =
        allocations(|| serde_json::from_slice::<Order>(&body).expect("decodes"));
    check_order!(&order);
    println!("Order: {} bytes of JSON", body.len());
    println!("Order, fresh:                {fresh_allocs} allocs, {fresh_bytes} B");
    println!("Pooled<Order>, warm:         {allocs} allocs, {bytes} B per decode");
    assert_eq!(
        (allocs, bytes),
        (0, 0),
        "a warm decode of a pooled Order with ReuseVecs allocated"
    );
    assert!(fresh_allocs >= 47, "a fresh Order allocates its 47 strings");
}

#[test]
fn with_vec_instead_every_warm_decode_allocates_the_strings_again() {
    let body = order_body();
    let (allocs, bytes) = warm_decode::<VecOrder>(&body, |order| check_order!(order));
    println!("Pooled<VecOrder>, warm:      {allocs} allocs, {bytes} B per decode");
    // Each line item is new: its two strings, its tags' buffer and strings;
    // the order's tags are new strings in a kept buffer.
    assert!(
        allocs >= 47,
        "{allocs} allocations: the strings are not kept"
    );
}
