//! A reused object is what the constructor made: `#[derive(Poolable)]`'s
//! reset gives back the constructor's values, not only each field's reset
//! value, whether the constructor is a derived `Default`, a hand-written
//! one, or `#[pool(new = path)]`; and a warm reuse still allocates nothing.
//!
//! Each test has its own struct type, so its own pool. The allocator is
//! global but its counters are per thread, so tests running in parallel do
//! not see each other's allocations.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};

use pool_core::{Poolable, Pooled, Reset};
use pool_suite::alloc::{Counting, on_this_thread};

#[global_allocator]
static ALLOC: Counting = Counting::new();

/// The configuration a hand-written `Default` sets up.
#[derive(Poolable, Debug, PartialEq, Clone)]
struct Settings {
    retries: u32,
    timeout_ms: u64,
    name: Option<String>,
    tags: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            retries: 3,
            timeout_ms: 5000,
            name: Some("default".into()),
            tags: Vec::new(),
        }
    }
}

/// Uses an object the way a handler would: changes every field.
fn scribble(settings: &mut Settings) {
    settings.retries = 0;
    settings.timeout_ms = 1;
    settings
        .name
        .as_mut()
        .expect("a name")
        .push_str(" and more");
    settings.tags.push("urgent".into());
}

#[test]
fn a_reused_object_has_the_hand_written_defaults_again() {
    for round in 0..3 {
        let mut settings: Pooled<Settings> = Settings::acquire();
        assert_eq!(*settings, Settings::default(), "round {round}");
        scribble(&mut settings);
    }
}

#[test]
fn a_warm_reuse_writes_the_defaults_back_into_the_buffers_it_has() {
    // Warm up: the pool has the object and the template; the object's
    // buffers are large enough.
    let mut settings = Settings::acquire();
    scribble(&mut settings);
    drop(settings);
    let settings = Settings::acquire();
    let name = settings.name.as_ref().expect("a name").as_ptr();
    drop(settings);

    let fresh = Settings::default();
    let (counted, same_name) = on_this_thread(|| {
        let mut settings = Settings::acquire();
        scribble(&mut settings);
        drop(settings);
        let settings = Settings::acquire();
        assert_eq!(*settings, fresh);
        settings.name.as_ref().expect("a name").as_ptr() == name
    });
    assert!(same_name, "the name's buffer is reused, not replaced");
    // `scribble`'s `"urgent".into()` is the one allocation: the tag.
    assert_eq!(counted.allocs, 1, "only the handler's own tag allocates");
}

/// A constructor named with `#[pool(new = path)]`.
#[derive(Poolable, Debug, PartialEq, Clone)]
#[pool(new = Frame::new)]
struct Frame {
    kind: u8,
    header: String,
    body: Vec<u8>,
}

impl Frame {
    fn new() -> Self {
        Frame {
            kind: 7,
            header: String::from("HTTP/1.1 200 OK"),
            body: Vec::with_capacity(4096),
        }
    }
}

#[test]
fn a_reused_object_is_what_the_named_constructor_makes() {
    let mut frame = Frame::acquire();
    frame.kind = 1;
    frame.header.clear();
    frame.header.push_str("HTTP/1.1 404 Not Found");
    frame.body.extend_from_slice(&[1; 100]);
    let body = frame.body.as_ptr();
    drop(frame);

    let (counted, frame) = on_this_thread(Frame::acquire);
    assert_eq!(*frame, Frame::new(), "equal, capacity aside");
    assert_eq!(frame.body.as_ptr(), body, "the body's buffer is kept");
    assert!(frame.body.capacity() >= 4096);
    assert_eq!(counted.allocs, 0, "the reuse allocated");
}

/// A derived `Default`: the constructor's values are the reset values, so
/// the reset is the plain per-field one.
#[derive(Poolable, Debug, PartialEq, Clone, Default)]
struct Plain {
    count: u64,
    text: String,
}

