//! A thread's shares of the run-time pools, as the typed pools reach them
//! on the fast path, with no call into the run-time pools' code: the memo
//! that finds the calling thread's share of a pool, the token that says
//! whose a share is, and the share's head, what an acquire reads and writes
//! of it. The rest of a share (the count of guards given back, its pool,
//! its owner's token) and the protocol that keeps the pool alive are
//! `crate::pool::runtime::share`'s, which embeds the head first.
//!
//! The memo: four entries, the pool's id modulo four picks one, so a
//! thread's first four run-time pools never evict each other; in front of
//! the thread's list of its shares (below). And four for generic derived
//! structs' pools, each a struct's key ([`TypeKey`], an address) and the
//! thread's share of its pool, replaced in turn, so that code alternating
//! instantiations finds each share in one lookup
//! (`crate::pool::runtime::generic`).
//!
//! Invariants:
//! - A memo entry is set only just after the thread's list (or the memo)
//!   gave the share (the list records it, [`share`]),
//!   so only while the list is alive, and the list's destructor turns the
//!   memo off before it hands any share back to its pool; from
//!   then on the memo stays off, and run-time pools' operations on the
//!   thread go without a share. So an entry always names a share of this
//!   thread's own. The memo has no destructor of its own, so it is
//!   readable during thread-local destruction. Under loom every model
//!   thread runs on one OS thread, so the memo is unused there: always a
//!   miss.
//! - Tokens are given once per thread, never reused, and never [`NOBODY`]
//!   (a share's owner when it has none) or `UNSET` (a thread's token
//!   before it is given, which no share bears): so a share's owner equals a
//!   thread's token only if that thread stored it, when it took the share,
//!   and has not stored [`NOBODY`] since, when it handed the share back.
//!   Under loom each model thread has its own token.
//! - A head is the first field of a `#[repr(C)]` share, so a pointer to the
//!   head is a pointer to the share, and its `home` is first, so it is a
//!   pointer to the home of the guards lent through the share ([`Home`]'s
//!   invariant). `cache` is written only while no thread
//!   owns the share; `lent` only by the owner thread. A share whose `lent`
//!   has [`HELD`] set holds a strong count on its pool, so a guard counted
//!   out of it in `lent` keeps the pool alive (`ThreadShare`'s protocol).
//!
//! Each thread's own list of its shares of the run-time pools, keyed by the
//! pool's id, and what the thread's exit does with them: the storage a
//! `thread_local!` gives a static pool, for pools made at run time.
//!
//! Invariant: a share in a thread's list is used by that thread alone, for
//! as long as its pool lives and the list does. The list's destructor, at
//! the thread's exit, first turns the thread's memo off (above), so that
//! no later operation on the thread reaches a share, and then hands each
//! share whose pool is still alive back to it ([`Exit::exit`]): the pool
//! retires the share's cache into its shared store, as a static pool's
//! thread-local does, and keeps the share for the next thread that needs
//! one. Neither the lookup nor the exit needs a thread id, so both work
//! in any order of the thread-local destructors; once the list is gone,
//! the thread's operations go without a share.
//!
//! A pool dropped before the thread leaves a dead entry (its `Weak`
//! upgrades to nothing, and the pool has freed the share), which the
//! thread's next insertion clears when the list has doubled since the last
//! clearing. So a thread's list costs one entry per live pool it used,
//! whatever other threads exist.
//!
//! Under loom a model thread's locals are dropped outside its execution,
//! where no modelled lock may be taken: a model ends each thread by taking
//! its list out of [`SHARES`] and dropping it, which is what the
//! destructor does.

use std::any::TypeId;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crossbeam_utils::CachePadded;

use crate::engine::cache::RawCache;
use crate::pool::guard::Home;
use crate::reset::Reset;
use crate::sync::{AtomicUsize, MODELLED, Ordering};

/// An entry's id once the memo is off: matches no pool.
const OFF: u64 = u64::MAX;

/// A share's owner when no thread owns it: no thread's token.
pub(crate) const NOBODY: u64 = 0;

/// A thread's token before it is given: no share's owner.
const UNSET: u64 = u64::MAX;

/// The memo's entries, each a pool's id and the thread's share of it (in
/// two arrays: an index scales by 8, not by 16), and the thread's token,
/// on one thread-local; and the generic derived structs' pools' shares,
/// each with its struct's key ([`TypeKey`], null in an empty entry),
/// replaced in turn (`next`).
struct Entries {
    ids: [Cell<u64>; 4],
    shares: [Cell<NonNull<()>>; 4],
    token: Cell<u64>,
    keys: [Cell<*const TypeOf>; 4],
    typed: [Cell<NonNull<()>>; 4],
    next: Cell<usize>,
}

/// What a [`TypeKey`] points to: `TypeId::of` of its type.
pub(crate) type TypeOf = fn() -> TypeId;

