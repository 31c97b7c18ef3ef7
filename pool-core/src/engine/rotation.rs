//! [`rotate`]: the clock that ages every pool.
//!
//! Rust has no garbage collector whose cycles could age a pool, so the
//! engine keeps one process-wide epoch (`crate::engine::slot`). Each call
//! to [`rotate`] advances it and ages every registered pool: its shared
//! primary objects become victims, its victims are dropped (the [crate
//! docs](crate#how-rotation-bounds-memory) draw it), and the caches of
//! threads between operations on it age the same way, through the
//! handshake in `crate::engine::slot` (no read-modify-write on the owner's
//! fast path). A thread in the middle of an operation, or any thread on a
//! platform with no process-wide barrier, ages its cache itself on its next
//! operation, and a thread's exit hands its cache to the shared store.
//! Then, with no lock held, the allocator is trimmed (unless turned off,
//! `set_allocator_trim`, below) and, with the `metrics` feature, every pool's
//! figures are published (`crate::engine::publish`).
//!
//! Invariant, as in crossbeam's epochs: an object that has been idle
//! across two advancements is not held by any shared tier, and is not
//! handed out by any thread cache.
//!
//! Automatic rotation: the process rotates on its own once it has used a
//! pool, every [`DEFAULT_ROTATION_PERIOD`] unless told otherwise with
//! [`set_rotation_period`].
//!
//! Invariant: at most one automatic rotation thread runs in a process, it
//! exists only once a pool has been used and a period is set, and it
//! rotates every period, whatever the destructors it runs do.
//!
//! The period is chosen the way Go's and .NET's defaults are: Go forces a
//! garbage collection at least every two minutes, each of which moves a
//! `sync.Pool` to its victim cache and drops the previous victims, and
//! .NET's shared `ArrayPool` trims buffers unused for a minute or more on
//! its collections. A minute here gives idle objects back one to two
//! minutes after their last use, and costs a steady load nothing it would
//! notice: one rotation a minute moves each busy thread's cache to the
//! shared store once, and it comes back on the next acquires.
//!
//! [`set_allocator_trim`]: after a rotation that dropped objects, ask the
//! allocator to give its free memory back to the system.
//!
//! Invariant: a trim runs only when it is on (the default), after a rotation that
//! dropped at least one object, with no lock of the crate held, and at most
//! once per [`MIN_INTERVAL`].
//!
//! Why it is needed: dropping an object frees its memory to the allocator,
//! not to the system. glibc's `malloc` keeps small freed chunks in its
//! arenas for the next allocations and returns pages only from the top of
//! the heap or for blocks it mapped on their own (128 KiB and up by
//! default), so after a rotation of many small objects the process's RSS
//! does not move. `malloc_trim(0)` walks the arenas and releases every
//! free page (`madvise(MADV_DONTNEED)`), which is what makes the memory a
//! rotation dropped show in RSS. Elsewhere (musl, macOS, Windows, a
//! non-default global allocator's own free lists) there is no such call
//! here, and turning the trim on does nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::engine::fork::{self, ForkHold};
use crate::engine::registry::{self, Entry};
use crate::engine::slot::epoch;