#[test]
fn a_derived_default_resets_field_by_field() {
    let mut plain = Plain::acquire();
    plain.count = 9;
    plain.text.push_str("used");
    drop(plain);
    let (counted, plain) = on_this_thread(Plain::acquire);
    assert_eq!(*plain, Plain::default());
    assert_eq!(counted.allocs, 0);
}

/// The field attributes keep their meaning next to a constructor whose
/// values are not the reset ones; their paths may start with `Self`.
#[derive(Poolable, Debug)]
#[pool(new = Tuned::new)]
struct Tuned {
    retries: u32,
    #[pool(skip)]
    id: u64,
    #[pool(default)]
    mode: u16,
    #[pool(reset = Self::reset_level)]
    level: u8,
    #[pool(max_capacity = Self::MAX_SCRATCH)]
    scratch: Vec<u8>,
}

impl Tuned {
    const MAX_SCRATCH: usize = 64;

    fn reset_level(level: &mut u8) {
        *level = 1;
    }

    fn new() -> Self {
        Tuned {
            retries: 3,
            id: 100,
            mode: 5,
            level: 9,
            scratch: Vec::new(),
        }
    }
}

#[test]
fn skip_default_reset_and_max_capacity_keep_their_meaning() {
    let mut tuned = Tuned::acquire();
    tuned.retries = 0;
    tuned.id = 42;
    tuned.mode = 6;
    tuned.level = 0;
    tuned.scratch.extend_from_slice(&[0; 4096]);
    drop(tuned);
    let tuned = Tuned::acquire();
    assert_eq!(tuned.retries, 3, "plain field: the constructor's value");
    assert_eq!(tuned.id, 42, "skip: left as it was");
    assert_eq!(tuned.mode, 0, "default: `Default::default()`");
    assert_eq!(tuned.level, 1, "reset = path: the function's value");
    assert!(tuned.scratch.is_empty());
    assert!(tuned.scratch.capacity() < 4096, "max_capacity: shrunk");
}

/// A field type with `Clone` but no `PartialEq` is always copied back.
#[derive(Clone, Debug)]
struct Label(String);

impl pool_core::Reset for Label {
    fn reset(&mut self) {
        self.0.clear();
    }
}

#[derive(Poolable)]
#[pool(new = Labelled::new)]
struct Labelled {
    label: Label,
}

impl Labelled {
    fn new() -> Self {
        Labelled {
            label: Label("fresh".into()),
        }
    }
}

#[test]
fn a_field_without_partial_eq_is_copied_back() {
    let mut labelled = Labelled::acquire();
    labelled.label.0.push_str(" and used");
    drop(labelled);
    assert_eq!(Labelled::acquire().label.0, "fresh");
}

/// A struct that is not `Sync` reads its one template under a lock, and
/// the object is still what the constructor makes.
#[derive(Poolable, Debug)]
#[pool(new = Counter::new)]
struct Counter {
    hits: Cell<u32>,
    limit: u32,
}

impl Counter {
    fn new() -> Self {
        Counter {
            hits: Cell::new(0),
            limit: 10,
        }
    }
}

#[test]
fn a_struct_that_is_not_sync_is_restored_too() {
    let mut counter = Counter::acquire();
    counter.hits.set(4);
    counter.limit = 0;
    drop(counter);
    let counter = Counter::acquire();
    assert_eq!(counter.hits.get(), 0);
    assert_eq!(counter.limit, 10);
}

/// Issue 40, item 2: a field type that is not `Clone` but whose contents
/// are (a `Mutex`, an `RwLock`, a `Cell` of a type that is not `Copy`, an
/// atomic) came back as its `Reset` leaves it (`total: 5` came back `0`),
/// with no error or warning. It is restored through its contents.
#[derive(Poolable)]
#[pool(new = Guarded::new)]
struct Guarded {
    total: Mutex<u32>,
    names: RwLock<Vec<String>>,
    label: Cell<String>,
    hits: AtomicU64,
    open: AtomicBool,
    mode: Mutex<Mode>,
    // `Clone` already: copied back as any `Clone` field is.
    seen: RefCell<Vec<u8>>,
    cached: OnceLock<String>,
    limit: u32,
}

