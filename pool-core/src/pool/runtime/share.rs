//! A run-time pool's allocation, `Inner`, and its threads' shares: each
//! share holds one thread's cache and the counts of the guards lent through
//! it; the pool lists them all (for `close` and its drop) and keeps those
//! of exited threads for the next threads. How a thread finds its share is
//! `lookup`'s; how a guard comes back through it, `release`'s; the end of
//! the protocol, when the last handle goes, `crate::pool::runtime`'s.
//!
//! Invariant: the count protocol stated on [`ThreadShare`]: a share that can lend
//! a guard holds one strong count on the pool until the pool is closed and
//! every guard it lent is back; a guard holds a count on its share, given
//! back by its home's `release` or `abandon` ([`Home`]), unless its pool
//! is a generic struct's, never freed (`generic`). A share has one
//! owner thread at a time: the thread whose list (`thread`) holds it, and
//! between two owners, none (it is on the pool's free list, its cache
//! retired); it is freed with the pool.
//!
//! The way back of a guard acquired through a thread's share: its
//! `release` and `abandon` ([`Home`]), which return the object through
//! the pool on whatever thread drops the guard, then give back the
//! guard's count on its share; and `Inner`'s `put`, the same return for an
//! object with no share's count (`Pool::put`, a counted guard, a guard
//! released on another thread than its share's).
//!
//! Invariant: `ThreadShare`'s count protocol (`share`): a release gives back its
//! guard's count exactly once, last, also when the reset, the `retain`
//! test or a destructor panics ([`GiveBack`]), and touches nothing of the
//! pool after it unless its addition closed the share. An object goes to
//! the share's cache only on the share's owner thread (`share_release`),
//! else to the calling thread's own share.
//!
//! How a run-time pool's `Pool` reaches the calling thread's share past the
//! memo (`Inner::share`): the thread's list of its shares
//! (`thread`), which takes a share from the pool the first time, one an
//! exited thread left or a new one; what the pool does with a share when
//! its thread exits ([`Exit`]); and the `put` and `clear` of the pool's
//! `crate::pool::Runtime` (its `acquire`, past the memo, is `share`'s).
//!
//! Invariant: a share the lookup returns is the calling thread's own, and
//! lives as long as the pool (`share`'s invariant): the memo and the list
//! give only shares this thread took, and a share is handed back, its cache
//! retired, only by its thread's exit, once the memo is off.

use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crossbeam_utils::CachePadded;

use super::threads::{self, Exit, ONE, ShareHead};
use crate::engine::cache::{RawCache, put_shared};
use crate::engine::erased::Boxed;
use crate::engine::slot::epoch;
use crate::pool::config::ResetOn;
use crate::pool::guard::{Abandoned, Home, Pooled, Released};
use crate::pool::state::PoolState;
use crate::pool::{Pool, Runtime};
use crate::reset::Reset;
use crate::sync::{AtomicU64, AtomicUsize, Mutex, Ordering, Owners, lock};

/// A run-time pool's constructor and `retain` test, as the pool keeps them.
pub(super) type CreateClosure<T> = Arc<dyn Fn() -> T + Send + Sync>;
pub(super) type RetainClosure<T> = Arc<dyn Fn(&T) -> bool + Send + Sync>;

/// A run-time pool's allocation. `repr(C)` with `pool` first, and the
/// `Pool`'s home first in it, so that the home of a guard taken without a
/// share is a pointer to the `Inner`, which [`release_counted`] and
/// [`abandon_counted`] give back to the `Arc`. Fields drop in declaration
/// order (module docs of `crate::pool::runtime`).
#[repr(C)]
pub(super) struct Inner<T: Reset + Send + 'static> {
    pub(super) pool: Pool<T>,
    pub(super) state: PoolState<T>,
    /// What `pool.config` calls, if closures; held here so that it lives
    /// as long.
    pub(super) _create: Option<CreateClosure<T>>,
    pub(super) _retain: Option<RetainClosure<T>>,
    /// The strong count's happens-before, for loom.
    pub(super) owners: Owners,
    /// How the `Pool` reaches the threads' shares, as `pool` holds it: the
    /// allocation (with the provenance of all of it) and the pool's id,
    /// the key of the threads' memos and lists. Here for a handle's
    /// acquire, which so skips `Pool::acquire`'s test of the pool's kind,
    /// and for the run-time code's own lookups.
    pub(super) erased: Runtime<T>,
    /// The home of the guards lent through the shares (`home`).
    pub(super) share_home: Home<T>,
    /// Live handles: the last one to go closes every share (`close`).
    pub(super) handles: AtomicUsize,
    /// Every share, for `close` and the drop, and those no thread owns.
    pub(super) shares: Mutex<ShareList<T>>,
}

