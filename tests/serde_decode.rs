//! Behaviour of the `serde` feature: `Pooled<T>` decodes into an object from
//! `T`'s pool, in place; a failed decode hands nothing out and returns the
//! object to the pool reset; `Serialize` is transparent.
//!
//! Each test has its own types, so its own pools: tests run in parallel and
//! must not hand each other objects. Allocation counts are in
//! `tests/serde_alloc.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pool_core::{Pool, Poolable, Pooled, Reset, ReuseVec, pool};
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

/// Address of the object inside the guard, to tell "the same object" from
/// "an equal one".
fn addr<T: Poolable>(pooled: &Pooled<T>) -> *const T {
    std::ptr::from_ref::<T>(pooled)
}

#[test]
fn decoding_fills_an_object_from_the_pool_in_place() {
    #[derive(Poolable, Default, Deserialize, Debug)]
    struct Request {
        method: String,
        path: String,
        params: Vec<u64>,
    }

    let first: Pooled<Request> = serde_json::from_str(
        r#"{"method": "POST", "path": "/api/v1/people", "params": [1, 2, 3]}"#,
    )
    .unwrap();
    let (object, path, params) = (addr(&first), first.path.as_ptr(), first.params.as_ptr());
    drop(first);

    let second: Pooled<Request> =
        serde_json::from_str(r#"{"method": "GET", "path": "/api", "params": [4]}"#).unwrap();
    assert_eq!(addr(&second), object, "the pool's object, not a new one");
    assert_eq!(
        second.path.as_ptr(),
        path,
        "`String` decoded into its buffer"
    );
    assert_eq!(
        second.params.as_ptr(),
        params,
        "`Vec` decoded into its buffer"
    );
    assert_eq!(
        (second.method.as_str(), second.path.as_str()),
        ("GET", "/api")
    );
    assert_eq!(second.params, [4]);

    let stats = Request::pool().stats();
    assert_eq!((stats.created, stats.hits_local), (1, 1));
}

#[test]
fn a_failed_decode_returns_nothing_and_gives_the_object_back_reset() {
    #[derive(Poolable, Default, Deserialize, Debug)]
    struct Person {
        name: String,
        age: i32,
        tags: Vec<String>,
    }

    let warm: Pooled<Person> =
        serde_json::from_str(r#"{"name": "", "age": 0, "tags": []}"#).unwrap();
    let object = addr(&warm);
    drop(warm);

    // `name`, `age` and `tags` are filled before the trailing garbage fails.
    let err = serde_json::from_str::<Pooled<Person>>(
        r#"{"name": "Ada Lovelace", "age": 36, "tags": ["math"]} trailing"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("trailing characters"), "{err}");
    // A type error halfway through.
    let err =
        serde_json::from_str::<Pooled<Person>>(r#"{"name": "Grace", "age": "old"}"#).unwrap_err();
    assert!(err.is_data(), "{err}");

    let stats = Person::pool().stats();
    assert_eq!(stats.in_use(), 0, "no guard escaped");
    assert_eq!(stats.returned, 3, "both half-filled objects went back");
    assert_eq!(stats.discarded, 0);

    let person = Person::acquire();
    assert_eq!(addr(&person), object, "the same object, reused");
    assert!(person.name.is_empty(), "reset on its way back");
    assert_eq!(person.age, 0);
    assert!(person.tags.is_empty());
    assert!(
        person.name.capacity() >= "Ada Lovelace".len(),
        "buffer kept"
    );
}

#[test]
fn a_panic_while_decoding_discards_the_object() {
    /// A field whose decoder panics on a negative number.
    #[derive(Default)]
    struct Fussy(i64);

    impl<'de> Deserialize<'de> for Fussy {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let n = i64::deserialize(deserializer)?;
            assert!(n >= 0, "a negative number");
            Ok(Fussy(n))
        }
    }

    #[derive(Poolable, Default, Deserialize)]
    struct Reading {
        label: String,
        #[pool(default)]
        value: Fussy,
    }

    let result = catch_unwind(AssertUnwindSafe(|| {
        serde_json::from_str::<Pooled<Reading>>(r#"{"label": "t", "value": -1}"#)
    }));
    assert!(result.is_err());
    let stats = Reading::pool().stats();
    assert_eq!(stats.discarded, 1, "a panic drops the half-filled object");
    assert_eq!((stats.returned, stats.in_use()), (0, 0));

    let reading: Pooled<Reading> = serde_json::from_str(r#"{"label": "t", "value": 5}"#).unwrap();
    assert_eq!((reading.label.as_str(), reading.value.0), ("t", 5));
}

#[test]
fn without_in_place_support_the_value_is_replaced_and_still_pooled() {
    /// A hand-written `Deserialize` with no `deserialize_in_place`: serde's
    /// default decodes a fresh value and assigns it.
    #[derive(Default)]
    struct Opaque {
        text: String,
    }

    impl<'de> Deserialize<'de> for Opaque {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = String::deserialize(deserializer)?;
            if text.is_empty() {
                return Err(D::Error::custom("empty"));
            }
            Ok(Opaque { text })
        }
    }

    impl pool_core::Reset for Opaque {
        fn reset(&mut self) {
            self.text.clear();
        }
    }

    impl Poolable for Opaque {
        fn create() -> Self {
            Opaque::default()
        }
        fn pool() -> &'static Pool<Self> {
            pool! { static POOL: Pool<Opaque> = Pool::new(Opaque::create); }
            &POOL
        }
    }

    let first: Pooled<Opaque> = serde_json::from_str(r#""first""#).unwrap();
    let object = addr(&first);
    drop(first);
    let second: Pooled<Opaque> = serde_json::from_str(r#""second""#).unwrap();
    assert_eq!(second.text, "second");
    assert_eq!(addr(&second), object, "the object is still the pool's");
    drop(second);

    assert!(serde_json::from_str::<Pooled<Opaque>>(r#""""#).is_err());
    assert_eq!(Opaque::pool().stats().in_use(), 0);
}

#[test]
fn fields_the_input_leaves_out_keep_their_reset_state() {
    fn reset_retries(retries: &mut u8) {
        *retries = 3;
    }

    #[derive(Poolable, Deserialize)]
    #[pool(new = Job::new)]
    struct Job {
        name: String,
        #[serde(default)]
        priority: u8,
        nickname: Option<String>,
        /// Not in the input: keeps what reset left, not `Default`.
        #[serde(skip)]
        #[pool(reset = reset_retries)]
        retries: u8,
    }

    impl Job {
        fn new() -> Self {
            Job {
                name: String::new(),
                priority: 0,
                nickname: None,
                retries: 3,
            }
        }
    }

    let mut job: Pooled<Job> =
        serde_json::from_str(r#"{"name": "a", "priority": 9, "nickname": "x"}"#).unwrap();
    job.retries = 0;
    drop(job);

    let job: Pooled<Job> = serde_json::from_str(r#"{"name": "b"}"#).unwrap();
    assert_eq!(job.name, "b");
    assert_eq!(job.priority, 0, "`#[serde(default)]` applies");
    assert_eq!(job.nickname, None, "a missing `Option` is `None`");
    assert_eq!(job.retries, 3, "a skipped field keeps its reset value");
}

#[test]
fn serialize_is_transparent() {
    #[derive(Poolable, Default, Serialize, Deserialize, Debug, PartialEq)]
    struct Point {
        x: i32,
        y: i32,
        label: String,
    }

    let mut point = Point::acquire();
    point.x = 3;
    point.y = -4;
    point.label.push('p');
    let json = serde_json::to_string(&point).unwrap();
    assert_eq!(json, serde_json::to_string(&*point).unwrap());
    assert_eq!(json, r#"{"x":3,"y":-4,"label":"p"}"#);
    drop(point);

    let back: Pooled<Point> = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);

    // Any pool's guard serializes, named pools included.
    pool! { static WORDS: Pool<Vec<String>> = Pool::new(Vec::new); }
    let mut words = WORDS.acquire();
    words.push("hi".into());
    assert_eq!(serde_json::to_string(&words).unwrap(), r#"["hi"]"#);
}

#[test]
fn a_guard_decoded_in_place_keeps_its_object() {
    #[derive(Poolable, Default, Deserialize)]
    struct Line {
        text: String,
    }

    let mut lines: Vec<Pooled<Line>> =
        serde_json::from_str(r#"[{"text": "a"}, {"text": "b"}]"#).unwrap();
    let objects: Vec<_> = lines.iter().map(addr).collect();

    // Decoding a `Vec` in place decodes its existing elements in place:
    // `Pooled<Line>` forwards to `Line`, so no object changes hands.
    let mut de = serde_json::Deserializer::from_str(r#"[{"text": "c"}, {"text": "d"}]"#);
    Deserialize::deserialize_in_place(&mut de, &mut lines).unwrap();
    de.end().unwrap();
    assert_eq!(lines.iter().map(addr).collect::<Vec<_>>(), objects);
    assert_eq!((lines[0].text.as_str(), lines[1].text.as_str()), ("c", "d"));
    assert_eq!(Line::pool().stats().acquired(), 2);
}

/// A part of a pooled object, as a `ReuseVec` element.
#[derive(Reset, Deserialize, Serialize, Default, Debug, PartialEq)]
struct Line {
    sku: String,
    quantity: u32,
}

#[test]
fn a_reuse_vec_decodes_into_its_kept_elements_first() {
    let mut lines: ReuseVec<Line> =
        serde_json::from_str(r#"[{"sku": "A-1", "quantity": 2}, {"sku": "B-22", "quantity": 1}]"#)
            .unwrap();
    let buffers: Vec<_> = lines.iter().map(|line| line.sku.as_ptr()).collect();
    lines.reset();
    assert_eq!(lines.kept(), 2);

    // Three lines: two into the kept ones, one made.
    let mut de = serde_json::Deserializer::from_str(
        r#"[{"sku": "C", "quantity": 5}, {"sku": "D", "quantity": 6}, {"sku": "E", "quantity": 7}]"#,
    );
    ReuseVec::deserialize_in_place(&mut de, &mut lines).unwrap();
    let skus: Vec<_> = lines.iter().map(|line| line.sku.as_str()).collect();
    assert_eq!(skus, ["C", "D", "E"]);
    assert_eq!(lines[2].quantity, 7);
    assert_eq!(
        [lines[0].sku.as_ptr(), lines[1].sku.as_ptr()],
        buffers[..],
        "decoded into the kept strings"
    );

    // One line into three live ones: the other two are reset and kept.
    let mut de = serde_json::Deserializer::from_str(r#"[{"sku": "F", "quantity": 8}]"#);
    ReuseVec::deserialize_in_place(&mut de, &mut lines).unwrap();
    assert_eq!(
        lines,
        [Line {
            sku: "F".into(),
            quantity: 8
        }]
    );
    assert_eq!(lines.kept(), 2);
    for _ in 0..2 {
        let _ = lines.push_reused();
    }
    assert!(lines[1..].iter().all(|line| *line == Line::default()));

    assert_eq!(
        serde_json::to_string(&lines).unwrap(),
        r#"[{"sku":"F","quantity":8},{"sku":"","quantity":0},{"sku":"","quantity":0}]"#
    );
}

#[test]
fn a_reuse_vec_decode_that_fails_keeps_no_half_filled_element() {
    let mut lines: ReuseVec<Line> = ReuseVec::new();
    for _ in 0..3 {
        lines.push_reused();
    }
    lines.clear();

    // The second element fails after its `sku` was written.
    let mut de = serde_json::Deserializer::from_str(
        r#"[{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": "x"}]"#,
    );
    assert!(ReuseVec::deserialize_in_place(&mut de, &mut lines).is_err());
    assert_eq!(lines.len(), 2, "the element that failed counts as live");

    lines.reset();
    assert_eq!(lines.kept(), 3);
    for _ in 0..3 {
        assert_eq!(
            *lines.push_reused(),
            Line::default(),
            "every kept element reset"
        );
    }
}