/// `Clone + PartialEq` without `Reset`, as an enum of the user's.
#[derive(Clone, Debug, PartialEq)]
enum Mode {
    Read,
    Write,
}

impl Guarded {
    fn new() -> Self {
        Guarded {
            total: Mutex::new(5),
            names: RwLock::new(vec!["admin".to_owned()]),
            label: Cell::new("new".to_owned()),
            hits: AtomicU64::new(7),
            open: AtomicBool::new(true),
            mode: Mutex::new(Mode::Write),
            seen: RefCell::new(vec![1]),
            cached: OnceLock::from("made".to_owned()),
            limit: 10,
        }
    }
}

#[test]
fn a_lock_a_cell_or_an_atomic_gets_the_constructors_contents_back() {
    let mut guarded = Guarded::acquire();
    *guarded.total.get_mut().expect("not poisoned") = 8;
    guarded.names.get_mut().expect("not poisoned").clear();
    guarded.label.set("used".to_owned());
    guarded.hits.store(100, Ordering::Relaxed);
    guarded.open.store(false, Ordering::Relaxed);
    *guarded.mode.get_mut().expect("not poisoned") = Mode::Read;
    guarded.seen.get_mut().clear();
    guarded.cached = OnceLock::new();
    guarded.limit = 0;
    drop(guarded);

    let mut guarded = Guarded::acquire();
    assert_eq!(*guarded.total.get_mut().expect("not poisoned"), 5);
    assert_eq!(*guarded.names.get_mut().expect("not poisoned"), ["admin"]);
    assert_eq!(guarded.label.get_mut(), "new");
    assert_eq!(guarded.hits.load(Ordering::Relaxed), 7);
    assert!(guarded.open.load(Ordering::Relaxed));
    assert_eq!(*guarded.mode.get_mut().expect("not poisoned"), Mode::Write);
    assert_eq!(*guarded.seen.get_mut(), [1]);
    assert_eq!(guarded.cached.get().map(String::as_str), Some("made"));
    assert_eq!(guarded.limit, 10);
}

#[test]
fn a_poisoned_lock_gets_the_constructors_contents_back_unpoisoned() {
    let guarded = Guarded::acquire();
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut total = guarded.total.lock().expect("not poisoned yet");
        *total = 9;
        panic!("poisons the lock");
    }));
    assert!(guarded.total.is_poisoned());
    drop(guarded);
    let guarded = Guarded::acquire();
    assert!(!guarded.total.is_poisoned());
    assert_eq!(*guarded.total.lock().expect("not poisoned"), 5);
}

/// Neither `Clone` nor `PartialEq`: a lock of it cannot be copied back.
#[derive(Debug)]
struct Handle(u32);

impl Reset for Handle {
    fn reset(&mut self) {
        self.0 = 0;
    }
}

/// What remains: a wrapper of a type that cannot be copied comes back as
/// its `Reset` leaves it (the derive's docs say so).
#[derive(Poolable)]
#[pool(new = Opaque::new)]
struct Opaque {
    handle: Mutex<Handle>,
    limit: u32,
}

impl Opaque {
    fn new() -> Self {
        Opaque {
            handle: Mutex::new(Handle(5)),
            limit: 10,
        }
    }
}