/// A run-time pool's shares.
pub(super) struct ShareList<T: Reset + Send + 'static> {
    /// Every share the pool made, each a `Box` of its own, freed with the
    /// pool.
    pub(super) all: Vec<Lent<T>>,
    /// The shares of `all` that no thread owns: their threads exited.
    pub(super) free: Vec<Lent<T>>,
}

/// A pointer to a share, in the pool's lists.
pub(super) struct Lent<T: Reset + Send + 'static>(pub(super) NonNull<ThreadShare<T>>);

// SAFETY: a pointer to a share, through which only the atomics `lent` and
// `back` are reached while a thread owns the share, and the rest by the
// share's next owner or the pool's drop, each after the share was handed
// over under the pool's lock; the share lives as long as the pool.
unsafe impl<T: Reset + Send + 'static> Send for Lent<T> {}

/// A thread's share of a run-time pool, in the thread's list and the pool's:
/// the thread's cache, and the counts of the guards acquired through it
/// and of those given back.
///
/// The counts are how a guard keeps its pool alive without writing a line
/// that every thread shares (a strong count per guard made two threads on
/// one pool slower than one). They are two, on two lines: `lent`, written
/// by the owner alone (a load and a store per acquire), and `back`, which
/// every release of one of the share's guards takes from, on whatever thread;
/// and `lent` is on a line apart from the `pool` fields those releases
/// read.
/// One count that both sides read-modify-write would move its line between
/// the two cores for every object handed from one thread to another.
/// Invariant, with `lent` = `ONE` × guards acquired + `HELD`, and `back` =
/// `OPEN` − `ONE` × guards given back (+ `ONE` × guards acquired − `OPEN`,
/// once closed), all modulo `usize`:
/// - From when a thread takes it while a handle is left, the share holds
///   one strong count on the pool (`HELD`), taken under the pool's lock
///   on its shares (`share_slow`); so every share an acquire goes through holds
///   it (an acquire needs a handle, and none comes back once none is
///   left).
/// - When the last handle goes, `close` adds `ONE` × guards acquired −
///   `OPEN` to `back` of every held share (no acquire can follow: it
///   needs a handle, and the handles' count orders every earlier acquire
///   before `close`). From then `back` is 0 exactly when every guard is
///   back, which before `close` it never is (`OPEN`, its low bit, is set).
///   The one read-modify-write of `back` that makes it 0, `close`'s or a
///   release's (`GiveBack`'s drop, a subtraction whose flags say so), gives back
///   the share's count.
/// - A release touches nothing of the pool after its subtraction from `back`,
///   unless it is the one that gives the count back.
#[repr(C)]
pub(super) struct ThreadShare<T: Reset + Send + 'static> {
    /// The guards' home, the owner's cache and `lent`: what
    /// `Pool::acquire` reaches on its fast path. First, so that a guard's
    /// home is a pointer to its share (`ShareHead`'s invariant); the guards'
    /// home is [`share_release`] and [`share_abandon`].
    pub(super) head: ShareHead<T>,
    /// Added to by the releases of the share's guards, on any thread: on a
    /// line of its own, away from what the owner writes and reads.
    pub(super) back: CachePadded<AtomicUsize>,
    /// The pool's allocation, with the provenance of all of it: never
    /// written after the share is made.
    pub(super) inner: NonNull<Inner<T>>,
    /// The owner's token (`threads::token`), or `threads::NOBODY` between two
    /// owners: written by the owner alone, as it takes the share and as it
    /// hands it back, and read by every release of the share's guards,
    /// which so knows whether the share is its own thread's (`threads`'s
    /// invariant). Beside `inner`, which those releases read anyway.
    owner: AtomicU64,
}

