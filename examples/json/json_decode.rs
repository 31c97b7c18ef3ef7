//! Go's `encoding/json` pool benchmark, in Rust: decode a JSON body into a struct that carries a
//! byte array, with and without the pool, next to Go's published figures.
//!
//! ```text
//! cargo run --release --manifest-path examples/json/Cargo.toml --example json_decode
//! ```
//!
//! One decodes `Person { Name, Age, Remark [2048]byte }`, the other
//! `Student { ..., Remark [1024]byte }`, each from the output of Go's
//! `json.Marshal`, in which a byte *array* is a JSON array of numbers (only
//! byte *slices* become base64). The bodies here are built the same way:
//! `{"Name":"萌哦科技","Age":25,"Remark":[0,0,...,0]}`, and `remark` is a
//! `[u8; N]` filled from that array, as Go fills its `[N]byte` (serde's own
//! array impls stop at 32 elements, hence `byte_array` below). Unlike Go's
//! decoder, keys match exactly and a missing field is an error: serde's
//! defaults.
//!
//! For each struct the table shows ns, bytes and heap allocations per decode
//! (counted by a global allocator, like `go test -benchmem`) for three ways:
//! a new boxed struct per decode (what Go's `new(Person)` does, the array
//! included), a new struct on the stack (what `serde_json::from_slice`
//! gives, and what Go's escape analysis cannot), and `Person::acquire()`
//! decoded into with serde's `deserialize_in_place`. Look at B/op and
//! allocs/op: the pooled decode allocates nothing, because the struct and
//! its `name` buffer are reused. Go's rows are copied from the articles,
//! measured on their machines with Go's reflection-based decoder; they show
//! the shape of the change, not a speed to compare with.
//!
//! `#[derive(Deserialize)]` writes a field-by-field `deserialize_in_place`
//! (so `name` is cleared and refilled, keeping its buffer) only with
//! serde_derive's `deserialize_in_place` feature, which pool-core's `serde`
//! feature turns on (examples/json/Cargo.toml). Without it serde decodes a fresh value and assigns
//! it, the pooled row shows one allocation per decode, and the example says
//! so.

use std::fmt;
use std::hint::black_box;
use std::time::Instant;

use pool_core::{Poolable, Pooled};
use pool_suite::alloc::Counting;
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Serialize as _};

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The `Person` of Go's `encoding/json` pool benchmark, with Go's field names in the JSON. `[u8; 2048]` has no
/// `Default`, hence `new`; the derived reset clears `name` (keeping its
/// buffer) and zeroes `age` and `remark`.
#[derive(Poolable, Deserialize)]
#[pool(new = Person::blank)]
#[serde(rename_all = "PascalCase")]
struct Person {
    name: String,
    age: i32,
    #[serde(deserialize_with = "byte_array")]
    remark: [u8; 2048],
}

/// The `Student` of the second Go benchmark.
#[derive(Poolable, Deserialize)]
#[pool(new = Student::blank)]
#[serde(rename_all = "PascalCase")]
struct Student {
    name: String,
    age: i32,
    #[serde(deserialize_with = "byte_array")]
    remark: [u8; 1024],
}

impl Person {
    fn blank() -> Self {
        Person {
            name: String::new(),
            age: 0,
            remark: [0; 2048],
        }
    }
}

impl Student {
    fn blank() -> Self {
        Student {
            name: String::new(),
            age: 0,
            remark: [0; 1024],
        }
    }
}

/// Go's `[N]byte` in JSON, an array of numbers, into `[u8; N]`. Like Go, a
/// short array is zero-filled and extra elements are skipped. The array is
/// returned by value and copied into place: no heap involved.
fn byte_array<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<[u8; N], D::Error> {
    struct Bytes<const N: usize>;
    impl<'de, const N: usize> Visitor<'de> for Bytes<N> {
        type Value = [u8; N];
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "an array of at most {N} bytes")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u8; N], A::Error> {
            let mut bytes = [0; N];
            for slot in &mut bytes {
                match seq.next_element()? {
                    Some(byte) => *slot = byte,
                    None => break,
                }
            }
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(bytes)
        }
    }
    d.deserialize_seq(Bytes::<N>)
}

// ---------------------------------------------------------------------------
// The benchmark.
// ---------------------------------------------------------------------------

/// What Go's `json.Marshal` writes for the benchmark's value: fields in
/// declaration order, the byte array as numbers.
fn go_marshal(name: &str, age: i32, remark_len: usize) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(b"{\"Name\":");
    name.serialize(&mut serde_json::Serializer::new(&mut body))
        .unwrap();
    body.extend_from_slice(format!(",\"Age\":{age},\"Remark\":[").as_bytes());
    for i in 0..remark_len {
        body.extend_from_slice(if i == 0 { b"0" } else { b",0" });
    }
    body.extend_from_slice(b"]}");
    body
}

/// Decodes `body` into `place` in place, checking there is nothing after it.
fn decode_into<'de, T: Deserialize<'de>>(body: &'de [u8], place: &mut T) {
    let mut de = serde_json::Deserializer::from_slice(body);
    T::deserialize_in_place(&mut de, place).expect("valid body");
    de.end().expect("nothing after the object");
}

