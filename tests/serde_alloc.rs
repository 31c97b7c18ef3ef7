//! Heap allocations of decoding with serde into `Pooled<T>`, counted by a
//! global allocator: the Rust form of the seeds' `json.Unmarshal(buf,
//! pooledObj)` benchmark (`Person{Name, Age, Remark [2048]byte}`: Go went
//! from 2552 B/op and 7 allocs/op to 248 B/op and 6 allocs/op with a pool).
//!
//! A warm decode into a pooled object must allocate nothing at all, and the
//! types that the crate docs say fall back to fresh values must allocate.
//! This binary holds only these tests because the allocator is global;
//! the counters are per thread, so tests running in parallel do not see
//! each other's allocations.
//!
//! `cargo test -p pool-tests --test serde_alloc -- --nocapture` prints the figures.

use std::collections::HashMap;

use pool_core::{Poolable, Pooled};
use pool_suite::alloc::{Counting, on_this_thread};
use serde::Deserialize;

#[path = "support/seeds.rs"]
mod seeds;

use seeds::{Person, seed_payload};

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// Allocations and bytes requested by this thread while `f` runs.
fn allocations<R>(f: impl FnOnce() -> R) -> (u64, u64, R) {
    let (counted, out) = on_this_thread(f);
    (counted.allocs, counted.bytes, out)
}

#[test]
fn a_warm_decode_of_the_seed_payload_allocates_nothing() {
    let payload = seed_payload();
    assert!(payload.starts_with("{\"name\":\"萌哦科技\",\"age\":25,\"remark\":[0,0,".as_bytes()));

    // Cold: the pool makes the object (and this thread's cache); the decode
    // allocates the name's buffer.
    let (cold_allocs, cold_bytes, person) =
        allocations(|| serde_json::from_slice::<Pooled<Person>>(&payload).expect("decodes"));
    assert_eq!(person.name, "萌哦科技");
    assert_eq!(person.age, 25);
    assert_eq!(person.remark, [0; 2048]);
    drop(person);

    // Warm: the same object, its name buffer kept, decoded in place; the
    // release (reset, back to this thread's cache) is counted too.
    let rounds = 1000;
    let (warm_allocs, warm_bytes, ()) = allocations(|| {
        for _ in 0..rounds {
            let person: Pooled<Person> = serde_json::from_slice(&payload).expect("decodes");
            assert_eq!(person.age, 25);
        }
    });

    // For comparison: decoding a fresh `Person`, and a fresh boxed one (the
    // Go benchmark's `new(Person)`).
    let (plain_allocs, plain_bytes, _) =
        allocations(|| serde_json::from_slice::<Person>(&payload).expect("decodes"));
    let (boxed_allocs, boxed_bytes, _) =
        allocations(|| serde_json::from_slice::<Box<Person>>(&payload).expect("decodes"));

    println!("seed payload: {} bytes of JSON", payload.len());
    println!("Box<Person>:              {boxed_allocs} allocs, {boxed_bytes} B");
    println!("Person (on the stack):    {plain_allocs} allocs, {plain_bytes} B");
    println!("Pooled<Person>, cold:     {cold_allocs} allocs, {cold_bytes} B");
    println!(
        "Pooled<Person>, warm:     {} allocs/op, {} B/op",
        warm_allocs / rounds,
        warm_bytes / rounds
    );

    assert_eq!(
        (warm_allocs, warm_bytes),
        (0, 0),
        "a warm decode into a pooled Person allocated"
    );
    assert!(plain_allocs >= 1 && boxed_allocs > plain_allocs);
    assert_eq!(Person::pool().stats().created, 1);
}

/// A request whose children come from their own pools (in a `Vec` and an
/// `Option`), with a nested struct decoded in place.
#[derive(Poolable, Default, Deserialize)]
struct Batch {
    id: u64,
    origin: Origin,
    reply_to: Option<Pooled<Origin>>,
    items: Vec<Pooled<Item>>,
}

#[derive(Poolable, Default, Deserialize)]
struct Origin {
    host: String,
    port: u16,
}

