//! A thread's cache of one pool, [`RawCache`]: its fast paths and its slow
//! paths (refill, spill, by the cache's own policy, `policy`); what a
//! static pool's `thread_local!` holds, [`ThreadCache`], unset until the
//! thread's first slow path, and the thread's exit list; where a cache's
//! objects go at its thread's exit or a `clear`. A run-time pool's each
//! thread's share holds a `RawCache`.
//! The cache is a stack of idle objects that only its thread touches, so
//! the fast paths take no lock and perform no atomic read-modify-write.
//!
//! Invariants:
//! 1. The cache holds at most its `thread_capacity` objects, all released
//!    in the epoch it records (`policy`'s invariant, with
//!    the bounds given when the cache is made, the pool's `Bounds`).
//! 2. Its objects live in a [`Slot`](crate::engine::slot::Slot) on the
//!    heap, which the owner enters for each operation and a rotation may
//!    enter while the owner is between operations (the handshake in
//!    `crate::engine::slot`). An operation only moves pointers; no user
//!    code (a constructor, `reset`, a destructor) runs inside one, nor while
//!    the store is locked: the slow paths return what the store buried, as
//!    a [`Graveyard`], for the caller to destroy afterwards, and an object
//!    taken for an acquire is `Held` across that, so a panic in a
//!    destructor there discards it rather than loses it. A user's `reset`
//!    or `Drop` may therefore acquire or release objects of the same pool
//!    (a tree of pooled nodes, say). Should the slot be busy (re-entered),
//!    the cache falls back to the shared store rather than wait.
//!
//! Everything here is on erased objects, compiled once in pool-core; the
//! typed pool's fast paths (`crate::pool`), inlined where the pool is
//! used, only turn the erased pointer back into the box.
//!
//! A static pool's thread cache, [`ThreadCache`]: what its `thread_local!`
//! holds, a constant with no destructor, so that the thread-local has no
//! lazy initialisation and no state to check, and no machinery of its own
//! per pooled type (docs/PERFORMANCE.md, "Compile cost of the derive").
//! It starts [unset](ThreadCache::unset); the thread's first slow path on the
//! pool registers it ([`RawCache::register`]) and lists it in the thread's
//! one exit list ([`EXITING`]), whose destructor retires it at the
//! thread's exit, as a cache's own `Drop` would.
//!
//! Invariant: an unset cache's slot is [`UNSET`], which no thread enters
//! (its gate is closed for ever, so the fast paths back off, and
//! `enter_slow`, `retire` and `Drop` pass an unset cache over); its core
//! is its pool's once a slow path has handed it one, else read by
//! nothing. A registered static cache is in its thread's exit list until
//! the thread's exit retires it, frees its slot and sets it back to
//! `UNSET`, retired: every later use goes to the shared store.
//!
//! Where a thread's cache's objects go when it stops keeping them: at its
//! thread's exit ([`RawCache::retire`], from the exit list or the cache's
//! `Drop`), to the shared store for other threads; for `Pool::clear`,
//! expired.
//!
//! Invariant: a retired cache is out of its pool's registry, its slot
//! freed and replaced by `UNSET`, so that the fast paths back off and every
//! slow path passes it over (`RawCache::enter_slow`): a later thread-local
//! destructor that uses the pool goes to the shared store.

pub(crate) mod policy;

use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

use crate::engine::bytes::SAMPLE;
use crate::engine::core::{CoreRef, PoolCore};
use crate::engine::erased::Erased;
use crate::engine::slot::{self, Entered, Slot, SlotGuard, bump, epoch};
use crate::engine::store::Graveyard;
use crate::sync::lock;
use policy::{Bounds, Local};

/// A thread's cache without its type: what every slow path works on, and
/// what a static pool's `thread_local!` holds (in a `ThreadCache`).
pub(crate) struct RawCache {
    /// Its slot; an unset cache's is `UNSET`, until then.
    pub(super) slot: Cell<NonNull<CachePadded<Slot<Local>>>>,
    /// The pool's shared half (misses, overflows, the thread's exit go
    /// there); `CoreRef::NONE` while unset. Set anew by a run-time pool
    /// being dropped (`crate::pool::runtime`).
    pub(crate) core: Cell<CoreRef>,
    /// Whether [`RawCache::retire`] has run (its slot is `UNSET` again): no
    /// slow path registers it anew; they go to the shared store.
    pub(super) retired: Cell<bool>,
}