/// `back`'s flag: the pool is open (`ThreadShare`'s invariant).
pub(super) const OPEN: usize = 1;

// SAFETY: a share moves to another thread only from an exited owner to the
// next, through the pool's lock, or to the pool's drop, once every thread's
// use of the pool is over (`RawCache`'s `Send` says why a cache may), and
// `inner` points to the pool, which is `Sync`.
unsafe impl<T: Reset + Send + 'static> Send for ThreadShare<T> {}

impl<T: Reset + Send + 'static> ThreadShare<T> {
    /// The owner's cache. Called by the share's owner only (or the pool's
    /// drop), which is not replacing it.
    #[inline]
    pub(super) fn cache(&self) -> &RawCache {
        self.head.cache.get()
    }
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// The pool's allocation, with `Arc::as_ptr`'s provenance (all of it,
    /// the counts included), set by `Inner::make`.
    #[inline]
    pub(super) fn this(&self) -> NonNull<Inner<T>> {
        self.erased.inner.cast()
    }

    /// An acquire on a thread that is destroying its thread-locals, which
    /// has no share: without a cache, the guard holding a strong count.
    #[cold]
    #[inline(never)]
    fn acquire_counted(&self) -> Pooled<T> {
        let value = self.pool.take(&self.pool.config, None, epoch().now());
        let this = self.this();
        // SAFETY: `this` has `Arc::as_ptr`'s provenance, and the caller's
        // `&self` keeps the pool alive; the guard's count is given back by
        // `release_counted` or `abandon_counted`.
        unsafe { Arc::increment_strong_count(this.as_ptr().cast_const()) };
        // SAFETY: the guard holds the count taken above; the pool's home is
        // the first field of the `Inner`'s first field (both `repr(C)`),
        // and the pointer keeps the whole allocation's provenance.
        unsafe { Pooled::new(value, this.cast::<Home<T>>()) }
    }

    /// The calling thread's share: from the thread's memo, or else through
    /// [`share_slow`]. `None` once the thread is destroying its list.
    #[inline]
    pub(super) fn share(&self) -> Option<NonNull<ThreadShare<T>>> {
        // A hit was recorded by `share_slow`, on this thread, for the pool
        // whose id this is (ids are never reused), which is alive: `self`
        // is it. So it is this thread's share (`threads`'s invariant).
        let hit = threads::get(self.erased.id, self.erased.at);
        hit.map(NonNull::cast).or_else(|| share_slow(self))
    }

    /// The calling thread's cache, made (and registered) on first use;
    /// `None` once the thread is destroying its thread-locals.
    #[inline]
    pub(super) fn cache(&self) -> Option<&RawCache> {
        // SAFETY: a share lives as long as its pool, which `&self` keeps
        // alive.
        self.share()
            .map(|share| unsafe { (*share.as_ptr()).cache() })
    }
}

/// The `acquire` of a run-time pool's `Pool` past its fast path
/// (`crate::pool::Runtime`, `Pool::acquire_runtime`): on a memo miss, through
/// the thread's share, found or taken, or without one on a thread that is
/// destroying its thread-locals.
///
/// # Safety
///
/// `inner` is the allocation of a run-time pool of `T`s, with the
/// provenance of all of it, and `pool` is the `Pool` in it.
pub(super) unsafe fn acquire_erased<T: Reset + Send + 'static>(
    inner: NonNull<()>,
    pool: &Pool<T>,
) -> Pooled<T> {
    // SAFETY: the caller's promise; `pool`, in it, keeps it alive.
    let inner = unsafe { inner.cast::<Inner<T>>().as_ref() };
    // Checked in every build, on a memo miss only: a `Pool` outside its
    // allocation (the one a generic struct's release rebuilds, `generic`)
    // must not acquire through it.
    assert!(std::ptr::eq(pool, &inner.pool), "the pool in `inner`");
    let Some(share) = inner.share() else {
        return inner.acquire_counted();
    };
    // SAFETY: this thread's share, alive as long as the pool (which the
    // caller's `pool` keeps alive); other threads touch only its `back`.
    let here = unsafe { share.as_ref() };
    let value = inner
        .pool
        .take(&inner.pool.config, Some(here.cache()), epoch().now());
    here.head.lent.lend_held();
    // SAFETY: the guard's count on the share, which holds the pool
    // (`ThreadShare`'s invariant), is given back by `share_release` or
    // `share_abandon`; the share's home is its first field (`repr(C)`).
    unsafe { Pooled::new(value, share.cast::<Home<T>>()) }
}

