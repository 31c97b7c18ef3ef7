//! Behaviour of `#[derive(Poolable)]`: after a release and a reacquire on
//! the same thread (which returns the same object: the thread cache is a
//! stack), every field is reset as its attributes say.
//!
//! Each test has its own struct type, so its own pool: tests run in
//! parallel and must not hand each other objects.

#![warn(clippy::pedantic)]

use std::collections::{HashMap, VecDeque};

use pool_core::{Poolable, Pooled, Reset, ReuseVec};

#[derive(Debug, Default, PartialEq, Clone, Copy)]
enum Mode {
    #[default]
    Idle,
    Busy,
}

fn reset_scores(scores: &mut [f32; 4]) {
    *scores = [1.0; 4];
}

/// The struct of the issue, every field attribute at once.
#[derive(Poolable, Default)]
#[pool(capacity = 1024, thread_capacity = 32)]
struct Request {
    name: String,
    age: u32,
    tags: Vec<String>,
    #[pool(max_capacity = 64)]
    body: Vec<u8>,
    #[pool(skip)]
    id: u64,
    #[pool(default)]
    mode: Mode,
    #[pool(reset = reset_scores)]
    scores: [f32; 4],
}

/// Address of the object inside the guard, to tell "the same object" from
/// "an equal one".
fn addr<T: Poolable>(pooled: &Pooled<T>) -> *const T {
    std::ptr::from_ref::<T>(pooled)
}

#[test]
#[allow(clippy::float_cmp, reason = "`reset_scores` sets exact values")]
fn every_field_is_reset_as_its_attribute_says() {
    let mut req = Request::acquire();
    let first = addr(&req);
    req.name.push_str("Ada Lovelace");
    req.age = 36;
    req.tags.push("math".into());
    req.body.extend_from_slice(&[7; 16]);
    req.id = 42;
    req.mode = Mode::Busy;
    req.scores = [9.0; 4];
    let name_ptr = req.name.as_ptr();
    let tags_ptr = req.tags.as_ptr();
    let body_ptr = req.body.as_ptr();
    drop(req);

    let req = Request::acquire();
    assert_eq!(
        addr(&req),
        first,
        "the thread cache hands back the same object"
    );
    assert!(req.name.is_empty());
    assert_eq!(req.name.as_ptr(), name_ptr, "`String` keeps its buffer");
    assert_eq!(req.age, 0);
    assert!(req.tags.is_empty());
    assert_eq!(req.tags.as_ptr(), tags_ptr, "`Vec` keeps its buffer");
    assert!(req.body.is_empty());
    assert_eq!(
        req.body.as_ptr(),
        body_ptr,
        "a buffer within `max_capacity` is kept"
    );
    assert_eq!(req.id, 42, "`skip` keeps the value");
    assert_eq!(req.mode, Mode::Idle, "`default` sets `Default::default()`");
    assert_eq!(req.scores, [1.0; 4], "`reset = path` calls the function");
}

#[test]
fn a_buffer_past_max_capacity_is_shrunk_and_emptied() {
    #[derive(Poolable, Default)]
    struct Upload {
        #[pool(max_capacity = 1024)]
        bytes: Vec<u8>,
        #[pool(max_capacity = 16)]
        text: String,
        #[pool(max_capacity = 8)]
        queue: VecDeque<u32>,
        #[pool(max_capacity = 8)]
        index: HashMap<u32, u32>,
    }

    let mut upload = Upload::acquire();
    upload.bytes.resize(1 << 16, 0xAB);
    upload.text.push_str(&"x".repeat(4096));
    upload.queue.extend(0..1000);
    upload.index.extend((0..1000).map(|i| (i, i)));
    drop(upload);

    let upload = Upload::acquire();
    assert!(upload.bytes.is_empty() && upload.text.is_empty());
    assert!(upload.queue.is_empty() && upload.index.is_empty());
    assert!(
        upload.bytes.capacity() <= 1024,
        "{}",
        upload.bytes.capacity()
    );
    assert!(upload.text.capacity() <= 16, "{}", upload.text.capacity());
    assert!(
        upload.queue.capacity() < 1000,
        "{}",
        upload.queue.capacity()
    );
    assert!(
        upload.index.capacity() < 1000,
        "{}",
        upload.index.capacity()
    );
}

/// A part of a pooled object, as a `ReuseVec` element.
#[derive(Reset, Default)]
struct Part {
    name: String,
    count: u32,
}

