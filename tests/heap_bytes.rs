//! `Reset::heap_bytes`, `Reset::HEAP` and `Reset::shrink_to_bytes`: what
//! each type pool-core resets reports, checked against a counting
//! allocator's live bytes where the type's allocation is exact, and the
//! derive's sum over the fields with its attributes.
//!
//! No libtest threads may allocate while a test reads the live bytes, so
//! the checks run in one `main` (`harness = false`).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;

use pool_core::{Heap, Poolable, Reset, ReuseVec};
use pool_suite::alloc::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The live bytes `make` leaves allocated, and what it made.
fn live<T>(make: impl FnOnce() -> T) -> (i64, T) {
    let (usage, value) = ALLOC.measure(make);
    (usage.live, value)
}

/// `heap_bytes` is what the allocator holds for the value, after its reset.
fn exact<T: Reset>(make: impl FnOnce() -> T) {
    let (bytes, mut value) = live(make);
    value.reset();
    assert_eq!(
        value.heap_bytes() as i64,
        bytes,
        "{}",
        std::any::type_name::<T>()
    );
    assert_eq!(T::HEAP, Heap::Counted);
}

fn std_buffers_report_what_the_allocator_holds() {
    exact(|| String::with_capacity(1000));
    exact(|| {
        let mut v = vec![0u64; 100];
        v.reserve_exact(28);
        v
    });
    exact(|| VecDeque::<u32>::with_capacity(77));
    exact(|| Box::new([7u8; 300]));
    exact(|| RefCell::new(String::with_capacity(64)));
    exact(|| Mutex::new(Vec::<u16>::with_capacity(64)));
    exact(|| (String::with_capacity(10), 3u8, vec![1u8; 20]));
    exact(|| [String::with_capacity(8), String::with_capacity(16)]);
    // Kept elements count with their own buffers.
    exact(|| {
        let mut names: ReuseVec<String> = ReuseVec::with_capacity(4);
        for _ in 0..3 {
            names.push_reused().push_str(&"x".repeat(500));
        }
        names
    });
    exact(|| {
        let mut v: smallvec::SmallVec<[u8; 8]> = smallvec::SmallVec::new();
        v.extend_from_slice(&[1; 100]);
        v
    });
    exact(|| bytes::BytesMut::with_capacity(4096));
}

fn values_without_heap_say_so() {
    assert_eq!(<u64 as Reset>::HEAP, Heap::None);
    assert_eq!(<[u8; 2048] as Reset>::HEAP, Heap::None);
    assert_eq!(<(u8, bool, char) as Reset>::HEAP, Heap::None);
    assert_eq!(<Option<Vec<u8>> as Reset>::HEAP, Heap::None);
    assert_eq!([0u8; 2048].heap_bytes(), 0);
}

fn estimates_grow_with_the_collection() {
    let mut map: HashMap<u64, u64> = HashMap::with_capacity(1000);
    let (allocated, _) = live(|| HashMap::<u64, u64>::with_capacity(1000));
    let estimate = map.heap_bytes() as i64;
    // Within a group of control bytes of what std allocated.
    assert!(
        (estimate - allocated).abs() <= 64,
        "{estimate} vs {allocated}"
    );
    let mut tree: BTreeMap<u32, u32> = (0..100).map(|i| (i, i)).collect();
    assert!(tree.heap_bytes() >= 800);
    tree.reset();
    assert_eq!(tree.heap_bytes(), 0);
}

fn buffers_shrink_to_a_budget() {
    let mut body: Vec<u8> = Vec::with_capacity(1 << 20);
    assert!(body.shrink_to_bytes(4096) <= 4096);
    let mut names: ReuseVec<String> = ReuseVec::new();
    for _ in 0..15 {
        names.push_reused().push_str(&"x".repeat(1 << 16));
    }
    names.reset();
    assert!(names.heap_bytes() > 15 << 16);
    let kept = names.shrink_to_bytes(3 << 16);
    assert!(kept <= 3 << 16, "{kept}");
    assert_eq!(kept, names.heap_bytes());
    assert!(names.kept() >= 1, "as many kept strings as fit");
}

/// A field whose bytes the derive cannot know.
#[derive(Clone, Default)]
struct Opaque(Vec<u8>);

fn opaque_bytes(value: &mut Opaque) -> usize {
    value.0.capacity()
}

#[derive(Poolable, Default)]
struct Request {
    name: String,
    id: u64,
    tags: ReuseVec<String>,
    /// Clone-only: its size only.
    opaque: Opaque,
    #[pool(heap_bytes = opaque_bytes)]
    counted: Opaque,
    #[pool(skip)]
    skipped: Vec<u8>,
}

#[derive(Poolable, Default)]
struct Plain {
    id: u64,
    scores: [f32; 8],
}

#[derive(Reset, Default)]
struct Part {
    line: String,
}

fn the_derive_sums_its_fields() {
    assert_eq!(<Request as Reset>::HEAP, Heap::Counted);
    assert_eq!(<Plain as Reset>::HEAP, Heap::None);
    assert_eq!(<Part as Reset>::HEAP, Heap::Counted);
    let mut request = Request {
        name: String::with_capacity(100),
        opaque: Opaque(Vec::with_capacity(1000)),
        counted: Opaque(Vec::with_capacity(50)),
        skipped: Vec::with_capacity(10_000),
        ..Request::default()
    };
    request.tags.push_reused().push_str("abc");
    let tags = request.tags.heap_bytes();
    assert_eq!(request.heap_bytes(), 100 + tags + 50);
    let mut part = Part {
        line: String::with_capacity(9),
    };
    assert_eq!(part.heap_bytes(), 9);
    assert_eq!(
        request.skipped.capacity(),
        10_000,
        "not counted, not touched"
    );
    // Shrinks field by field, each to what the earlier ones left; the
    // user's field is counted, not shrunk, so what is kept may exceed the
    // budget by it (the pool then drops the object).
    request.reset(); // as the pool does, before it shrinks
    request.name.reserve(1 << 20);
    let kept = request.shrink_to_bytes(1024);
    assert_eq!(kept, request.heap_bytes());
    assert!(kept <= 1024 + 50, "{kept}");
    request.counted.0 = Vec::new();
    request.name.reserve(1 << 20);
    let kept = request.shrink_to_bytes(1024);
    assert!(kept <= 1024, "{kept}");
}

fn main() {
    std_buffers_report_what_the_allocator_holds();
    values_without_heap_say_so();
    estimates_grow_with_the_collection();
    buffers_shrink_to_a_budget();
    the_derive_sums_its_fields();
    println!("heap_bytes: ok");
}