impl RawCache {
    /// A cache for the pool whose core is `core`, registered with it.
    #[inline(never)]
    pub(crate) fn new(core: CoreRef) -> Self {
        RawCache {
            // SAFETY: a core made with `CoreRef::new`, not `NONE`.
            slot: Cell::new(Self::registered(unsafe { core.get() })),
            core: Cell::new(core),
            retired: Cell::new(false),
        }
    }

    /// A slot registered with `core`, for a new or an unset cache.
    fn registered(core: &PoolCore) -> NonNull<CachePadded<Slot<Local>>> {
        // Rotation must know the pool before the cache holds anything: it
        // reaches the caches of idle threads through the pool.
        let now = core.register();
        Slot::register(Local::new(now, core.bounds), now, &core.caches)
    }

    /// The pool's shared half.
    #[inline]
    pub(super) fn core(&self) -> &PoolCore {
        // SAFETY: not `CoreRef::NONE`: a cache is made with its core, or
        // unset, and then handed one by its first slow path before anything
        // reads it (`ThreadCache::unset`).
        unsafe { self.core.get().get() }
    }

    #[inline]
    pub(super) fn slot(&self) -> &Slot<Local> {
        // SAFETY: the slot is freed only by `retire`, which first points
        // the cache at `UNSET`, a static; no operation is inside it then
        // (the thread's exit, or its drop).
        unsafe { self.slot.get().as_ref() }
    }

    /// Enters the slot for a slow path, waiting for a rotation that holds
    /// it; `None` if the cache is unset (or retired) or re-entered.
    pub(super) fn enter_slow(&self) -> Option<Entered<'_, Local, SlotGuard<'_>>> {
        if self.is_unset() {
            return None;
        }
        self.slot().enter_slow()
    }

    #[inline]
    pub(crate) fn pop(&self, now: u64) -> Option<Erased> {
        let slot = self.slot();
        let mut entered = slot.enter(now)?;
        let value = entered.get().items.pop()?;
        bump(&slot.counts[slot::HITS_LOCAL], 1);
        Some(value)
    }

    /// Keeps `value` if the cache has room at `now`. With `bytes`, the heap
    /// bytes the object holds (for a pool that counts them), they are
    /// counted in this cache's idle bytes, and if they are a sample, every
    /// [`SAMPLE`]th kept release is tallied for the pool's calibration
    /// (`crate::engine::bytes`): a test of the count just bumped, and only
    /// then a call.
    #[inline]
    pub(crate) fn push(&self, value: Erased, now: u64, bytes: Option<Bytes>) -> Result<(), Erased> {
        let slot = self.slot();
        let Some(mut entered) = slot.enter(now) else {
            return Err(value);
        };
        let local = entered.get();
        if local.is_full() {
            return Err(value);
        }
        local.items.push(value);
        let returned = bump(&slot.counts[slot::RETURNED], 1);
        if let Some(Bytes { held, sample }) = bytes {
            bump(&slot.counts[slot::IDLE_IN], held as u64);
            if sample && returned % SAMPLE == 0 {
                self.tally(local, held);
            }
        }
        Ok(())
    }

    /// Counts `held` bytes out of the pool's idle ones, for an object an
    /// acquire took from this cache (`pop` has just succeeded, so the cache
    /// is registered and this thread its owner).
    #[inline]
    pub(crate) fn count_out(&self, held: usize) {
        bump(&self.slot().counts[slot::IDLE_OUT], held as u64);
    }

    /// Records a sampled release of `bytes` in the cache's own tally, and
    /// folds the tally into the pool's calibration once it is due.
    /// `extern "C"`: it cannot unwind (a panic in it would abort), so the
    /// push that calls it, inlined in each pooled type's release, compiles
    /// no cleanup for the slot it holds.
    #[cold]
    #[inline(never)]
    extern "C" fn tally(&self, local: &mut Local, bytes: usize) {
        if local.tally.record(bytes, SAMPLE as u16) {
            self.core().calibration.fold(&mut local.tally);
        }
    }

