//! Where the reset runs (issue 26): on release, the default, or on acquire
//! (`#[pool(reset_on = acquire)]`, `Pool::builder(..).reset_on_acquire()`,
//! `PoolConfig::reset_on_acquire` in `pool!`). Each scenario runs in both
//! modes where they differ, so that each assertion fails in the other.
//!
//! Every object logs its resets, with the thread that ran each, and its
//! destruction. Every test holds `SERIAL`: one of them rotates, and
//! rotation moves the others' objects between tiers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use pool_core::{Pool, Poolable, Pooled, Reset, Stats, pool, rotate};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// What happened to one pool's objects.
struct Log {
    made: AtomicUsize,
    destroyed: AtomicUsize,
    /// The thread of each reset, in order.
    resets: Mutex<Vec<ThreadId>>,
}

impl Log {
    const fn new() -> Self {
        Log {
            made: AtomicUsize::new(0),
            destroyed: AtomicUsize::new(0),
            resets: Mutex::new(Vec::new()),
        }
    }

    fn resets(&self) -> usize {
        self.resets.lock().unwrap().len()
    }

    /// Resets run on `thread`.
    fn resets_on(&self, thread: ThreadId) -> usize {
        let resets = self.resets.lock().unwrap();
        resets.iter().filter(|&&t| t == thread).count()
    }

    fn destroyed(&self) -> usize {
        self.destroyed.load(Ordering::SeqCst)
    }
}