/// The home of the guards acquired through a share of a pool that resets
/// its objects on `reset_on` and has a `retain` test if `retains`: both
/// fixed here, so that a release reads neither.
pub(super) fn home<T: Reset + Send + 'static>(reset_on: ResetOn, retains: bool) -> Home<T> {
    Home {
        release: match (reset_on, retains) {
            (ResetOn::Release, false) => share_release::<T, true, false>,
            (ResetOn::Release, true) => share_release::<T, true, true>,
            (ResetOn::Acquire, false) => share_release::<T, false, false>,
            (ResetOn::Acquire, true) => share_release::<T, false, true>,
        },
        abandon: share_abandon::<T>,
    }
}

/// Gives a guard's count back to its share when dropped, also when the
/// reset, the `retain` test or a destructor on the way panics.
struct GiveBack<T: Reset + Send + 'static>(NonNull<ThreadShare<T>>);

impl<T: Reset + Send + 'static> GiveBack<T> {
    /// The count of the guard whose home is `home`, a share's.
    ///
    /// # Safety
    ///
    /// `home` is a share's, and the caller gives up the count of a guard
    /// acquired through it.
    unsafe fn new(home: NonNull<Home<T>>) -> Self {
        GiveBack(home.cast())
    }

    /// The share and its pool, alive until `self` drops.
    fn get(&self) -> (&ThreadShare<T>, &Inner<T>) {
        // SAFETY: the guard's count keeps the share's hold, and so the
        // pool, alive until `self` drops; other threads write only the
        // share's atomics, and nothing writes `inner` once it is made.
        unsafe { (self.0.as_ref(), self.0.as_ref().inner.as_ref()) }
    }

    /// Runs `rest` on the share and its pool, then gives the count back:
    /// the count goes along into the call, so that the release that calls
    /// it keeps nothing for after it, nor for an unwind (no stack frame).
    #[cold]
    #[inline(never)]
    fn then(self, rest: impl FnOnce((&ThreadShare<T>, &Inner<T>))) {
        rest(self.get());
    }
}

impl<T: Reset + Send + 'static> Drop for GiveBack<T> {
    /// Gives back the guard's count on its share, and the share's count on
    /// the pool if that was the closed share's last guard (`ThreadShare`'s
    /// invariant): nothing of the pool is used after.
    fn drop(&mut self) {
        let share = self.0;
        // SAFETY: alive by the guard's count, given up by its home's call;
        // `back` is only reached as an atomic.
        let back = unsafe { &(*share.as_ptr()).back };
        // To 0: the share is closed (`OPEN` is clear) and every guard back.
        if back.fetch_sub(ONE, Ordering::AcqRel) == ONE {
            // SAFETY: the share's count on the pool, which only this release
            // gives back, and which keeps the share (freed with the pool) and
            // its `inner` there until then.
            unsafe { let_go((*share.as_ptr()).inner) };
        }
    }
}