    /// Whether an acquire's miss at epoch `now` has nothing to take, in one
    /// lock-free entry of the slot: the cache is current (and so, since
    /// `pop` at `now` has just failed, empty: nothing to age here), its last
    /// refill found nothing and the shared store looks empty. The miss is
    /// then recorded, and the caller goes to the constructor with no lock.
    #[inline]
    pub(crate) fn nothing_to_take(&self, now: u64) -> bool {
        self.slot().enter(now).is_some_and(|mut entered| {
            let local = entered.get();
            if local.refill_found || !self.core().shared.looks_empty() {
                return false;
            }
            local.missed();
            local.items.is_empty()
        })
    }

    /// Destroys `value`, a released object the fast path could not keep,
    /// if, in one lock-free entry of the slot, the cache is current at
    /// `now` and at its bound, its last spill did not find room and the
    /// shared store looks full at `now`, as the store would bury it:
    /// counted as returned and dropped for capacity (one counter,
    /// `slot::DROPPED`). Hands `value` back otherwise, or if the cache is
    /// in use.
    ///
    /// Runs the destructor (user code) after leaving the slot.
    #[inline]
    pub(crate) fn drop_if_full(&self, value: Erased, now: u64) -> Result<(), Erased> {
        let (slot, shared) = (self.slot(), &self.core().shared);
        let full = slot.enter(now).is_some_and(|mut entered| {
            let local = entered.get();
            !local.spill_fit
                && local.bound > 0
                && local.items.len() >= local.bound
                && shared.looks_full(local.capacity, now)
        });
        if !full {
            return Err(value);
        }
        bump(&slot.counts[slot::DROPPED], 1);
        shared.destroy(value, true);
        Ok(())
    }

    /// Counts an object made on this thread for an acquire that missed: in
    /// the slot, no read-modify-write, unless the cache is retired.
    #[inline]
    pub(crate) fn created(&self) {
        if self.retired.get() {
            self.core().created(1);
        } else {
            bump(&self.slot().counts[slot::CREATED], 1);
        }
    }

    /// The slow path of an acquire, after `pop` found nothing at epoch
    /// `now`: ages the cache, takes an object from the shared store and
    /// refills the cache from it in the same critical section, so that the
    /// next acquires on this thread are lock-free again. `None` means the
    /// pool has no idle object.
    #[inline(never)]
    pub(crate) fn refill(&self, now: u64) -> (Option<Erased>, Graveyard<'_, Erased>) {
        let Some(mut entered) = self.enter_slow() else {
            return self.core().take_uncached(now);
        };
        let local = entered.get();
        if !local.refill_found && local.items.is_empty() && self.core().shared.looks_empty() {
            // Nothing to age here, nothing there (a burst's misses): no lock.
            local.epoch = now;
            local.missed();
            entered.open(now);
            return (None, self.core().shared.graveyard());
        }
        // The cache's old objects may go to the shared store, which `rotate`
        // must then age even if this pool is never touched again.
        let now = self.core().register();
        let mut store = self.core().shared.lock(now);
        local.turn_over(&mut store, now);
        let found = store.take();
        local.refill_found = found.is_some();
        let batch = local.missed();
        if let Some(found) = &found {
            store.take_batch(&mut local.items, batch);
            // Last written by the threads that released them (in a
            // producer/consumer pair, the other core): asked for now, their
            // lines cross together, not one miss per acquire. At most
            // `PREFETCH`, the ones acquired first (docs/PERFORMANCE.md).
            found.prefetch();
            let n = local.items.len();
            for item in &local.items[n.saturating_sub(PREFETCH)..] {
                item.prefetch();
            }
        }
        entered.open(now);
        (found, store.unlock())
    }