/// Logs its resets and its destruction in its pool's [`Log`].
struct Witness(&'static Log);

impl Witness {
    fn new(log: &'static Log) -> Self {
        log.made.fetch_add(1, Ordering::SeqCst);
        Witness(log)
    }
}

impl Reset for Witness {
    fn reset(&mut self) {
        self.0.resets.lock().unwrap().push(thread::current().id());
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.0.destroyed.fetch_add(1, Ordering::SeqCst);
    }
}

/// A pooled object: a witness, and data its users write.
struct Tracked {
    witness: Witness,
    data: Vec<u8>,
}

impl Tracked {
    fn new(log: &'static Log) -> Self {
        Tracked {
            witness: Witness::new(log),
            data: Vec::with_capacity(16),
        }
    }
}

impl Reset for Tracked {
    fn reset(&mut self) {
        self.witness.reset();
        self.data.clear();
    }
}

/// Declares a `pool!` static of `Tracked`s logging in `$log`, resetting
/// on release, or on acquire with the `reset_on_acquire` configuration
/// call after the capacities.
macro_rules! tracked_pool {
    ($pool:ident, $log:ident: capacity $cap:expr, thread_capacity $tc:expr $(, $mode:ident)?) => {
        static $log: Log = Log::new();
        pool! {
            static $pool: Pool<Tracked> = Pool::new({
                fn create() -> Tracked {
                    Tracked::new(&$log)
                }
                create
            })
            .capacity($cap)
            .thread_capacity($tc)
            $(.$mode())?;
        }
    };
}

/// Acquires an object, checks it is as new, and writes into it.
fn take(acquire: &impl Fn() -> Pooled<Tracked>) -> Pooled<Tracked> {
    let mut object = acquire();
    assert!(object.data.is_empty(), "handed out without a reset");
    object.data.extend_from_slice(b"written");
    object
}

/// The producer (this thread) acquires `n` objects and writes into them;
/// a consumer thread drops them; then the producer acquires `n` again,
/// which come back from the consumer's side through the shared store, and
/// drops them. Returns the consumer's id.
fn hand_across(n: usize, acquire: impl Fn() -> Pooled<Tracked> + Sync) -> ThreadId {
    let batch: Vec<_> = (0..n).map(|_| take(&acquire)).collect();
    let consumer = thread::spawn(move || {
        drop(batch);
        thread::current().id()
    });
    // `join` waits for the consumer's thread-locals too: its cache has
    // gone to the shared store.
    let consumer = consumer.join().unwrap();
    let again: Vec<_> = (0..n).map(|_| take(&acquire)).collect();
    drop(again);
    consumer
}

/// The counts both modes must agree on after [`hand_across`] of `n`.
fn assert_handed_across(stats: Stats, n: u64) {
    assert_eq!(
        (
            stats.created,
            stats.reused(),
            stats.returned,
            stats.in_use()
        ),
        (n, n, 2 * n, 0),
        "{stats:?}"
    );
    assert_eq!(stats.idle, n, "{stats:?}");
}

mod static_pools {
    use super::*;
    tracked_pool!(ON_RELEASE, RELEASE_LOG: capacity 64, thread_capacity 4);
    tracked_pool!(ON_ACQUIRE, ACQUIRE_LOG: capacity 64, thread_capacity 4, reset_on_acquire);

    #[test]
    fn on_acquire_the_acquiring_thread_resets_and_a_thread_that_only_drops_writes_nothing() {
        let _serial = serial();
        let producer = thread::current().id();
        let consumer = hand_across(8, || ON_ACQUIRE.acquire());
        // The 8 reused objects were reset by the producer as it took them;
        // the 8 new ones not at all; the consumer reset none.
        assert_eq!(ACQUIRE_LOG.resets_on(consumer), 0);
        assert_eq!(ACQUIRE_LOG.resets_on(producer), 8);
        assert_eq!(ACQUIRE_LOG.resets(), 8);
        assert_handed_across(ON_ACQUIRE.stats(), 8);

        // On release, the thread that drops resets: all 8 it dropped,
        // then the producer its own 8 drops.
        let consumer = hand_across(8, || ON_RELEASE.acquire());
        assert_eq!(RELEASE_LOG.resets_on(consumer), 8);
        assert_eq!(RELEASE_LOG.resets_on(producer), 8);
        assert_handed_across(ON_RELEASE.stats(), 8);
    }
}

mod idle_contents {
    use super::*;
    tracked_pool!(ON_RELEASE, RELEASE_LOG: capacity 8, thread_capacity 4);
    tracked_pool!(ON_ACQUIRE, ACQUIRE_LOG: capacity 8, thread_capacity 4, reset_on_acquire);
    tracked_pool!(STORED, STORED_LOG: capacity 8, thread_capacity 0, reset_on_acquire);

    #[test]
    fn on_acquire_an_idle_object_keeps_its_contents_until_reused_and_a_new_one_is_not_reset() {
        let _serial = serial();
        let first = take(&|| ON_ACQUIRE.acquire());
        assert_eq!(ACQUIRE_LOG.resets(), 0, "a new object is not reset");
        let address = first.data.as_ptr();
        drop(first);
        assert_eq!(ACQUIRE_LOG.resets(), 0, "idle as its user left it");
        assert_eq!(ON_ACQUIRE.stats().idle, 1);
        let again = take(&|| ON_ACQUIRE.acquire());
        assert_eq!(again.data.as_ptr(), address, "the same object, reused");
        assert_eq!(ACQUIRE_LOG.resets(), 1, "reset once, when reused");
        drop(again);

        // The same through the shared store (no thread cache): the reset
        // on the slow path.
        drop(take(&|| STORED.acquire()));
        assert_eq!(STORED_LOG.resets(), 0);
        drop(take(&|| STORED.acquire()));
        assert_eq!(STORED_LOG.resets(), 1);
        let stats = STORED.stats();
        assert_eq!((stats.created, stats.hits_primary), (1, 1), "{stats:?}");

        // On release, the reset runs at once.
        drop(take(&|| ON_RELEASE.acquire()));
        assert_eq!(RELEASE_LOG.resets(), 1, "reset on release");
        drop(take(&|| ON_RELEASE.acquire()));
        assert_eq!(RELEASE_LOG.resets(), 2);
    }
}

mod dropped_by_the_pool {
    use super::*;
    tracked_pool!(BOUNDED, BOUNDED_LOG: capacity 1, thread_capacity 0, reset_on_acquire);
    tracked_pool!(ROTATED, ROTATED_LOG: capacity 8, thread_capacity 0, reset_on_acquire);
    tracked_pool!(CLEARED, CLEARED_LOG: capacity 8, thread_capacity 4, reset_on_acquire);
    tracked_pool!(DISCARDING, DISCARD_LOG: capacity 8, thread_capacity 4, reset_on_acquire);
    static RUNTIME_LOG: Log = Log::new();

    #[test]
    fn on_acquire_an_object_the_pool_drops_is_dropped_without_a_reset() {
        let _serial = serial();
        // Past the capacity.
        let two = (take(&|| BOUNDED.acquire()), take(&|| BOUNDED.acquire()));
        drop(two);
        let stats = BOUNDED.stats();
        assert_eq!((stats.dropped_capacity, stats.idle), (1, 1), "{stats:?}");
        assert_eq!((BOUNDED_LOG.destroyed(), BOUNDED_LOG.resets()), (1, 0));

        // By rotation: idle across two.
        drop(take(&|| ROTATED.acquire()));
        rotate();
        rotate();
        assert_eq!(ROTATED.stats().dropped_rotation, 1);
        assert_eq!((ROTATED_LOG.destroyed(), ROTATED_LOG.resets()), (1, 0));

        // By `clear`.
        drop(
            (0..3)
                .map(|_| take(&|| CLEARED.acquire()))
                .collect::<Vec<_>>(),
        );
        CLEARED.clear();
        assert_eq!((CLEARED_LOG.destroyed(), CLEARED_LOG.resets()), (3, 0));

        // `discard`, and a guard dropped during a panic.
        Pooled::discard(take(&|| DISCARDING.acquire()));
        let held = take(&|| DISCARDING.acquire());
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let _held = held;
            panic!("the user's code failed");
        }))
        .unwrap_err();
        assert_eq!(DISCARDING.stats().discarded, 2);
        assert_eq!((DISCARD_LOG.destroyed(), DISCARD_LOG.resets()), (2, 0));

        // A run-time pool's end: its idle objects, cached and stored.
        let pool = Pool::builder(|| Tracked::new(&RUNTIME_LOG))
            .capacity(8)
            .thread_capacity(2)
            .reset_on_acquire()
            .build();
        drop((0..5).map(|_| take(&|| pool.acquire())).collect::<Vec<_>>());
        assert_eq!(pool.stats().idle, 5);
        drop(pool);
        assert_eq!((RUNTIME_LOG.destroyed(), RUNTIME_LOG.resets()), (5, 0));
    }
}