/// Advances the global epoch, aging every pool.
///
/// For every pool, the objects idle in its shared primary tier move to its
/// victim tier, where they are still served, and the objects that were
/// already in the victim tier are dropped, their destructors run. The
/// caches of threads that are not in the middle of an operation on the pool
/// are aged the same way (a thread that has stopped using a pool loses its
/// idle objects like the shared store does); a thread that is, ages its
/// cache itself on its next operation. The process rotates on its own (see
/// [`set_rotation_period`](crate::set_rotation_period)); call `rotate` to
/// give memory back at a moment of your choosing, the way Go's
/// `sync.Pool` is emptied by every garbage collection.
///
/// Destructors run on the calling thread, after each pool's lock has been
/// released. Then, in this order: if objects were dropped and
/// [`set_allocator_trim`](crate::set_allocator_trim) is on, the allocator
/// is trimmed; with the `metrics` feature, every pool's figures are
/// published (as `metrics::publish` does), so they include this
/// rotation's.
///
/// # Panics
///
/// If a destructor panics, the other pools are still rotated (and the
/// panicking pool's remaining expired objects still dropped), then the
/// first panic is resumed.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool, rotate};
///
/// pool! {
///     static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(0);
/// }
///
/// drop(BUFFERS.acquire()); // one idle buffer, in the primary tier
/// rotate();                // now in the victim tier, still served
/// assert_eq!(BUFFERS.stats().idle, 1);
/// rotate();                // idle for two epochs: dropped
/// assert_eq!(BUFFERS.stats().idle, 0);
/// ```
pub fn rotate() {
    let now = epoch().advance();
    // Copy the list so that no lock is held while destructors run: a
    // destructor may itself touch a pool, or call `rotate`.
    let pools = registry::entries();
    // A destructor that panics must not leave the other pools unrotated:
    // rotate them all, then pass the first panic on.
    let mut panic = None;
    let mut dropped_any = false;
    for entry in pools {
        // A run-time pool whose last handle and guard are gone is skipped;
        // one that goes while it is visited is dropped here, after its
        // rotation, with no lock held.
        let Some(pool) = entry.visit() else { continue };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            // Whether objects went, for the trim: from the rotation itself,
            // not from the pool's counters before and after (two more
            // takings of each pool's cache lock per rotation).
            let dropped = pool.rotate_to(now);
            drop(pool);
            dropped
        })) {
            Ok(dropped) => dropped_any |= dropped,
            Err(payload) => {
                panic.get_or_insert(payload);
            }
        }
    }
    registry::forget_gone();
    // Every destructor has run and no lock is held: the allocator has all
    // it will get from this rotation, and the figures are final.
    if dropped_any {
        trim_after_drops();
    }
    // With the `metrics` feature every rotation publishes, last, so that
    // the figures include its drops (`crate::engine::publish`).
    #[cfg(feature = "metrics")]
    if let Err(payload) = std::panic::catch_unwind(crate::engine::publish::publish) {
        panic.get_or_insert(payload);
    }
    if let Some(payload) = panic {
        std::panic::resume_unwind(payload);
    }
}

/// The period of automatic rotation unless [`set_rotation_period`] changes
/// it: one minute, so an object idle since a rotation is dropped at the
/// second one after, one to two minutes after its last use.
///
/// ```
/// use std::time::Duration;
///
/// assert_eq!(pool_core::DEFAULT_ROTATION_PERIOD, Duration::from_secs(60));
/// ```
pub const DEFAULT_ROTATION_PERIOD: Duration = Duration::from_secs(60);

/// The shortest period automatic rotation takes; shorter ones are raised to
/// it, so that a zero period cannot make the thread spin.
const MIN_PERIOD: Duration = Duration::from_millis(1);

struct Auto {
    period: Option<Duration>,
    /// Whether a pool has been used in this process.
    used: bool,
    /// Whether the thread has been started: the forks seen then
    /// ([`fork::forks`]). A child of a later fork has no such thread.
    started: Option<u64>,
    /// Bumped by every change of the period, so that the thread restarts
    /// its wait.
    changes: u64,
}

static AUTO: Mutex<Auto> = Mutex::new(Auto {
    period: Some(DEFAULT_ROTATION_PERIOD),
    used: false,
    started: None,
    changes: 0,
});
static CHANGED: Condvar = Condvar::new();

fn auto() -> MutexGuard<'static, Auto> {
    // Nothing under this lock can panic halfway through an update.
    AUTO.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets the period of automatic rotation: the process calls