/// The `release` of a guard acquired through a thread's share ([`Home`]):
/// returns the object through the pool, on whatever thread this is, then
/// gives back the guard's count on the share. `RESET` is whether the pool
/// resets on release (its `reset_on`) and `RETAIN` whether it has a
/// `retain` test, both fixed when the share is made.
fn share_release<T: Reset + Send + 'static, const RESET: bool, const RETAIN: bool>(
    home: NonNull<Home<T>>,
    value: Released<T>,
) {
    // SAFETY: a share's guard, whose count its home's call gives up.
    let give_back = unsafe { GiveBack::new(home) };
    let (here, inner) = give_back.get();
    // The guard's own share, if this thread owns it (the common case:
    // released where it was acquired); else this thread's share, with the
    // count (`GiveBack::then`). Relaxed is enough: only this thread stores
    // its token, so it reads its own last store, made as it took the
    // share; had it handed the share back since, it would read `NOBODY` or
    // a later owner's token.
    if here.owner.load(Ordering::Relaxed) != threads::token() {
        return give_back.then(move |(_, inner)| inner.put(value.0));
    }
    let cache = here.cache();
    let config = &inner.pool.config;
    let Some(value) = inner.pool.prepare(config, value.0, RESET, RETAIN) else {
        return;
    };
    if let (Err(value), held) = inner.pool.offer(config, Some(cache), value, epoch().now()) {
        give_back.then(move |(here, inner)| {
            put_shared(&inner.pool.state.core, Some(here.cache()), value, held);
        });
    }
}

/// The `abandon` of a guard acquired through a thread's share ([`Home`]).
fn share_abandon<T: Reset + Send + 'static>(home: NonNull<Home<T>>, value: Abandoned<T>) {
    // SAFETY: a share's guard, whose count its home's call gives up.
    let give_back = unsafe { GiveBack::new(home) };
    give_back.get().1.pool.abandon(value);
}

/// Gives back a closed share's strong count on its pool: a call of its own,
/// so that a release keeps no stack for the `Arc`'s drop.
///
/// # Safety
///
/// The caller gives back the share's count (`ThreadShare`'s invariant); `inner`
/// has `Arc::as_ptr`'s provenance.
#[cold]
#[inline(never)]
pub(super) unsafe fn let_go<T: Reset + Send + 'static>(inner: NonNull<Inner<T>>) {
    // SAFETY: the caller's promise.
    unsafe {
        (*inner.as_ptr()).owners.leave();
        Arc::decrement_strong_count(inner.as_ptr().cast_const());
    }
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// [`Pool::put`](crate::Pool::put), knowing where the caches are; also
    /// the release of a guard that holds no share (`crate::pool::runtime`).
    #[inline]
    pub(super) fn put(&self, value: Boxed<T>) {
        let reset = self.pool.config.reset_on == ResetOn::Release;
        if let Some(value) = self.pool.prepare(&self.pool.config, value, reset, true) {
            self.pool.give(&self.pool.config, self.cache(), value);
        }
    }

    /// Makes `share`, which the calling thread is taking, hold the pool,
    /// unless the pool is closed: so every share an acquire reaches holds
    /// it (an acquire needs a handle, and handles never come back once
    /// none is left), and lending a guard is one addition. `_shares` is the
    /// pool's lock on its shares, held: `close`, which looks at every share
    /// under it, then either finds the share held or has run before and
    /// left no handle.
    fn hold_unless_closed(&self, _shares: &ShareList<T>, share: NonNull<ThreadShare<T>>) {
        // SAFETY: the calling thread is taking the share, under the lock.
        let lent = unsafe { &share.as_ref().head.lent };
        if self.handles.load(Ordering::Relaxed) != 0 && !lent.held() {
            // SAFETY: `this` has `Arc::as_ptr`'s provenance (`Inner::make`),
            // and the caller's `&Pool` (or guard) keeps the pool alive.
            unsafe { Arc::increment_strong_count(self.this().as_ptr().cast_const()) };
            lent.set_held();
        }
    }
}

impl<T: Reset + Send + 'static> Exit for Inner<T> {
    fn exit(self: Arc<Self>, share: NonNull<()>) {
        let share = share.cast::<ThreadShare<T>>();
        // SAFETY: the exiting thread's share of this pool, which the strong
        // count keeps alive; the thread is its owner, done with it (its
        // memo is off).
        let part_ref = unsafe { share.as_ref() };
        part_ref.cache().retire();
        // Handed back: the thread is done with it.
        part_ref.owner.store(threads::NOBODY, Ordering::Relaxed);
        lock(&self.shares).free.push(Lent(share));
        self.owners.leave();
    }
}