    /// The slow path of a release, after `push` refused `value` (the cache
    /// is full, out of date, not grown yet, or disabled): grows the cache
    /// if it is below its bound, or else ages it and spills part of it to
    /// the shared store, and keeps `value`.
    #[inline(never)]
    pub(crate) fn spill(&self, value: Erased) -> Graveyard<'_, Erased> {
        // A pool with no thread caches, or a cache retired or re-entered:
        // straight to the shared store, without closing the gate.
        let entered = (self.core().bounds.thread_capacity > 0).then(|| self.enter_slow());
        let Some(Some(mut entered)) = entered else {
            return self.core().put_uncached(value);
        };
        let returned = &self.slot().counts[slot::RETURNED];
        let local = entered.get();
        let current = epoch().now();
        if local.epoch == current && local.grow() {
            // Room made without the store: the cache is still warming up.
            local.items.push(value);
            bump(returned, 1);
            entered.open(current);
            return self.core().shared.graveyard();
        }
        // Reads the epoch itself, after registering the pool, rather than
        // trusting the fast path's earlier read.
        let now = self.core().register();
        let mut store = self.core().shared.lock(now);
        local.turn_over(&mut store, now);
        bump(returned, 1);
        let full = local.items.len() >= local.bound;
        // `drop_if_full`'s case, seen under the lock: bury only `value`.
        local.spill_fit = !(full && store.primary_full(local.capacity));
        if !local.spill_fit {
            store.put_one(value, local.capacity);
            entered.open(now);
            return store.unlock();
        }
        if full {
            // Spill in one batch from the bottom, keeping the recently used
            // (cache-warm) top unless this thread only releases.
            let (spill, capacity) = (local.overflowed(), local.capacity);
            store.put_from(&mut local.items, ..spill, now, capacity);
        }
        if local.items.len() < local.items.capacity() || local.grow() {
            local.items.push(value);
        } else {
            // No memory for the cache's own buffer: file the object instead.
            let capacity = local.capacity;
            store.put_one(value, capacity);
        }
        entered.open(now);
        store.unlock()
    }
}

/// The most objects of a refill whose lines [`RawCache::refill`] asks for
/// ahead of use: one default thread cache (`crate::pool::config` checks);
/// a larger cache's deeper objects are acquired long after the refill, and
/// asking for them then would push the first ones out of the core's caches.
pub(crate) const PREFETCH: usize = 32;

/// The heap bytes a released object holds, as its pool counts them, for
/// [`RawCache::push`]; `sample` if the pool's calibration may tally them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bytes {
    pub(crate) held: usize,
    pub(crate) sample: bool,
}

/// An acquire past the thread cache (`Pool::miss`), erased: through
/// `cache` if the thread has one, else straight from the shared store.
/// `None` means the pool has no idle object: the caller makes one.
#[cold]
#[inline(never)]
pub(crate) fn take_shared(core: &PoolCore, cache: Option<&RawCache>, now: u64) -> Option<Erased> {
    if let Some(cache) = cache {
        cache.register(core);
    }
    // Nothing to take anywhere (a burst larger than the pool): to the
    // constructor, no lock.
    let nothing = match cache {
        Some(cache) => cache.nothing_to_take(now),
        None => core.shared.looks_empty(),
    };
    if nothing {
        return None;
    }
    let (found, dead) = match cache {
        Some(cache) => cache.refill(now),
        None => core.take_uncached(now),
    };
    // This acquire's from here on: if a destructor in `dead` panics, the
    // unwind drops it as a guard, counted as discarded, not lost.
    let held = Held(found, core);
    drop(dead);
    held.into_inner()
}

/// A release past the thread cache (`Pool::give`), erased: files
/// `value`, already reset, when the thread cache is full, gone or
/// disabled, and destroys what the store lets go of.
///
/// `held` is the object's heap bytes as the pool counts them, counted in
/// the pool's idle bytes here: what the store then destroys counts out as
/// it goes.
#[cold]
#[inline(never)]
pub(crate) fn put_shared(core: &PoolCore, cache: Option<&RawCache>, value: Erased, held: usize) {
    core.count_idle_in(held);
    let Some(cache) = cache else {
        return drop(core.put_uncached(value));
    };
    cache.register(core);
    // A release past the bound (a burst larger than the pool): destroyed
    // at once, with no lock and no half-cache spilled only to be buried too.
    if let Err(value) = cache.drop_if_full(value, epoch().now()) {
        drop(cache.spill(value));
    }
}

/// An object an acquire took from the store ([`take_shared`]) but has not
/// yet handed out; discarded if dropped before [`Held::into_inner`], its
/// bytes counted as idle, so that a panic on the way counts it, not loses
/// it. (User code lent an object is guarded by `crate::pool`'s
/// `DiscardOnUnwind`.)
struct Held<'a>(Option<Erased>, &'a PoolCore);

impl Held<'_> {
    fn into_inner(mut self) -> Option<Erased> {
        self.0.take()
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            self.1.discard(value, true);
        }
    }
}

// SAFETY: a cache is its slot's owner, and the owner's side of the
// handshake (`crate::engine::slot`) asks only that one thread at a time act as
// owner, in program order; moving the cache to another thread hands that
// role over with the synchronization of the move itself. A run-time pool's
// caches move only so: in a thread's share, which another thread reaches
// only to drop it, with every thread's use of it over, or to retire it and
// replace it, under the pool's lock, after the owner has exited. The objects inside are `Erased`, which is `Send`, and
// the core is reached through a `Sync` reference.
unsafe impl Send for RawCache {}