/// [`rotate`](crate::rotate) on its own every `period`, on a background
/// thread named `pool-auto-rotator`. `None` turns automatic rotation off;
/// `Some` turns it on again. The default is [`DEFAULT_ROTATION_PERIOD`].
///
/// The thread starts when a pool is first used, not before, and only if a
/// period is set then (or later). A program that wants no background
/// thread at all calls `set_rotation_period(None)` before it first uses a
/// pool; it can still call [`rotate`](crate::rotate) itself. A period
/// shorter than a millisecond is taken as a millisecond.
///
/// The thread is not joined at exit: when `main` returns, it ends with the
/// process, like any detached thread. A child made by `fork` has only the
/// forking thread, so it does not rotate on its own; calling
/// `set_rotation_period` in the child starts a thread there. A fork waits
/// for a rotation in progress to let go of the pools' locks, so the child
/// finds them free (see the [crate docs](crate#pools-and-fork)).
///
/// ```
/// use std::time::Duration;
///
/// pool_core::set_rotation_period(None); // no background thread
/// pool_core::set_rotation_period(Some(Duration::from_secs(10)));
/// pool_core::set_rotation_period(Some(pool_core::DEFAULT_ROTATION_PERIOD));
/// ```
pub fn set_rotation_period(period: Option<Duration>) {
    fork::watch(hold_for_fork);
    let mut auto = auto();
    auto.period = period.map(|period| period.max(MIN_PERIOD));
    auto.changes += 1;
    start_if_due(&mut auto);
    CHANGED.notify_all();
}

/// Adds a pool to those [`rotate`] ages (`registry::register`), once, the
/// fork handlers installed first; the first pool used starts the thread if
/// a period is set.
pub(crate) fn register(pool: Entry, registered: &crate::sync::AtomicBool) {
    // Before `AUTO` or a pool's lock is first taken (not under one: a fork
    // may be running the handlers).
    fork::watch(hold_for_fork);
    if registry::register(pool, registered) {
        let mut auto = auto();
        auto.used = true;
        start_if_due(&mut auto);
    }
}

fn start_if_due(auto: &mut Auto) {
    let forks = fork::forks();
    let started = auto.started == Some(forks);
    if !crate::sync::BACKGROUND_THREADS || started || !auto.used || auto.period.is_none() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("pool-auto-rotator".into())
        .spawn(run);
    // If the thread cannot be made, rotation stays manual; a later change
    // of the period tries again.
    auto.started = spawned.is_ok().then_some(forks);
}

/// What a fork holds: [`AUTO`], then the trim's [`LAST`] (never taken the
/// other way round, nor with any other lock held), then the registry's
/// and the pools' locks (`registry::hold_for_fork`), so that the child
/// does not inherit one held by the rotation thread. Installed, with the
/// fork handlers, by whatever first takes a lock that a fork must not
/// find held (`fork::watch`).
pub(crate) fn hold_for_fork(held: &mut ForkHold) {
    // SAFETY: statics.
    unsafe {
        held.keep(auto());
        held.keep(LAST.lock().unwrap_or_else(PoisonError::into_inner));
    }
    registry::hold_for_fork(held);
}