#[derive(Poolable, Default, Deserialize)]
struct Item {
    sku: String,
    quantity: u32,
    tags: Vec<u16>,
}

#[test]
fn pooled_children_make_a_warm_nested_decode_allocate_nothing() {
    let payload = br#"{"id": 7, "origin": {"host": "shop.example", "port": 443},
        "reply_to": {"host": "hooks.example", "port": 8443}, "items": [
        {"sku": "A-1", "quantity": 2, "tags": [1, 2]},
        {"sku": "B-22", "quantity": 1, "tags": []},
        {"sku": "C-333", "quantity": 5, "tags": [3]}
    ]}"#;
    for _ in 0..2 {
        drop(serde_json::from_slice::<Pooled<Batch>>(payload).expect("decodes"));
    }

    let (allocs, bytes, batch) =
        allocations(|| serde_json::from_slice::<Pooled<Batch>>(payload).expect("decodes"));
    assert_eq!(batch.origin.host, "shop.example");
    assert_eq!(batch.reply_to.as_ref().map(|r| r.port), Some(8443));
    assert_eq!(batch.items.len(), 3);
    assert_eq!(batch.items[2].sku, "C-333");
    assert_eq!(batch.items[0].tags, [1, 2]);
    let (release_allocs, _, ()) = allocations(|| drop(batch));

    assert_eq!(
        (allocs, bytes, release_allocs),
        (0, 0, 0),
        "a warm decode of a batch of pooled items allocated"
    );
}

#[derive(Default, Deserialize)]
#[allow(dead_code, reason = "only decoded, to count what it allocates")]
enum Shape {
    #[default]
    Unnamed,
    Named(String),
}

/// Fields the crate docs say are decoded to a fresh value each time.
#[derive(Poolable, Default, Deserialize)]
struct Fallbacks {
    nickname: Option<String>,
    #[pool(default)]
    shape: Shape,
    headers: HashMap<String, String>,
    boxed: Box<u64>,
    words: Vec<String>,
    text: String,
}

#[test]
fn documented_fallbacks_allocate_on_every_decode() {
    fn warm_allocations(payload: &[u8]) -> u64 {
        for _ in 0..2 {
            drop(serde_json::from_slice::<Pooled<Fallbacks>>(payload).expect("decodes"));
        }
        allocations(|| drop(serde_json::from_slice::<Pooled<Fallbacks>>(payload).expect("decodes")))
            .0
    }

    let empty = br#"{"nickname": null, "shape": "Unnamed", "headers": {}, "boxed": 1, "words": [], "text": ""}"#;
    let baseline = warm_allocations(empty);
    println!("Fallbacks, warm, nothing to allocate for: {baseline} allocs");

    for (what, payload) in [
        (
            "Option<String>",
            &br#"{"nickname": "Ada", "shape": "Unnamed", "headers": {}, "boxed": 1, "words": [], "text": ""}"#[..],
        ),
        (
            "an enum",
            br#"{"nickname": null, "shape": {"Named": "square"}, "headers": {}, "boxed": 1, "words": [], "text": ""}"#,
        ),
        (
            "HashMap",
            br#"{"nickname": null, "shape": "Unnamed", "headers": {"a": "b"}, "boxed": 1, "words": [], "text": ""}"#,
        ),
        (
            "Vec<String> elements",
            br#"{"nickname": null, "shape": "Unnamed", "headers": {}, "boxed": 1, "words": ["x"], "text": ""}"#,
        ),
        (
            "an escaped string (serde_json's scratch buffer)",
            br#"{"nickname": null, "shape": "Unnamed", "headers": {}, "boxed": 1, "words": [], "text": "a\nb"}"#,
        ),
    ] {
        let allocs = warm_allocations(payload);
        println!("Fallbacks, warm, with {what}: {allocs} allocs");
        assert!(allocs > baseline, "{what}: expected a fresh allocation");
    }
    // `Box<u64>` is decoded into a new box every time.
    assert_eq!(baseline, 1, "the boxed field's new box");
}