mod retain_test {
    use super::*;

    static RELEASE_LOG: Log = Log::new();
    static ACQUIRE_LOG: Log = Log::new();

    fn unwritten(object: &Tracked) -> bool {
        object.data.is_empty()
    }

    pool! {
        static ON_RELEASE: Pool<Tracked> = Pool::new(|| Tracked::new(&RELEASE_LOG)).retain(unwritten);
        static ON_ACQUIRE: Pool<Tracked> = Pool::new(|| Tracked::new(&ACQUIRE_LOG))
            .retain(unwritten)
            .reset_on_acquire();
    }

    #[test]
    fn retain_sees_the_object_after_its_reset_on_release_and_before_it_on_acquire() {
        let _serial = serial();
        drop(take(&|| ON_RELEASE.acquire()));
        let stats = ON_RELEASE.stats();
        assert_eq!((stats.returned, stats.rejected), (1, 0), "reset, then kept");

        drop(take(&|| ON_ACQUIRE.acquire()));
        let stats = ON_ACQUIRE.stats();
        assert_eq!((stats.returned, stats.rejected), (0, 1), "as left: refused");
        assert_eq!((ACQUIRE_LOG.destroyed(), ACQUIRE_LOG.resets()), (1, 0));
    }
}

mod put_value {
    use super::*;
    tracked_pool!(ON_ACQUIRE, ACQUIRE_LOG: capacity 8, thread_capacity 4, reset_on_acquire);

    #[test]
    fn on_acquire_a_put_object_is_kept_as_given_and_reset_when_acquired() {
        let _serial = serial();
        let mut given = Tracked::new(&ACQUIRE_LOG);
        given.data.extend_from_slice(b"made elsewhere");
        ON_ACQUIRE.put(given);
        assert_eq!(ACQUIRE_LOG.resets(), 0);
        let object = take(&|| ON_ACQUIRE.acquire());
        assert_eq!(ACQUIRE_LOG.resets(), 1);
        drop(object);
        let stats = ON_ACQUIRE.stats();
        assert_eq!(
            (stats.put, stats.created, stats.returned, stats.in_use()),
            (1, 0, 2, 0),
            "{stats:?}"
        );
    }
}

mod run_time_pools {
    use super::*;

    static RELEASE_LOG: Log = Log::new();
    static ACQUIRE_LOG: Log = Log::new();