/// The thread: waits a period, rotates, and again; waits for a period to be
/// set while there is none.
fn run() {
    let mut auto = auto();
    loop {
        let changes = auto.changes;
        let Some(period) = auto.period else {
            auto = CHANGED.wait(auto).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        let (guard, waited) = CHANGED
            .wait_timeout(auto, period)
            .unwrap_or_else(PoisonError::into_inner);
        auto = guard;
        if !waited.timed_out() || auto.changes != changes {
            continue; // woken early, or the period changed: wait anew
        }
        drop(auto);
        // A panicking destructor must not end rotation for the rest of the
        // process; its panic has already been reported by the panic hook.
        let _ = std::panic::catch_unwind(rotate);
        auto = self::auto();
    }
}

/// The shortest time between two trims. `malloc_trim` walks every arena
/// and every free chunk: milliseconds on a large heap, which a program
/// that calls `rotate` in a loop (or sets a millisecond rotation period)
/// must not pay on each call. Once a second is the automatic rotation's
/// shortest sensible period many times over (its default is a minute, so
/// there every rotation that drops objects trims), and bounds the cost to
/// a fraction of a percent of one core however often rotation runs.
pub(crate) const MIN_INTERVAL: Duration = Duration::from_secs(1);

static ENABLED: AtomicBool = AtomicBool::new(true);

/// When the last trim ran.
static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// How many trims have run, for the tests (where `trim` calls glibc).
#[cfg(all(test, target_os = "linux", target_env = "gnu", not(miri)))]
pub(crate) static TRIMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Turns the allocator trim on or off (it is on by default): with it on, a
/// rotation that dropped objects then asks the allocator to return its
/// free memory to the system, so that what rotation gave back shows in the
/// process's RSS.
///
/// On by default because a pool's promise is that idle memory goes back
/// after two rotations, and without the trim that holds for the heap but
/// not for RSS, which is what an operator sees: an axum service's RSS
/// stayed at 23.9 MB after idle with the trim off, 5.2–8.5 MB with it on
/// (issue 38). What it costs is measured in docs/PERFORMANCE.md ("The
/// allocator trim", `cargo run --release --example trim_cost`): a few
/// milliseconds on the rotating thread, once a minute at most by default,
/// and nothing on the threads that use the pools. Turn it off for a
/// program that counts on glibc keeping freed pages (one whose bursts
/// return every minute), or whose rotation period is short.
///
/// What rotation gives back goes to the allocator, as any `drop` does.
/// Whether the process's RSS falls then is the allocator's choice: glibc
/// keeps small freed chunks in its arenas for reuse and returns pages only
/// for large blocks (128 KiB and up, which it maps on their own) or from
/// the top of the heap, so a pool of many small objects can drop every one
/// of them and leave RSS where it was. With the trim on, glibc's
/// `malloc_trim(0)` runs after such a rotation and releases every free
/// page, and RSS follows within the rotation.
///
/// The trim runs on the rotating thread (the automatic rotation's, or the
/// caller of [`rotate`](crate::rotate)), after the rotation's destructors,
/// with no lock of the crate held, and at most once a second: a rotation
/// sooner than that after the last trim does not trim (the next one that
/// drops objects does). It costs a walk of the allocator's free memory,
/// from microseconds to a few milliseconds on a large heap, and the pages
/// it frees are faulted in again if the program allocates them anew.
///
/// It calls glibc's `malloc_trim` on Linux with glibc (`target_env =
/// "gnu"`). Elsewhere it does nothing, and under a global allocator of the
/// program's own (jemalloc, mimalloc: they return memory on their own
/// schedule) it trims only glibc's own heap, which such a program hardly
/// uses: the objects the rotation dropped went back to that allocator.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool, rotate};
///
/// pool! { static PAGES: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(4096)).thread_capacity(0); }
///
/// let burst: Vec<_> = (0..64).map(|_| PAGES.acquire()).collect();
/// drop(burst);
/// rotate();
/// rotate(); // drops the idle buffers, then trims the allocator (the default)
/// assert_eq!(PAGES.stats().idle, 0);
///
/// pool_core::set_allocator_trim(false); // RSS then stays where glibc keeps it
/// # pool_core::set_allocator_trim(true);
/// ```
pub fn set_allocator_trim(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// A rotation dropped objects: trims, if the trim is on and the last one
/// is at least [`MIN_INTERVAL`] old.
pub(crate) fn trim_after_drops() {
    if !ENABLED.load(Ordering::Relaxed) {
        return;
    }
    {
        let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if last.is_some_and(|last| now.duration_since(last) < MIN_INTERVAL) {
            return;
        }
        *last = Some(now);
    }
    trim();
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
fn trim() {
    #[cfg(test)]
    TRIMS.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `malloc_trim` takes no pointer and may be called at any time
    // from any thread; glibc takes its arenas' locks itself.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
fn trim() {}
