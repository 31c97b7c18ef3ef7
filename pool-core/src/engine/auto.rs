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

use std::cell::RefCell;
use std::sync::{Condvar, Mutex, MutexGuard, Once, PoisonError};
use std::time::Duration;

use crate::sync::at_fork;

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
    /// Whether the thread has been started.
    started: bool,
    /// Bumped by every change of the period, so that the thread restarts
    /// its wait.
    changes: u64,
}

static AUTO: Mutex<Auto> = Mutex::new(Auto {
    period: Some(DEFAULT_ROTATION_PERIOD),
    used: false,
    started: false,
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
    watch_forks();
    let mut auto = auto();
    auto.period = period.map(|period| period.max(MIN_PERIOD));
    auto.changes += 1;
    start_if_due(&mut auto);
    CHANGED.notify_all();
}

/// Records that a pool has been used, starting the thread if a period is
/// set. Called once per pool, when it is first registered with rotation.
pub(crate) fn pool_used() {
    watch_forks();
    let mut auto = auto();
    auto.used = true;
    start_if_due(&mut auto);
}

fn start_if_due(auto: &mut Auto) {
    if !crate::sync::BACKGROUND_THREADS || auto.started || !auto.used || auto.period.is_none() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("pool-auto-rotator".into())
        .spawn(run);
    // If the thread cannot be made, rotation stays manual; a later change
    // of the period tries again.
    auto.started = spawned.is_ok();
}

/// Installs this module's fork handlers, once, before [`AUTO`] is first
/// locked (not under it: a fork may be running the handlers).
fn watch_forks() {
    static WATCHING: Once = Once::new();
    WATCHING.call_once(|| {
        at_fork(prepare_fork, after_fork_in_parent, after_fork_in_child);
    });
}

std::thread_local! {
    /// The lock on [`AUTO`], held by a forking thread across its fork, so
    /// that the child does not inherit it held by the rotation thread.
    static HELD_ACROSS_FORK: RefCell<Option<MutexGuard<'static, Auto>>> =
        const { RefCell::new(None) };
}

/// Before a fork: holds [`AUTO`] (unless this thread's locals are gone,
/// at its exit).
extern "C" fn prepare_fork() {
    let _ = HELD_ACROSS_FORK.try_with(|held| *held.borrow_mut() = Some(auto()));
}

fn release_after_fork() -> Option<MutexGuard<'static, Auto>> {
    HELD_ACROSS_FORK
        .try_with(|held| held.borrow_mut().take())
        .ok()
        .flatten()
}

extern "C" fn after_fork_in_parent() {
    drop(release_after_fork());
}

/// The child has no rotation thread: a later period starts one.
extern "C" fn after_fork_in_child() {
    if let Some(mut auto) = release_after_fork() {
        auto.started = false;
    }
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
        let _ = std::panic::catch_unwind(crate::rotate);
        auto = self::auto();
    }
}
