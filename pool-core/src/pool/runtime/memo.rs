//! Each thread's memo of the run-time pools' parts it used last, in front
//! of the `ThreadLocal` lookup (a lookup each way costs more than the rest
//! of a round trip: docs/PERFORMANCE.md): four entries, the pool's id
//! modulo four picks one, so a thread's first four run-time pools never
//! evict each other.
//!
//! Invariant: an entry is set only while the thread holds its
//! `thread_local`-crate thread id, which is what makes the crate hand the
//! cache to this thread and no other. The memo is cleared, and stays off,
//! from the moment `MemoGuard`'s thread-local destructor runs, which is
//! before the crate's own destructor frees the thread id: the guard is
//! first touched after the thread's first `ThreadLocal` access (which
//! registers the crate's destructor), and every std platform runs
//! thread-local destructors in the reverse order of their registration
//! (glibc's `__cxa_thread_atexit_impl` list, and std's own list, which it
//! pops). Once it is off, run-time pools' operations on the thread go
//! straight to the shared store. Under loom every model thread runs on one
//! OS thread, so the memo is unused there: always a miss.

use std::cell::Cell;
use std::ptr::NonNull;

use crate::sync::MODELLED;

/// An entry's id once the thread's guard is gone: matches no pool.
const OFF: u64 = u64::MAX;

type Entry = Cell<(u64, NonNull<()>)>;

std::thread_local! {
    /// No destructor, so it is readable during thread-local destruction.
    static MEMO: [Entry; 4] = const {
        [const { Cell::new((0, NonNull::dangling())) }; 4]
    };
    /// Its destructor turns the memo off (module docs).
    static GUARD: MemoGuard = const { MemoGuard };
}

/// Turns the thread's memo off when the thread's locals are destroyed.
struct MemoGuard;

impl Drop for MemoGuard {
    fn drop(&mut self) {
        MEMO.with(|memo| {
            memo.iter()
                .for_each(|entry| entry.set((OFF, NonNull::dangling())))
        });
    }
}

/// What the memo knows of a run-time pool's cache on this thread.
pub(crate) enum Memo {
    /// The cache recorded for the pool.
    Hit(NonNull<()>),
    /// Nothing recorded: look the cache up.
    Miss,
    /// The thread is destroying its thread-locals and its memo is off:
    /// its `thread_local`-crate id may be gone too, and looking the
    /// cache up with it could panic (an abort, in a thread-local's
    /// destructor), so the operation goes without a cache.
    Off,
}

/// The cache this thread recorded for the run-time pool `id`, if any.
#[inline(always)]
pub(crate) fn get(id: u64) -> Memo {
    if !MODELLED {
        let (known, cache) = MEMO.with(|memo| memo[(id % 4) as usize].get());
        // Ids start at 1 and `OFF` is none: a match is a recorded cache.
        if known == id {
            return Memo::Hit(cache);
        }
        if known == OFF {
            return Memo::Off;
        }
    }
    Memo::Miss
}

/// Records `cache` as this thread's cache of the run-time pool `id`.
/// Must be called just after the `ThreadLocal` lookup that found it.
pub(crate) fn set(id: u64, cache: NonNull<()>) {
    if !MODELLED {
        // Registers the guard's destructor on first use, after the
        // crate's (module docs); once it has run, the memo stays off.
        if GUARD.try_with(|_| ()).is_err() {
            return;
        }
        MEMO.with(|memo| {
            let entry = &memo[(id % 4) as usize];
            if entry.get().0 != OFF {
                entry.set((id, cache));
            }
        });
    }
}