/// A static pool's cache, as its `thread_local!` holds it: never dropped
/// by the thread-local (so it needs no destructor state), retired at the
/// thread's exit by [`EXITING`] once registered.
#[doc(hidden)]
#[repr(transparent)]
pub struct ThreadCache(ManuallyDrop<RawCache>);

impl std::fmt::Debug for ThreadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadCache").finish_non_exhaustive()
    }
}

impl ThreadCache {
    crate::sync::const_fn! {
        /// A static pool's cache as its `thread_local!` holds it before the
        /// thread's first slow path on the pool: no slot of its own, no
        /// pool, nothing allocated, so the thread-local is a constant and
        /// its machinery is compiled once for every pool. Its slot is the
        /// closed `UNSET`, which the fast paths back off from; the first
        /// slow path registers it with the pool it is handed
        /// (`RawCache::register`).
        ///
        /// # Safety
        ///
        /// The cache is handed to slow paths only with one pool's core,
        /// which outlives the cache (a static pool's: `pool!`); and the
        /// value is a thread-local's, on the thread that uses it (its exit
        /// list holds a pointer to it).
        #[must_use]
        pub unsafe fn unset() -> Self {
            ThreadCache(ManuallyDrop::new(RawCache {
                slot: Cell::new(unset_slot()),
                core: Cell::new(CoreRef::NONE),
                retired: Cell::new(false),
            }))
        }
    }

    /// The cache.
    #[inline]
    pub(crate) fn raw(&self) -> &RawCache {
        &self.0
    }
}

/// The static pools' caches this thread has registered, retired at its
/// exit (a static pool's `thread_local!` does not drop its cache).
struct Exiting(RefCell<Vec<NonNull<RawCache>>>);

crate::sync::thread_local! {
    // Lazily made: loom's `thread_local!` has no `const` form, and the
    // list is touched only by a thread's first slow path on each pool and
    // at its exit.
    #[allow(clippy::missing_const_for_thread_local, reason = "see above")]
    static EXITING: Exiting = Exiting(RefCell::new(Vec::new()));
}

impl Drop for Exiting {
    fn drop(&mut self) {
        // A cache retired here may be used by a later destructor; one
        // registered meanwhile cannot be listed (this list is gone), so
        // it is retired at once (`register_unset`).
        exit_all(std::mem::take(self.0.get_mut()));
    }
}

/// Does the thread's exit to `caches`, taken from its exit list.
fn exit_all(caches: Vec<NonNull<RawCache>>) {
    for cache in caches {
        // SAFETY: a thread-local of this thread (`ThreadCache::unset`),
        // alive until every thread-local destructor has run.
        unsafe { cache.as_ref() }.retire();
    }
}

/// What the thread's exit does to its static pools' caches, done now: a
/// loom model ends each thread with it, since loom runs a thread's local
/// destructors outside the model's execution, where no modelled lock may
/// be taken. The exit list is left empty, so its destructor then does
/// nothing; a cache the thread registers later is listed anew.
#[cfg(test)]
pub(crate) fn exit_static_caches() {
    exit_all(EXITING.with(|exiting| std::mem::take(&mut *exiting.0.borrow_mut())));
}

crate::sync::const_fn! {
    /// A pointer to [`UNSET`].
    fn unset_slot() -> NonNull<CachePadded<Slot<Local>>> {
        // SAFETY: a pointer to a static is never null.
        unsafe { NonNull::new_unchecked((&raw const UNSET.0).cast_mut()) }
    }
}

crate::sync::global! {
    /// The slot of every [`unset`](ThreadCache::unset) cache: closed for
    /// ever, so the fast paths back off from it, and entered by nothing
    /// else (the slow paths register a slot of the cache's own first, and
    /// `enter_slow`, `retire` and `Drop` pass an unset cache over).
    static UNSET: Unset = Unset(CachePadded::new(Slot::closed(Local::new(0, Bounds {
        thread_capacity: 0,
        capacity: 0,
    }))));
}

/// [`UNSET`]'s type.
struct Unset(CachePadded<Slot<Local>>);