/// Timed runs per row.
const RUNS: u64 = 3;

struct Measured {
    ns: f64,
    bytes: f64,
    allocs: f64,
}

/// Runs `f` `iterations` times, three times over after a warm-up; time is
/// the best of the three runs (the least disturbed by other work on the
/// machine), bytes and allocations the average over all of them.
fn measure(iterations: u64, mut f: impl FnMut()) -> Measured {
    for _ in 0..iterations / 10 {
        f(); // warm up: fill the pool, settle the allocator and caches
    }
    let before = ALLOC.counts();
    let mut best = f64::INFINITY;
    for _ in 0..RUNS {
        let start = Instant::now();
        for _ in 0..iterations {
            f();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / iterations as f64);
    }
    let per = |now: u64, before: u64| (now - before) as f64 / (RUNS * iterations) as f64;
    Measured {
        ns: best,
        bytes: per(ALLOC.counts().bytes, before.bytes),
        allocs: per(ALLOC.counts().allocs, before.allocs),
    }
}

fn row(label: &str, m: &Measured) {
    println!(
        "  {label:<48}{:>10.0}{:>10.1}{:>11.2}",
        m.ns, m.bytes, m.allocs
    );
}

/// A pooled decode that allocates means `deserialize_in_place` is serde's
/// default (decode a fresh value, assign it), not the derived field-by-field one.
fn in_place_check(pooled: &Measured) {
    if pooled.allocs > 0.5 {
        println!(
            "  ! the pooled decode allocated: serde_derive's `deserialize_in_place` feature\n    \
             looks off (check: cargo tree -e features -i serde_derive)"
        );
    }
}

/// Go's rows, copied from the article: `(label, ns/op, B/op, allocs/op)`.
type GoRow = (&'static str, u64, u64, u64);

fn go_rows(source: &str, rows: [GoRow; 2]) {
    println!("  Go, from {source} (not measured here):");
    for (label, ns, bytes, allocs) in rows {
        println!("  {label:<48}{ns:>10}{bytes:>10}{allocs:>11}");
    }
}

/// Runs the three measured ways for one benchmark struct.
fn bench<T>(body: &[u8], iterations: u64) -> [Measured; 3]
where
    T: Poolable + for<'de> Deserialize<'de>,
{
    let boxed = measure(iterations, || {
        let mut value = Box::new(T::create());
        decode_into(body, &mut *value);
        black_box(&value);
    });
    let stack = measure(iterations, || {
        let value: T = serde_json::from_slice(body).expect("valid body");
        black_box(&value);
    });
    let pooled = measure(iterations, || {
        let mut value: Pooled<T> = T::acquire();
        decode_into(body, &mut *value);
        black_box(&*value);
    });
    [boxed, stack, pooled]
}

fn main() {
    let iterations = 20_000;
    println!(
        "json_decode: {RUNS} x {iterations} decodes per row; ns/op: best of {RUNS} runs on a shared\n\
         2-core machine; B/op and allocs/op: counted by the global allocator (like -benchmem)\n"
    );
    println!(
        "  {:<48}{:>10}{:>10}{:>11}",
        "", "ns/op", "B/op", "allocs/op"
    );

    // Person, 2 KiB remark.
    let body = go_marshal("萌哦科技", 25, 2048);
    let mut check = Person::acquire();
    decode_into(&body, &mut *check);
    assert_eq!((check.name.as_str(), check.age), ("萌哦科技", 25));
    drop(check);
    println!(
        "Person {{ name, age, remark: [u8; 2048] }}, body {} bytes",
        body.len()
    );
    let [boxed, stack, pooled] = bench::<Person>(&body, iterations);
    in_place_check(&pooled);
    row("Box::new(Person) per decode (Go's new)", &boxed);
    row("serde_json::from_slice, on the stack", &stack);
    row("Person::acquire() + deserialize_in_place", &pooled);
    go_rows(
        "Go, encoding/json + sync.Pool (i9-9900K)",
        [
            ("without pool: new(Person)", 149_088, 2552, 7),
            ("with sync.Pool", 146_002, 248, 6),
        ],
    );
    let stats = Person::pool().stats();
    println!(
        "  pool: created {}, reused {}, idle {}\n",
        stats.created,
        stats.reused(),
        stats.idle
    );

    // Student, 1 KiB remark.
    let body = go_marshal("lxy", 18, 1024);
    println!(
        "Student {{ name, age, remark: [u8; 1024] }}, body {} bytes",
        body.len()
    );
    let [boxed, stack, pooled] = bench::<Student>(&body, iterations);
    in_place_check(&pooled);
    row("Box::new(Student) per decode (Go's &Student{})", &boxed);
    row("serde_json::from_slice, on the stack", &stack);
    row("Student::acquire() + deserialize_in_place", &pooled);
    go_rows(
        "Go, encoding/json + sync.Pool (i5-1135G7)",
        [
            ("without pool: &Student{}", 74_103, 1392, 8),
            ("with sync.Pool", 71_173, 240, 7),
        ],
    );
    let stats = Student::pool().stats();
    println!(
        "  pool: created {}, reused {}, idle {}",
        stats.created,
        stats.reused(),
        stats.idle
    );
}
