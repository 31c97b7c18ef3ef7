//! A reused object equals a new one with no attribute, and the constructor
//! runs only for the objects the pool makes plus once per type (the
//! template): issue 25's `Job`, whose `Duration` and `Priority` the
//! constructor sets, and its counting constructors, non-generic, generic and
//! not `Sync`, checked against `Stats::created`.
//!
//! Each test has its own struct type, so its own pool and its own counter.

#![warn(clippy::pedantic)]

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pool_core::{Poolable, Pooled};

/// An enum of the user's: `Clone`, with no `Reset`, and a `Default` that
/// is not what `Job::new` gives (following a `#[pool(default)]` hint gave
/// every reused `Job` `Low`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum Priority {
    #[default]
    Low,
    Normal,
    High,
}

static JOBS_MADE: AtomicU64 = AtomicU64::new(0);

/// The issue's `Job`: no field attribute.
#[derive(Poolable, Debug, Clone, PartialEq)]
#[pool(new = Job::new)]
struct Job {
    timeout: Duration,
    priority: Priority,
    name: String,
    attempts: u32,
}

impl Job {
    fn new() -> Self {
        JOBS_MADE.fetch_add(1, Ordering::Relaxed);
        Job {
            timeout: Duration::from_secs(30),
            priority: Priority::Normal,
            name: String::new(),
            attempts: 0,
        }
    }
}

#[test]
fn a_reused_job_has_the_constructors_timeout_and_priority() {
    let mut held: Vec<Pooled<Job>> = (0..5).map(|_| Job::acquire()).collect();
    for job in &mut held {
        job.timeout = Duration::ZERO;
        job.priority = Priority::High;
        job.name.push_str("used");
        job.attempts = 4;
    }
    drop(held);
    for _ in 0..5 {
        let job = Job::acquire();
        let fresh = Job {
            timeout: Duration::from_secs(30),
            priority: Priority::Normal,
            name: String::new(),
            attempts: 0,
        };
        assert_eq!(*job, fresh);
    }
    let created = Job::pool().stats().created;
    assert_eq!(created, 5, "five objects at once, then reused");
    assert_eq!(
        JOBS_MADE.load(Ordering::Relaxed),
        created + 1,
        "one call per object the pool made, plus the template"
    );
}

static CLEAN_MADE: AtomicU64 = AtomicU64::new(0);

/// A clean constructor: every value is the fields' reset value.
#[derive(Poolable, Debug, Clone, PartialEq)]
#[pool(new = Clean::new)]
struct Clean {
    count: u64,
    text: String,
}

impl Clean {
    fn new() -> Self {
        CLEAN_MADE.fetch_add(1, Ordering::Relaxed);
        Clean {
            count: 0,
            text: String::new(),
        }
    }
}

#[test]
fn a_clean_constructor_runs_once_for_the_template_and_once_per_object() {
    let held: Vec<Pooled<Clean>> = (0..5).map(|_| Clean::acquire()).collect();
    drop(held);
    for _ in 0..100 {
        Clean::acquire().text.push_str("used");
    }
    let created = Clean::pool().stats().created;
    assert_eq!(created, 5);
    assert_eq!(CLEAN_MADE.load(Ordering::Relaxed), created + 1);
    assert!(Clean::acquire().text.is_empty());
}

static BATCHES_MADE: AtomicU64 = AtomicU64::new(0);

/// The generic `Batch<T>`, with values that are not the reset ones.
#[derive(Poolable, Debug)]
#[pool(new = Batch::new)]
struct Batch<T: Send + 'static> {
    max_retries: u32,
    name: String,
    items: Vec<T>,
}

impl<T: Send + 'static> Batch<T> {
    fn new() -> Self {
        BATCHES_MADE.fetch_add(1, Ordering::Relaxed);
        Batch {
            max_retries: 3,
            name: String::from("batch"),
            items: Vec::new(),
        }
    }
}

#[test]
fn a_generic_struct_keeps_one_template_and_calls_no_constructor_per_reset() {
    for round in 0..1001 {
        let mut batch = Batch::<u16>::acquire();
        assert_eq!(
            (batch.max_retries, batch.name.as_str()),
            (3, "batch"),
            "round {round}"
        );
        assert!(batch.items.is_empty());
        batch.max_retries = 0;
        batch.name.push_str(" of numbers");
        batch.items.push(7);
    }
    let created = Batch::<u16>::pool().stats().created;
    assert_eq!(created, 1, "one object, reused");
    assert!(
        BATCHES_MADE.load(Ordering::Relaxed) <= created + 1,
        "{} constructor calls for {created} objects",
        BATCHES_MADE.load(Ordering::Relaxed)
    );
}

static TALLIES_MADE: AtomicU64 = AtomicU64::new(0);

/// Not `Sync` (a `Cell`): its one template is read under a lock.
#[derive(Poolable, Debug)]
#[pool(new = Tally::new)]
struct Tally {
    hits: Cell<u32>,
    limit: u32,
}

impl Tally {
    fn new() -> Self {
        TALLIES_MADE.fetch_add(1, Ordering::Relaxed);
        Tally {
            hits: Cell::new(0),
            limit: 10,
        }
    }
}

#[test]
fn a_struct_that_is_not_sync_keeps_one_template_too() {
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..200 {
                    let mut tally = Tally::acquire();
                    assert_eq!((tally.hits.get(), tally.limit), (0, 10));
                    tally.hits.set(4);
                    tally.limit = 0;
                }
            });
        }
    });
    let created = Tally::pool().stats().created;
    assert_eq!(TALLIES_MADE.load(Ordering::Relaxed), created + 1);
}

static COPIES: AtomicU64 = AtomicU64::new(0);

/// A field type that counts how often the template copies into it.
#[derive(Debug, PartialEq, Default)]
struct Counted(u32);

impl Clone for Counted {
    fn clone(&self) -> Self {
        Counted(self.0)
    }

    fn clone_from(&mut self, source: &Self) {
        COPIES.fetch_add(1, Ordering::Relaxed);
        self.0 = source.0;
    }
}

impl pool_core::Reset for Counted {
    fn reset(&mut self) {
        self.0 = 0;
    }
}

/// A clean constructor (a derived `Default`) whose fields are all `Reset +
/// Clone + PartialEq`.
#[derive(Poolable, Default)]
struct Quiet {
    count: Counted,
    bytes: Vec<u8>,
}

#[test]
fn a_clean_constructor_resets_field_by_field_and_copies_nothing() {
    for _ in 0..10 {
        let mut quiet = Quiet::acquire();
        quiet.count.0 = 5;
        quiet.bytes.push(1);
    }
    let quiet = Quiet::acquire();
    assert_eq!((quiet.count.0, quiet.bytes.len()), (0, 0));
    assert_eq!(
        COPIES.load(Ordering::Relaxed),
        0,
        "a field equal to its reset value is never copied back"
    );
}
