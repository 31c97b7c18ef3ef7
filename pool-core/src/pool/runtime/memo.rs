//! Each thread's memo of the run-time pools' parts it used last, in front
//! of the thread's list of its parts (`thread`; a lookup there each way
//! costs more than the rest of a round trip: docs/PERFORMANCE.md): four
//! entries, the pool's id modulo four picks one, so a thread's first four
//! run-time pools never evict each other.
//!
//! Invariant: an entry is set only just after the thread's list gave the
//! part, so only while the list is alive, and the list's destructor turns
//! the memo off ([`off`]) before it hands any part back to its pool; from
//! then on the memo stays off, and run-time pools' operations on the
//! thread go without a part. So an entry always names a part of this
//! thread's own. The memo has no destructor of its own, so it is readable
//! during thread-local destruction. Under loom every model thread runs on
//! one OS thread, so the memo is unused there: always a miss.

use std::cell::Cell;
use std::ptr::NonNull;

use crate::sync::MODELLED;

/// An entry's id once the memo is off: matches no pool.
const OFF: u64 = u64::MAX;

type Entry = Cell<(u64, NonNull<()>)>;

std::thread_local! {
    /// No destructor, so it is readable during thread-local destruction.
    static MEMO: [Entry; 4] = const {
        [const { Cell::new((0, NonNull::dangling())) }; 4]
    };
}

/// Turns the thread's memo off for good: the thread is destroying its
/// list of parts.
pub(super) fn off() {
    if !MODELLED {
        MEMO.with(|memo| {
            memo.iter()
                .for_each(|entry| entry.set((OFF, NonNull::dangling())));
        });
    }
}

/// What the memo knows of a run-time pool's cache on this thread.
pub(crate) enum Memo {
    /// The cache recorded for the pool.
    Hit(NonNull<()>),
    /// Nothing recorded: look the cache up.
    Miss,
    /// The thread has destroyed its list of parts, or is destroying it,
    /// and its memo is off: the operation goes without a cache.
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
/// Must be called just after the thread's list gave it (module docs).
pub(crate) fn set(id: u64, cache: NonNull<()>) {
    if !MODELLED {
        MEMO.with(|memo| {
            let entry = &memo[(id % 4) as usize];
            if entry.get().0 != OFF {
                entry.set((id, cache));
            }
        });
    }
}