/// A generic derived struct's key in the memo: the address of a constant
/// that holds `TypeId::of::<T>` ([`type_key`]), so that a lookup is one
/// compare of addresses where a `TypeId` took two and a test for an empty
/// entry.
///
/// Invariant: equal keys are the same type's. A key points to a constant,
/// memory that lives for ever and never changes, so one address always
/// holds the same function, and two types' functions return different
/// `TypeId`s: they are never one function (no code folding can merge
/// them). One type may have several keys (rustc emits a copy of the
/// constant per codegen unit): a miss confirms the type by the
/// functions' `TypeId`s ([`typed_copy`]).
pub(crate) type TypeKey = &'static TypeOf;

/// The key of `T` ([`TypeKey`]).
#[allow(clippy::inline_always, reason = "an address, for the hot paths")]
#[inline(always)]
pub(crate) fn type_key<T: 'static>() -> TypeKey {
    const { &(TypeId::of::<T> as TypeOf) }
}

std::thread_local! {
    /// No destructor, so it is readable during thread-local destruction.
    static MEMO: Entries = const {
        Entries {
            ids: [const { Cell::new(0) }; 4],
            shares: [const { Cell::new(NonNull::dangling()) }; 4],
            token: Cell::new(UNSET),
            keys: [const { Cell::new(std::ptr::null()) }; 4],
            typed: [const { Cell::new(NonNull::dangling()) }; 4],
            next: Cell::new(0),
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

/// Runs `f` on the calling thread's token cell: the memo's, or under
/// loom the model thread's.
#[inline]
fn with_token<R>(f: impl FnOnce(&Cell<u64>) -> R) -> R {
    if MODELLED {
        MODEL_TOKEN.with(f)
    } else {
        MEMO.with(|memo| f(&memo.token))
    }
}

/// The calling thread's token: the `owner` of the shares it owns, and of
/// no other (module docs); [`UNSET`] until [`own_token`] gives it one.
#[inline]
pub(crate) fn token() -> u64 {
    with_token(Cell::get)
}

/// The calling thread's token, given now if it has none: what a share it
/// takes bears as its owner.
pub(crate) fn own_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(NOBODY + 1);
    with_token(|token| {
        if token.get() == UNSET {
            // Only uniqueness matters: no order with anything else. A
            // counter that reached `UNSET` would take 2^64 threads.
            token.set(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        }
        token.get()
    })
}

/// Which of the memo's four entries a run-time pool's id picks
/// ([`memo_entry`]): kept by the pool, so that a lookup does not compute
/// it, and an enum, so that indexing with it needs no bounds check.
#[derive(Clone, Copy)]
pub(crate) enum MemoEntry {
    A,
    B,
    C,
    D,
}

/// The memo's entry of the run-time pool `id`.
pub(crate) fn memo_entry(id: u64) -> MemoEntry {
    [MemoEntry::A, MemoEntry::B, MemoEntry::C, MemoEntry::D][(id % 4) as usize]
}

/// The cache this thread recorded for the run-time pool `id`, whose entry
/// is `at` ([`memo_entry`]), if any. A thread whose memo is off has none,
/// nor a list to look in ([`share`] gives `None`).
#[inline]
pub(crate) fn get(id: u64, at: MemoEntry) -> Option<NonNull<()>> {
    if MODELLED {
        return None;
    }
    let at = at as usize;
    let (known, cache) = MEMO.with(|memo| (memo.ids[at].get(), memo.shares[at].get()));
    // Ids start at 1 and `OFF` is none: a match is a recorded cache.
    (known == id).then_some(cache)
}

/// Records `cache` as this thread's cache of the run-time pool `id`, as
/// the thread's list gives it (module docs).
fn set(id: u64, cache: NonNull<()>) {
    if !MODELLED {
        let at = memo_entry(id) as usize;
        MEMO.with(|memo| {
            if memo.ids[at].get() != OFF {
                memo.ids[at].set(id);
                memo.shares[at].set(cache);
            }
        });
    }
}

/// The share this thread recorded for the pool of the generic derived
/// struct whose key is `key` ([`TypeKey`]), if any.
#[allow(clippy::inline_always, reason = "a generic struct's hot paths")]
#[inline(always)]
pub(crate) fn typed(key: TypeKey) -> Option<NonNull<()>> {
    if MODELLED {
        return None;
    }
    let hit = MEMO.with(|memo| {
        let mut entries = memo.keys.iter().zip(&memo.typed);
        // A key is never null, so an empty entry matches none.
        let found = entries.find(|(known, _)| std::ptr::eq(known.get(), key));
        found.map(|(_, share)| share.get())
    });
    hit.or_else(|| typed_copy(key))
}

/// A memo miss for the key `key`: the share of an entry recorded under
/// another key of the same type (another copy of its constant,
/// [`TypeKey`]), confirmed by the `TypeId` the two keys' functions give;
/// else `None`. `key` takes that entry, and the other copy the oldest
/// one (unless it is that entry), so that both hit from then on, `key`
/// first: on the first acquire, `T::pool()` records its own copy.
#[cold]
#[inline(never)]
fn typed_copy(key: TypeKey) -> Option<NonNull<()>> {
    let id = key();
    MEMO.with(|memo| {
        let at = memo.keys.iter().position(|known| {
            // SAFETY: a non-null key is a `TypeKey`, a `'static`
            // reference, recorded with its provenance.
            unsafe { known.get().as_ref() }.is_some_and(|known| known() == id)
        })?;
        // The memo is on: a key was found, and `exit` clears them all as
        // it turns the memo off.
        let (copy, share) = (memo.keys[at].replace(key), memo.typed[at].get());
        if memo.next.get() != at {
            record_typed(memo, copy, share);
        }
        Some(share)
    })
}

/// Records `share` as this thread's share of the pool of the generic
/// derived struct whose key is `key`, in place of the oldest entry. Must
/// be called just after the thread's list gave it (module docs).
pub(crate) fn set_typed(key: TypeKey, share: NonNull<()>) {
    if !MODELLED {
        MEMO.with(|memo| {
            if memo.ids[0].get() != OFF {
                record_typed(memo, key, share);
            }
        });
    }
}

/// Puts `key` and `share` in the memo's oldest generic entry.
fn record_typed(memo: &Entries, key: *const TypeOf, share: NonNull<()>) {
    let next = memo.next.get();
    memo.keys[next].set(key);
    memo.typed[next].set(share);
    memo.next.set((next + 1) % memo.keys.len());
}

/// The unit of a share's counts of guards (`lent` here, `back` in the share).
pub(crate) const ONE: usize = 2;
/// `lent`'s flag: the share holds a strong count on its pool.
pub(crate) const HELD: usize = 1;

/// The head of a run-time pool's share (module docs). Generic only in its
/// home: what the fast acquire calls on it is compiled once, not once per
/// pooled type.
#[repr(C)]
pub(crate) struct ShareHead<T: Reset + Send + 'static> {
    /// What the guards lent through the share point to. First (module
    /// docs).
    pub(crate) home: Home<T>,
    /// The owner's cache, without its type.
    pub(crate) cache: OwnerCache,
    /// The guards lent through the share, and whether it holds its pool.
    pub(crate) lent: LentCount,
}

impl<T: Reset + Send + 'static> ShareHead<T> {
    /// A head for a share whose guards go back through `home`, with
    /// `cache` for its first owner.
    pub(crate) fn new(home: Home<T>, cache: RawCache) -> Self {
        ShareHead {
            home,
            cache: OwnerCache(UnsafeCell::new(cache)),
            lent: LentCount(CachePadded::new(AtomicUsize::new(0))),
        }
    }
}

/// A share's cache: reached by the share's owner only, and replaced by the
/// next owner before its first use.
pub(crate) struct OwnerCache(UnsafeCell<RawCache>);

impl OwnerCache {
    /// The cache. Called by the share's owner only.
    #[inline]
    pub(crate) fn get(&self) -> &RawCache {
        // SAFETY: only the share's next owner replaces the cache, before
        // its first use, and no reference of the last owner's outlives its
        // handing the share back (module docs); the caller owns the share.
        unsafe { &*self.0.get() }
    }

    /// Gives the share a new cache for its new owner.
    ///
    /// # Safety
    ///
    /// The caller is the share's new owner, which has not used the share
    /// yet: no reference to the old cache is live.
    pub(crate) unsafe fn replace(&self, cache: RawCache) {
        // SAFETY: the caller's promise.
        unsafe { *self.0.get() = cache };
    }
}

/// `ONE` × guards lent + [`HELD`]: written by the owner only (a load and a
/// store per acquire), read by the pool's `close`. On a line of its own:
/// the home's line is read by every release of the share's guards, on
/// whatever thread, and sharing it would move that line between the cores
/// for every object handed across.
pub(crate) struct LentCount(CachePadded<AtomicUsize>);

impl LentCount {
    /// The count, for `close`, which no acquire can race (module docs of
    /// `crate::pool::runtime::share`).
    #[inline]
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Whether the share holds its count on the pool, as every share an
    /// acquire reaches does.
    #[inline]
    pub(crate) fn held(&self) -> bool {
        self.get() & HELD != 0
    }

    /// Records that the share now holds its count on the pool. Called by
    /// the owner, under the pool's lock on its shares.
    pub(crate) fn set_held(&self) {
        self.0.store(self.get() | HELD, Ordering::Relaxed);
    }

    /// Counts a guard lent, on the owner's thread, through a share that
    /// holds its count on the pool: a load and a store, as no other thread
    /// writes the count.
    #[inline]
    pub(crate) fn lend_held(&self) {
        self.0
            .store(self.get().wrapping_add(ONE), Ordering::Relaxed);
    }
}

/// A run-time pool, as a thread's list knows it: what to do with the
/// thread's share of it when the thread exits.
pub(super) trait Exit: Send + Sync {
    /// The thread that owns `share`, this pool's, is exiting: take the
    /// share back. Called with a strong count on the pool, given back here.
    fn exit(self: Arc<Self>, share: NonNull<()>);
}

/// A thread's share of one pool, with the pool.
type Listed = (Weak<dyn Exit>, NonNull<()>);

/// The calling thread's shares, by pool id.
#[derive(Default)]
pub(crate) struct ThreadShares {
    by_pool: BTreeMap<u64, Listed>,
    /// The length at which the next insertion clears dead entries.
    clear_at: usize,
}

crate::sync::thread_local! {
    /// The calling thread's shares.
    pub(crate) static SHARES: RefCell<ThreadShares> = RefCell::new(ThreadShares::default());
}

/// The calling thread's share of the pool `id`: the one listed, or the one
/// `take` hands it (the pool and its share), then listed; recorded in the
/// memo. `None` once the thread is destroying its list.
///
/// `take` may lock the pool's own locks, but must not use a run-time pool.
pub(super) fn share(
    id: u64,
    take: impl FnOnce() -> (Weak<dyn Exit>, NonNull<()>),
) -> Option<NonNull<()>> {
    let share = SHARES
        .try_with(|shares| {
            if let Some(&(_, share)) = shares.borrow().by_pool.get(&id) {
                return share;
            }
            let (pool, share) = take();
            let shares = &mut *shares.borrow_mut();
            if shares.by_pool.len() >= shares.clear_at {
                shares
                    .by_pool
                    .retain(|_, (pool, _)| pool.strong_count() > 0);
                // At least 8: a short list is not cleared at every insertion.
                shares.clear_at = 8.max(2 * shares.by_pool.len());
            }
            shares.by_pool.insert(id, (pool, share));
            share
        })
        .ok()?;
    set(id, share);
    Some(share)
}

impl Drop for ThreadShares {
    /// The thread's exit: turns its memo off for good, then hands every
    /// listed share back to its pool, if the pool lives.
    fn drop(&mut self) {
        if !MODELLED {
            MEMO.with(|memo| {
                memo.ids.iter().for_each(|id| id.set(OFF));
                memo.keys.iter().for_each(|key| key.set(std::ptr::null()));
            });
        }
        for (_, (pool, share)) in std::mem::take(&mut self.by_pool) {
            if let Some(pool) = pool.upgrade() {
                pool.exit(share);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::any::TypeId;
    use std::ptr::NonNull;

    use super::{MEMO, ThreadShares, TypeKey, TypeOf, set_typed, type_key, typed};

    /// The generic entries of the memo: a type's key hits, another type's
    /// key misses (no false hit), and another copy of a type's constant
    /// finds the type's share through its `TypeId`, then is recorded and
    /// hits; once the memo is off, nothing hits and nothing is recorded.
    #[test]
    fn generic_memo_hits_only_its_type_and_records_a_copy() {
        std::thread::spawn(|| {
            static SHARES: [u8; 2] = [0; 2];
            let share = NonNull::from(&SHARES[0]).cast::<()>();
            let (bytes, words) = (type_key::<u8>(), type_key::<u16>());
            // Another copy of `u8`'s constant, at an address of its own
            // (with a byte beside it, so that no constant can be merged
            // with it).
            static COPY: (TypeOf, u8) = (TypeId::of::<u8>, 1);
            let copy: TypeKey = &COPY.0;
            assert!(!std::ptr::eq(copy, bytes));
            assert_eq!(typed(bytes), None, "an empty memo");
            set_typed(bytes, share);
            assert_eq!(typed(bytes), Some(share));
            assert_eq!(typed(words), None, "another type's key");
            assert_eq!(typed(copy), Some(share), "a copy, by its `TypeId`");
            let first = MEMO.with(|memo| [0, 1].map(|at| memo.keys[at].get()));
            assert!(std::ptr::eq(first[0], copy), "the copy first");
            assert!(std::ptr::eq(first[1], bytes), "the other copy kept");
            assert_eq!(typed(copy), Some(share));
            assert_eq!(typed(words), None);
            drop(ThreadShares::default());
            set_typed(words, NonNull::from(&SHARES[1]).cast());
            assert_eq!(
                (typed(bytes), typed(words), typed(copy)),
                (None, None, None)
            );
        })
        .join()
        .unwrap();
    }
}