#[test]
fn a_lock_of_a_type_that_is_not_clone_is_reset_by_its_own_reset() {
    let mut opaque = Opaque::acquire();
    opaque.handle.get_mut().expect("not poisoned").0 = 8;
    opaque.limit = 0;
    drop(opaque);
    let mut opaque = Opaque::acquire();
    assert_eq!(opaque.handle.get_mut().expect("not poisoned").0, 0);
    assert_eq!(opaque.limit, 10, "the `Clone` field is still restored");
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A constructor with a side effect: `fresh` runs it for the field at each
/// reset, where the template would give every reused object its own id.
#[derive(Poolable)]
#[pool(new = Ticket::new)]
struct Ticket {
    #[pool(fresh = next_id)]
    id: u64,
    #[pool(fresh = Self::stamp)]
    stamp: String,
    note: String,
}

impl Ticket {
    fn new() -> Self {
        Ticket {
            id: next_id(),
            stamp: Self::stamp(),
            note: String::new(),
        }
    }

    fn stamp() -> String {
        "stamped".to_owned()
    }
}

#[test]
fn fresh_gives_a_field_a_new_value_at_each_reuse() {
    let mut ticket = Ticket::acquire();
    let first = ticket.id;
    ticket.stamp.clear();
    ticket.note.push_str("used");
    drop(ticket);
    let ticket = Ticket::acquire();
    assert_ne!(ticket.id, first, "a new id, not the template's");
    assert!(ticket.id > first);
    assert_eq!(ticket.stamp, "stamped");
    assert!(ticket.note.is_empty());
    let second = ticket.id;
    drop(ticket);
    assert!(Ticket::acquire().id > second);
}

/// Several threads reaching their first reset at once all get the
/// constructor's values.
#[derive(Poolable, Debug, PartialEq, Clone)]
#[pool(new = Raced::new)]
struct Raced {
    retries: u32,
    name: String,
}

impl Raced {
    fn new() -> Self {
        Raced {
            retries: 3,
            name: "raced".into(),
        }
    }
}

#[test]
fn threads_racing_to_the_first_reset_all_see_the_constructors_values() {
    let rounds = if cfg!(miri) { 4 } else { 200 };
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(move || {
                for _ in 0..rounds {
                    let mut raced = Raced::acquire();
                    assert_eq!(*raced, Raced::new());
                    raced.retries = 0;
                    raced.name.push('!');
                }
            });
        }
    });
}

/// A `Sync` struct of locks and atomics: its template is read by every
/// thread at once, the contents through the pointers the probe took.
#[derive(Poolable)]
#[pool(new = Shared::new)]
struct Shared {
    total: Mutex<u32>,
    names: RwLock<Vec<String>>,
    hits: AtomicU64,
}

impl Shared {
    fn new() -> Self {
        Shared {
            total: Mutex::new(5),
            names: RwLock::new(vec!["admin".to_owned()]),
            hits: AtomicU64::new(7),
        }
    }
}

#[test]
fn threads_restoring_locks_and_atomics_at_once_all_get_the_constructors_contents() {
    let rounds = if cfg!(miri) { 4 } else { 200 };
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(move || {
                for _ in 0..rounds {
                    let mut shared = Shared::acquire();
                    assert_eq!(*shared.total.get_mut().expect("not poisoned"), 5);
                    assert_eq!(*shared.names.get_mut().expect("not poisoned"), ["admin"]);
                    assert_eq!(*shared.hits.get_mut(), 7);
                    *shared.total.get_mut().expect("not poisoned") = 0;
                    shared
                        .names
                        .get_mut()
                        .expect("not poisoned")
                        .push("x".to_owned());
                    shared.hits.store(0, Ordering::Relaxed);
                }
            });
        }
    });
}

/// A generic struct: its template lives in each instantiation's pool.
#[derive(Poolable, Debug)]
#[pool(new = Batch::new)]
struct Batch<T: Send + 'static> {
    limit: u32,
    label: String,
    items: Vec<T>,
}

impl<T: Send + 'static> Batch<T> {
    fn new() -> Self {
        Batch {
            limit: 64,
            label: String::from("batch"),
            items: Vec::new(),
        }
    }
}

#[test]
fn a_generic_struct_is_restored_per_instantiation() {
    let mut numbers = Batch::<u8>::acquire();
    numbers.limit = 0;
    numbers.label.push_str(" of numbers");
    numbers.items.push(7);
    drop(numbers);
    let mut words = Batch::<String>::acquire();
    words.limit = 1;
    words.items.push("seven".into());
    drop(words);

    let numbers = Batch::<u8>::acquire();
    assert_eq!((numbers.limit, numbers.label.as_str()), (64, "batch"));
    assert!(numbers.items.is_empty());
    let words = Batch::<String>::acquire();
    assert_eq!((words.limit, words.label.as_str()), (64, "batch"));
    assert!(words.items.is_empty());
}