    #[test]
    fn a_run_time_pool_resets_where_its_builder_says() {
        let _serial = serial();
        let producer = thread::current().id();
        let on_acquire = Pool::builder(|| Tracked::new(&ACQUIRE_LOG))
            .thread_capacity(4)
            .reset_on_acquire()
            .build();
        let consumer = hand_across(8, || on_acquire.acquire());
        // A run-time pool's cache outlives its thread (until the thread's
        // id is reused): what the consumer's cache kept is not reused.
        let stats = on_acquire.stats();
        assert!(stats.reused() >= 4, "{stats:?}");
        assert_eq!(ACQUIRE_LOG.resets_on(consumer), 0);
        assert_eq!(ACQUIRE_LOG.resets_on(producer) as u64, stats.reused());
        assert_eq!((stats.acquired(), stats.returned), (16, 16), "{stats:?}");

        let on_release = Pool::builder(|| Tracked::new(&RELEASE_LOG))
            .thread_capacity(4)
            .build();
        let consumer = hand_across(8, || on_release.acquire());
        assert_eq!(RELEASE_LOG.resets_on(consumer), 8);
        assert_eq!(RELEASE_LOG.resets_on(producer), 8);
        let stats = on_release.stats();
        assert_eq!((stats.acquired(), stats.returned), (16, 16), "{stats:?}");
    }
}

mod derived {
    use super::*;

    static ACQUIRE_LOG: Log = Log::new();
    static RELEASE_LOG: Log = Log::new();
    static GENERIC_LOG: Log = Log::new();

    #[derive(Poolable)]
    #[pool(new = Job::new, reset_on = acquire, thread_capacity = 4)]
    struct Job {
        witness: Witness,
        data: Vec<u8>,
    }

    impl Job {
        fn new() -> Self {
            Job {
                witness: Witness::new(&ACQUIRE_LOG),
                data: Vec::new(),
            }
        }
    }

    #[derive(Poolable)]
    #[pool(new = Written::new, reset_on = release)]
    struct Written {
        witness: Witness,
    }

    impl Written {
        fn new() -> Self {
            Written {
                witness: Witness::new(&RELEASE_LOG),
            }
        }
    }

    #[derive(Poolable)]
    #[pool(new = Frame::new, reset_on = acquire)]
    struct Frame<T: Send + 'static> {
        witness: Witness,
        items: Vec<T>,
    }

    impl<T: Send + 'static> Frame<T> {
        fn new() -> Self {
            Frame {
                witness: Witness::new(&GENERIC_LOG),
                items: Vec::new(),
            }
        }
    }

    #[test]
    fn the_derive_resets_where_reset_on_says() {
        let _serial = serial();
        let producer = thread::current().id();
        // A derived reset checks its constructor on its first run, and may
        // reset an object of its own then: counted from here on.
        drop(Job::acquire());
        drop(Job::acquire());
        let before = ACQUIRE_LOG.resets_on(producer);
        let batch: Vec<_> = (0..8)
            .map(|_| {
                let mut job = Job::acquire();
                assert!(job.data.is_empty());
                job.data.push(1);
                job
            })
            .collect();
        let consumer = thread::spawn(move || {
            drop(batch);
            thread::current().id()
        })
        .join()
        .unwrap();
        assert_eq!(
            ACQUIRE_LOG.resets_on(consumer),
            0,
            "the consumer reset nothing"
        );
        let again: Vec<_> = (0..8).map(|_| Job::acquire()).collect();
        assert!(again.iter().all(|job| job.data.is_empty()));
        // One reused object in the batch (the warm-up's), 8 after it.
        assert_eq!(ACQUIRE_LOG.resets_on(producer) - before, 1 + 8);
        drop(again);

        drop(Written::acquire());
        let after_first = RELEASE_LOG.resets();
        assert!(after_first >= 1, "`reset_on = release`, the default");
        let written = Written::acquire();
        assert_eq!(RELEASE_LOG.resets(), after_first, "not reset on acquire");
        drop(written);
        assert_eq!(RELEASE_LOG.resets(), after_first + 1);

        drop(Frame::<u32>::acquire());
        drop(Frame::<u32>::acquire());
        let before = GENERIC_LOG.resets();
        let mut frame = Frame::<u32>::acquire();
        assert_eq!(
            GENERIC_LOG.resets(),
            before + 1,
            "a generic struct's pool too"
        );
        frame.items.push(7);
        drop(frame);
        assert_eq!(GENERIC_LOG.resets(), before + 1, "idle as left");
        assert!(Frame::<u32>::acquire().items.is_empty());
        assert_eq!(GENERIC_LOG.resets(), before + 2);
    }
}