// SAFETY: no thread reaches the slot's contents or its lock (its gate is
// never open, and no slow path enters it); the fast paths only load and
// store `busy` and load the gate, atomics, and back off.
unsafe impl Sync for Unset {}

impl RawCache {
    /// Whether the cache is [`unset`](ThreadCache::unset): no slot of its
    /// own yet.
    #[inline]
    pub(crate) fn is_unset(&self) -> bool {
        std::ptr::eq(self.slot.get().as_ptr().cast_const(), &raw const UNSET.0)
    }

    /// Registers an [`unset`](ThreadCache::unset) cache with its pool, whose
    /// core is `core`, on its thread's first slow path; nothing for any
    /// other cache, or a retired one.
    #[inline]
    pub(super) fn register(&self, core: &PoolCore) {
        if self.is_unset() && !self.retired.get() {
            self.register_unset(core);
        }
    }

    #[cold]
    #[inline(never)]
    fn register_unset(&self, core: &PoolCore) {
        // SAFETY: the core an unset cache is handed with outlives it
        // (`ThreadCache::unset`'s promise).
        self.core.set(unsafe { CoreRef::new(NonNull::from(core)) });
        let me = NonNull::from(self);
        if EXITING
            .try_with(|exiting| exiting.0.borrow_mut().push(me))
            .is_err()
        {
            // The thread's exit list is gone: nothing would retire a
            // slot, so the cache goes to the shared store from now on.
            self.retired.set(true);
            return;
        }
        self.slot.set(Self::registered(core));
    }

    /// Hands the cache's idle objects to the shared store and its counters
    /// to the pool's totals, for good, frees its slot and sets it back to
    /// `UNSET`, retired, for any later use: what the thread's exit does (a
    /// static pool's, from its thread's exit list; any other's, from its
    /// drop). Later calls do nothing, so a loom model can retire a cache
    /// before loom drops it (loom runs a thread's local destructors outside
    /// the model's execution, where no modelled lock may be taken).
    #[inline(never)]
    pub(crate) fn retire(&self) {
        if self.retired.replace(true) || self.is_unset() {
            return;
        }
        // Out of the registry first: no rotation can reach the slot after
        // this, so the owner needs no handshake to empty it.
        lock(&self.core().caches).remove(self.slot.get());
        let dead = {
            // SAFETY: unregistered, and this is its owner, outside any
            // operation (`retire` runs no user code before this point).
            let contents = unsafe { self.slot().contents_unregistered() };
            // SAFETY: as above; this is the only reference to the contents.
            let local = unsafe { contents.deref() };
            let now = self.core().register();
            let len = local.items.len();
            let mut store = self.core().shared.lock(now);
            store.put_from(&mut local.items, ..len, local.epoch, local.capacity);
            store.unlock()
        };
        let registered = self.slot.replace(unset_slot());
        // SAFETY: out of the registry (above), no access to its contents
        // left, and the cache, its only other user, points to `UNSET` from
        // now on.
        unsafe { slot::free(registered) };
        // This runs in a thread-local's destructor, where a panic aborts the
        // process: a destructor's panic (already reported by the panic hook)
        // goes no further. The graveyard destroys every object either way.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(dead)));
    }

    /// Drops this cache's idle objects, for `Pool::clear` on the owner's
    /// thread: through the owner's slow entry, so it works where rotation
    /// cannot reach caches (no heavy barrier). Counted as dropped by
    /// rotation; the destructors run after the slot and the store are
    /// left. Does nothing if the cache is retired or the owner is inside
    /// an operation on the pool (a destructor the pool runs calling
    /// `clear`).
    #[inline(never)]
    pub(crate) fn clear(&self) {
        let Some(mut entered) = self.enter_slow() else {
            return;
        };
        let local = entered.get();
        let items = std::mem::take(&mut local.items);
        let epoch = local.epoch;
        if items.is_empty() {
            return entered.open(epoch);
        }
        let now = self.core().register();
        let mut store = self.core().shared.lock(now);
        store.expire(items);
        entered.open(epoch);
        drop(entered);
        // The lock released, then the destructors run (`Locked`'s fields).
        drop(store);
    }
}

impl Drop for RawCache {
    /// The thread is exiting: its idle objects go to the shared store, so
    /// that another thread can use them (or rotation can reclaim them), and
    /// its counters to the pool's totals.
    fn drop(&mut self) {
        self.retire();
    }
}