/// The calling thread's share of the pool `inner`, when its memo has none:
/// through the thread's list, which records it in the memo, or else taken
/// from the pool (one an exited thread handed back, with a new cache, or a
/// new one) and listed with the pool. What `Inner::share` calls on a memo
/// miss.
#[cold]
#[inline(never)]
pub(super) fn share_slow<T: Reset + Send + 'static>(
    inner: &Inner<T>,
) -> Option<NonNull<ThreadShare<T>>> {
    // The pool, with `Arc::as_ptr`'s provenance.
    let this = inner.this();
    let share = threads::share(inner.erased.id, || {
        let core = inner.pool.state.core();
        let mut shares = lock(&inner.shares);
        let share = match shares.free.pop() {
            Some(Lent(share)) => {
                inner.hold_unless_closed(&shares, share);
                drop(shares);
                // A new cache (registered with the core, not under this
                // lock), the old one retired by the last owner's exit.
                let cache = RawCache::new(core);
                // SAFETY: off the free list, so this thread owns it now and
                // has not used it (no reference to its cache is live); its
                // last owner put it there under the lock just released.
                let here = unsafe { share.as_ref() };
                // SAFETY: as above.
                unsafe { here.head.cache.replace(cache) };
                here.owner.store(threads::own_token(), Ordering::Relaxed);
                share
            }
            None => {
                // The new share's cache registers with the pool's core:
                // not under this lock.
                drop(shares);
                // A new share, its cache its own, its guards' home
                // `share_home` ([`home`]), this thread its owner.
                let share = Box::new(ThreadShare {
                    head: ShareHead::new(inner.share_home, RawCache::new(core)),
                    back: CachePadded::new(AtomicUsize::new(OPEN)),
                    inner: this,
                    owner: AtomicU64::new(threads::own_token()),
                });
                // SAFETY: from `Box::into_raw`, so not null, with the
                // provenance of the whole box, which only the pool's drop
                // frees.
                let share = unsafe { NonNull::new_unchecked(Box::into_raw(share)) };
                let mut shares = lock(&inner.shares);
                shares.all.push(Lent(share));
                inner.hold_unless_closed(&shares, share);
                share
            }
        };
        // SAFETY: `this` has `Arc::as_ptr`'s provenance, and the caller's
        // `&Pool` holds a strong count for the call, which `ManuallyDrop`
        // leaves as it is: this only makes a `Weak`.
        let pool = ManuallyDrop::new(unsafe { Arc::from_raw(this.as_ptr().cast_const()) });
        let pool: Weak<Inner<T>> = Arc::downgrade(&pool);
        (pool, share.cast())
    })?;
    Some(share.cast())
}

/// The `put` of a run-time pool's `Pool` (`crate::pool::Runtime`): files a
/// counted `Pool::put` through the calling thread's share, as a release.
///
/// # Safety
///
/// As for `share`'s `acquire_erased`: `inner` is the live allocation of a run-time
/// pool of `T`s, with the provenance of all of it.
pub(super) unsafe fn put_erased<T: Reset + Send + 'static>(inner: NonNull<()>, value: Boxed<T>) {
    // SAFETY: the caller's promise; the caller's `&Pool`, in the
    // allocation, keeps it alive for the call.
    unsafe { inner.cast::<Inner<T>>().as_ref() }.put(value);
}

/// The own-cache half of a run-time pool's `Pool::clear`
/// (`crate::pool::Runtime`): empties the calling thread's share's cache, the
/// one cache reachable where rotation reaches none.
///
/// # Safety
///
/// As for [`put_erased`].
pub(super) unsafe fn clear_erased<T: Reset + Send + 'static>(inner: NonNull<()>) {
    // SAFETY: as in `put_erased`.
    let inner = unsafe { inner.cast::<Inner<T>>().as_ref() };
    if let Some(cache) = inner.cache() {
        cache.clear();
    }
}