#[test]
fn a_reuse_vec_field_keeps_its_elements_reset_within_max_capacity() {
    #[derive(Poolable, Default)]
    struct Order {
        parts: ReuseVec<Part>,
        #[pool(max_capacity = 2)]
        tags: ReuseVec<String>,
    }

    let mut order = Order::acquire();
    for i in 0..3 {
        let part = order.parts.push_reused();
        part.name.push_str("a part with a name");
        part.count = i + 1;
    }
    for _ in 0..5 {
        order.tags.push_reused().push_str("tag");
    }
    let buffers: Vec<_> = order.parts.iter().map(|p| p.name.as_ptr()).collect();
    let object = addr(&order);
    drop(order);

    let mut order = Order::acquire();
    assert_eq!(addr(&order), object);
    assert!(order.parts.is_empty() && order.tags.is_empty());
    assert_eq!(order.parts.kept(), 3, "every part kept");
    assert_eq!(order.tags.kept(), 2, "no more tags kept than max_capacity");
    for buffer in buffers {
        let part = order.parts.push_reused();
        assert_eq!((part.name.as_str(), part.count), ("", 0), "reset in place");
        assert_eq!(part.name.as_ptr(), buffer, "with its buffer");
    }
}

#[test]
fn a_custom_reset_and_max_capacity_combine() {
    fn keep_header(bytes: &mut Vec<u8>) {
        bytes.truncate(4);
    }

    #[derive(Poolable, Default)]
    struct Packet {
        #[pool(reset = keep_header, max_capacity = 64)]
        bytes: Vec<u8>,
    }

    let mut packet = Packet::acquire();
    packet.bytes.extend_from_slice(b"HEADpayload");
    packet.bytes.reserve(10_000);
    drop(packet);

    let packet = Packet::acquire();
    assert_eq!(packet.bytes, b"HEAD");
    assert!(packet.bytes.capacity() <= 64);
}

#[test]
fn new_objects_come_from_the_named_constructor() {
    #[derive(Poolable)]
    #[pool(new = Frame::with_buffer)]
    struct Frame {
        bytes: Vec<u8>,
    }

    impl Frame {
        fn with_buffer() -> Self {
            Frame {
                bytes: Vec::with_capacity(4096),
            }
        }
    }

    let frame = Frame::acquire();
    assert!(frame.bytes.capacity() >= 4096);
    assert_eq!(Frame::pool().stats().created, 1);
}

#[test]
fn tuple_structs_reset_by_position() {
    #[derive(Poolable, Default)]
    struct Pair(String, #[pool(skip)] u8, u16);

    let mut pair = Pair::acquire();
    pair.0.push_str("left");
    pair.1 = 7;
    pair.2 = 9;
    let ptr = pair.0.as_ptr();
    drop(pair);

    let pair = Pair::acquire();
    assert!(pair.0.is_empty());
    assert_eq!(pair.0.as_ptr(), ptr);
    assert_eq!((pair.1, pair.2), (7, 0));
}

#[test]
fn unit_structs_are_pooled() {
    #[derive(Poolable, Default, Debug, PartialEq)]
    struct Token;

    let mut token = Token::acquire();
    token.reset();
    assert_eq!(*token, Token);
    drop(token);
    assert_eq!(Token::pool().stats().created, 1);
}

#[test]
fn a_derived_struct_is_reset_as_a_field_of_another() {
    #[derive(Poolable, Default)]
    struct Header {
        name: String,
        value: String,
        #[pool(skip)]
        slot: usize,
    }

    #[derive(Poolable, Default)]
    struct Message {
        header: Header,
        headers: Vec<Header>,
        body: Vec<u8>,
    }

    let mut message = Message::acquire();
    message.header.name.push_str("Host");
    message.header.value.push_str("example.org");
    message.header.slot = 3;
    message.headers.push(Header::default());
    message.body.push(1);
    let name_ptr = message.header.name.as_ptr();
    drop(message);

    let message = Message::acquire();
    assert!(message.header.name.is_empty() && message.header.value.is_empty());
    assert_eq!(
        message.header.name.as_ptr(),
        name_ptr,
        "nested buffers are kept"
    );
    assert_eq!(message.header.slot, 3, "nested `skip` is honoured");
    assert!(message.headers.is_empty() && message.body.is_empty());
}

#[test]
fn capacities_from_constants_configure_the_pool() {
    const SHARED: usize = 0;
    const PER_THREAD: usize = 1;

    #[derive(Poolable, Default)]
    #[pool(capacity = SHARED, thread_capacity = PER_THREAD)]
    struct Tiny {
        n: u8,
    }

    // One idle object per thread, none shared: a second release is dropped.
    let (a, b) = (Tiny::acquire(), Tiny::acquire());
    drop(a);
    drop(b);
    let stats = Tiny::pool().stats();
    assert_eq!(stats.created, 2);
    assert_eq!(stats.idle, 1, "{stats:?}");
    let _ = Tiny::acquire().n;
}

#[test]
fn the_pool_is_one_static_per_type() {
    #[derive(Poolable, Default)]
    struct Once {
        n: u8,
    }

    assert!(std::ptr::eq(Once::pool(), Once::pool()));
    let _ = Once::acquire().n;
}
