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
//!
//! Beside it, the thread's token, which a part bears as its `owner` while
//! this thread owns it (`crate::pool::runtime::part`): a release compares
//! the two and so finds its own thread's part with no lookup. Tokens are
//! given once per thread, never reused, and never [`NOBODY`] (a part's
//! owner when it has none) or [`UNSET`] (a thread's token before it is
//! given, which no part bears): so a part's owner equals a thread's token
//! only if that thread stored it, when it took the part, and has not
//! stored [`NOBODY`] since, when it handed the part back. Under loom each
//! model thread has its own token.

use std::cell::Cell;
use std::ptr::NonNull;

use crate::sync::MODELLED;

/// An entry's id once the memo is off: matches no pool.
const OFF: u64 = u64::MAX;

/// A part's owner when no thread owns it: no thread's token.
pub(crate) const NOBODY: u64 = 0;

/// A thread's token before it is given: no part's owner.
const UNSET: u64 = u64::MAX;

/// The memo's entries, each a pool's id and the thread's part of it, and
/// the thread's token, on one thread-local.
struct Entries {
    entries: [Cell<(u64, NonNull<()>)>; 4],
    token: Cell<u64>,
}

std::thread_local! {
    /// No destructor, so it is readable during thread-local destruction.
    static MEMO: Entries = const {
        Entries {
            entries: [const { Cell::new((0, NonNull::dangling())) }; 4],
            token: Cell::new(UNSET),
        }
    };
}

crate::sync::thread_local! {
    /// The token of a model thread, under loom (in a std build, unused).
    #[allow(
        clippy::missing_const_for_thread_local,
        reason = "loom's thread_local! takes no const initializer"
    )]
    static MODEL_TOKEN: Cell<u64> = Cell::new(UNSET);
}

/// The calling thread's token: the `owner` of the parts it owns, and of
/// no other (module docs); [`UNSET`] until [`own_token`] gives it one.
#[inline(always)]
pub(crate) fn token() -> u64 {
    if MODELLED {
        MODEL_TOKEN.with(Cell::get)
    } else {
        MEMO.with(|memo| memo.token.get())
    }
}

/// The calling thread's token, given now if it has none: what a part it
/// takes bears as its owner.
pub(crate) fn own_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(NOBODY + 1);
    let give = |token: &Cell<u64>| {
        if token.get() == UNSET {
            // Only uniqueness matters: no order with anything else. A
            // counter that reached `UNSET` would take 2^64 threads.
            token.set(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        }
        token.get()
    };
    if MODELLED {
        MODEL_TOKEN.with(give)
    } else {
        MEMO.with(|memo| give(&memo.token))
    }
}

/// Turns the thread's memo off for good: the thread is destroying its
/// list of parts.
pub(crate) fn off() {
    if !MODELLED {
        MEMO.with(|memo| {
            memo.entries
                .iter()
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
#[inline]
pub(crate) fn get(id: u64) -> Memo {
    if !MODELLED {
        let (known, cache) = MEMO.with(|memo| memo.entries[(id % 4) as usize].get());
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
            let entry = &memo.entries[(id % 4) as usize];
            if entry.get().0 != OFF {
                entry.set((id, cache));
            }
        });
    }
}
