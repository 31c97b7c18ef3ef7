//! `fork`: a child must not inherit a lock that a rotation held, and the
//! caches of the threads the child lacks must still age.
//!
//! A child of `fork` has one thread, the one that forked, and every lock
//! as it was at the fork: one that another thread held stays held for
//! ever. Pre-fork servers fork while the automatic rotation thread
//! (`crate::engine::rotation`) runs, and the child goes on using the pools.
//!
//! - Every section of the engine that holds a pool's locks on a rotation's
//!   behalf (a rotation's or a `clear`'s aging, statistics, the registry
//!   of pools, publishing), and the run-time pools' tables
//!   (`crate::pool::runtime`), run [`excluded`]. A `pthread_atfork` prepare
//!   handler waits for the sections in progress and holds new ones off
//!   until the fork is done, in the parent and in the child. The sections
//!   run no user code and wait only for locks that other sections or slow
//!   paths hold for a few moves of pointers, so a fork waits for at most
//!   about one pool's rotation, one process-wide barrier. (A thread of the
//!   user's that is inside a slow path at the fork can still leave a store
//!   locked, as any lock a forking program's other threads hold.)
//! - Then, with no section in progress, the prepare handler takes the
//!   locks that acquire and release paths take ([`ForkHold`], given by
//!   `crate::engine::rotation`: the automatic rotation's and the trim's,
//!   the registry, then each pool's locks in `rotate_to`'s order) and
//!   holds them across the fork, as malloc holds its arenas' locks, so
//!   that a thread the child lacks cannot have left one locked. A fork
//!   waits for each of them once; the parent's other threads wait for the
//!   fork meanwhile. A slot's own lock is not taken (a slow path holds it
//!   while it registers, which waits for the fork): a cache whose owner was
//!   inside a slow path at the fork keeps its objects in the child until
//!   its pool ends, at most `thread_capacity` per such thread.
//! - Every thread cache records its [`Owner`]: a serial unique to its
//!   thread in this process and its ancestors, and how many forks had
//!   happened. The child handler records the forking thread: a cache made
//!   before the latest fork by another thread is an orphan
//!   ([`Owner::is_orphaned`]), whose owner lives on in the parent only,
//!   and rotation ages it without the handshake, on every platform.
//!
//! Invariant: while a fork is in progress, no thread is inside an
//! [`excluded`] section, and none enters one until the fork is done.
//!
//! std's atomics, not the facade's (`crate::sync`): loom cannot fork, and
//! the models need not explore a counter no fork ever contends.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Once, OnceLock};

use crate::sync::{at_fork, spin_wait};

/// The sections in progress (low half) and the forks in progress (high
/// half, in units of [`FORKING`]).
static SECTIONS: AtomicU64 = AtomicU64::new(0);

/// One fork in progress, in [`SECTIONS`].
const FORKING: u64 = 1 << 32;

/// The forks this process and its ancestors have seen.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// The serial of the thread that made the latest fork.
static FORKER: AtomicU64 = AtomicU64::new(0);

/// The next thread serial; 0 is no thread's.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

std::thread_local! {
    /// This thread's serial, given on first need; 0 until then.
    static SERIAL: Cell<u64> = const { Cell::new(0) };
    /// How many sections this thread is inside: a nested one must not wait
    /// for a fork that waits for the outer one.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// What the forking thread holds across its fork (see [`ForkHold`]).
    static HELD: RefCell<Option<ForkHold>> = const { RefCell::new(None) };
}

/// The locks a fork holds, and what keeps them valid: taken by the forking
/// thread's prepare handler once no section is in progress, released by the
/// same thread after the fork, in the parent and in the child, the last
/// taken first.
pub(crate) struct ForkHold(Vec<Box<dyn Kept>>);

/// Anything kept until the fork is done: a lock's guard, or what keeps the
/// lock alive.
trait Kept {}

impl<T> Kept for T {}

impl ForkHold {
    /// Keeps `value` (a lock's guard) until the fork is done.
    ///
    /// # Safety
    ///
    /// What `value` borrows lives until the fork is done: a static, or a
    /// pool kept alive by a value kept after this one (released before it).
    pub(crate) unsafe fn keep<'a, T: 'a>(&mut self, value: T) {
        let value: Box<dyn Kept + 'a> = Box::new(value);
        // SAFETY: only the lifetime changes (the same fat pointer), and the
        // caller's promise outlasts the box, which the fork's handlers drop.
        let value = unsafe { std::mem::transmute::<Box<dyn Kept + 'a>, Box<dyn Kept>>(value) };
        self.0.push(value);
    }
}

impl Drop for ForkHold {
    fn drop(&mut self) {
        // The last taken first: each is dropped as it is popped.
        while self.0.pop().is_some() {}
    }
}

/// Takes the locks a fork holds ([`ForkHold`]): rotation's, set by the
/// first [`watch`].
static HOLD: OnceLock<fn(&mut ForkHold)> = OnceLock::new();

/// The thread that made a cache, and when.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner {
    /// The thread's serial, 0 if it could not be had (its thread-locals
    /// already gone): such a cache is never taken for an orphan.
    thread: u64,
    /// [`FORKS`] when the cache was made.
    forks: u64,
}

impl Owner {
    /// No thread: a closed slot's (`Slot::closed`), never taken for an
    /// orphan (serial 0).
    pub(crate) const NONE: Owner = Owner {
        thread: 0,
        forks: 0,
    };

    /// The calling thread, now.
    pub(crate) fn current() -> Owner {
        Owner {
            thread: serial(),
            forks: forks(),
        }
    }

    /// Whether the cache's thread is not in this process: the cache was
    /// made before the latest fork, by a thread other than the one that
    /// forked. (Only that thread crossed the fork, and serials are never
    /// reused within a line of processes, so the latest fork decides.)
    pub(crate) fn is_orphaned(&self) -> bool {
        self.forks < forks() && self.thread != 0 && self.thread != FORKER.load(Ordering::Relaxed)
    }
}

/// The forks this process and its ancestors have seen: a thread started
/// when there were fewer is not in this process (unless it made the fork).
pub(crate) fn forks() -> u64 {
    FORKS.load(Ordering::Relaxed)
}

/// The calling thread's serial, given on first need; 0 during its
/// thread-locals' destruction if it had none before.
fn serial() -> u64 {
    SERIAL
        .try_with(|serial| {
            if serial.get() == 0 {
                serial.set(NEXT_SERIAL.fetch_add(1, Ordering::Relaxed));
            }
            serial.get()
        })
        .unwrap_or(0)
}

/// Inside an [`excluded`] section.
pub(crate) struct Excluded(());

/// Enters a section that a fork must not copy: waits while a fork is in
/// progress, unless this thread is already inside one.
pub(crate) fn excluded() -> Excluded {
    let nested = DEPTH
        .try_with(|depth| {
            depth.set(depth.get() + 1);
            depth.get() > 1
        })
        .unwrap_or(false);
    let (mut round, mut sections) = (0, SECTIONS.load(Ordering::Relaxed));
    loop {
        if sections >= FORKING && !nested {
            spin_wait(&mut round);
            sections = SECTIONS.load(Ordering::Relaxed);
            continue;
        }
        // Acquire: what the fork's thread did before it let sections in
        // again happens before this one.
        match SECTIONS.compare_exchange_weak(
            sections,
            sections + 1,
            Ordering::Acquire,
            Ordering::Relaxed,
        ) {
            Ok(_) => return Excluded(()),
            Err(now) => sections = now,
        }
    }
}

impl Drop for Excluded {
    fn drop(&mut self) {
        // Release: the section's writes happen before the fork that waited.
        SECTIONS.fetch_sub(1, Ordering::Release);
        let _ = DEPTH.try_with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Installs the fork handlers, once per process, with `hold`, which takes
/// the locks the fork holds (`crate::engine::rotation`'s): called before
/// the first lock a fork holds is taken.
pub(crate) fn watch(hold: fn(&mut ForkHold)) {
    let _ = HOLD.set(hold);
    static WATCHING: Once = Once::new();
    WATCHING.call_once(|| {
        at_fork(prepare, parent, child);
    });
}

/// Before a fork: no section may be in progress at the copy, and no lock
/// an acquire or a release takes may be held by another thread.
extern "C" fn prepare() {
    SECTIONS.fetch_add(FORKING, Ordering::Acquire);
    let mut round = 0;
    while SECTIONS.load(Ordering::Acquire) % FORKING != 0 {
        spin_wait(&mut round);
    }
    if let Some(hold) = HOLD.get() {
        let mut held = ForkHold(Vec::new());
        hold(&mut held);
        // A thread at its exit (its locals gone) forks holding nothing:
        // `held` is dropped here, the locks released.
        let _ = HELD.try_with(|slot| *slot.borrow_mut() = Some(held));
    }
}

/// Releases what [`prepare`] held, after the fork.
fn release() {
    drop(HELD.try_with(|slot| slot.borrow_mut().take()));
}

/// After a fork, in the parent: the locks are released, and sections may
/// run again.
extern "C" fn parent() {
    release();
    SECTIONS.fetch_sub(FORKING, Ordering::Release);
}

/// After a fork, in the child: the locks are released (this thread holds
/// them), no other fork is in progress here and no section is, and the
/// caches of every thread but this one are orphans.
extern "C" fn child() {
    release();
    FORKER.store(serial(), Ordering::Relaxed);
    FORKS.fetch_add(1, Ordering::Relaxed);
    SECTIONS.store(0, Ordering::Release);
}
