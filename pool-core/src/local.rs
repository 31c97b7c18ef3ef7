//! The per-thread cache that sits in front of a pool's shared store, and
//! its policy: when it ages, how much it refills and spills.
//!
//! Each pool declared with [`pool!`](crate::pool!) (or derived) has its own
//! `thread_local!` holding a [`LocalCache`]: a stack of idle objects that
//! only its thread touches, so the hot path takes no lock and performs no
//! atomic read-modify-write.
//!
//! Invariants:
//! 1. The cache holds at most `thread_capacity` objects, all released in
//!    the epoch it records; a cache found in an older epoch hands its
//!    objects to the shared store (which files them as victims or expires
//!    them) before it is used again, whether its owner finds it so on its
//!    next operation or a rotation does while the owner is idle.
//! 2. Its objects live in a [`Slot`](crate::slot::Slot) on the heap, which
//!    the owner enters for each operation and a rotation may enter while
//!    the owner is between operations (the handshake in `crate::slot`).
//!    An operation only moves pointers; no user code (a constructor,
//!    `reset`, a destructor) runs inside one: the slow paths return what
//!    the store buried, as a [`Graveyard`], for the caller to destroy
//!    afterwards. A user's `reset` or `Drop` may therefore acquire or
//!    release objects of the same pool (a tree of pooled nodes, say).
//!    Should the slot be busy (re-entered), the cache falls back to the
//!    shared store rather than wait.
//!
//! The cache is two layers, as the state is (`crate::state`): [`RawCache`]
//! holds erased objects (`crate::padded::Erased`) and has every slow path,
//! compiled once in pool-core; [`LocalCache<T>`] is a `RawCache` that
//! knows its pool's `T`, with the fast paths, inlined where the pool is
//! used, which do no more than turn the erased pointer back into the box.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

use crate::epoch;
use crate::padded::{Boxed, Erased};
use crate::reset::Reset;
use crate::shared::{Graveyard, Locked};
use crate::slot::{self, Entered, Slot};
use crate::state::{CoreRef, PoolState, StateRef};
use crate::stats::bump;
use crate::sync::lock;

/// A thread's cache of idle objects for one pool: the thread-local handle
/// of its slot.
///
/// Only [`pool!`](crate::pool!) and the derive create these, as the lazily
/// initialized value of a `thread_local!`; it has no public methods.
#[doc(hidden)]
#[repr(transparent)]
pub struct LocalCache<T: Reset + Send + 'static> {
    raw: RawCache,
    /// Its objects are `Boxed<T>`s.
    _objects: PhantomData<T>,
}

/// A thread's cache without its type: what every slow path works on.
pub(crate) struct RawCache {
    slot: NonNull<CachePadded<Slot<Local>>>,
    /// The pool's shared half, where misses, overflows and the thread's
    /// exit go, and whose registry holds the slot.
    core: CoreRef,
    /// Whether [`RawCache::retire`] has run: the slot has left the
    /// registry, holds nothing, and the slow paths go straight to the
    /// shared store.
    retired: Cell<bool>,
}

/// What a thread's cache holds, inside its slot.
pub(crate) struct Local {
    /// Idle objects; the most recently released on top. Its capacity is the
    /// room the fast path checks: it starts at zero and grows, on the slow
    /// path and exactly (`Local::grow`), up to `bound`, so the bound is a
    /// bound and not a preallocation (a `thread_capacity` of `usize::MAX`
    /// costs nothing until objects are cached).
    items: Vec<Erased>,
    /// The pool's `thread_capacity`, and the bound on its shared tiers.
    /// Learned from the pool's configuration on the first slow path, which
    /// runs before the cache can hold anything (its capacity starts at
    /// zero).
    bound: usize,
    capacity: usize,
    /// The epoch `items` were released in.
    epoch: u64,
    /// Which bound of the cache this thread last ran into.
    last_crossing: Crossing,
}

impl<T: Reset + Send + 'static> LocalCache<T> {
    /// The calling thread's cache for the pool whose shared half is
    /// `state`, registered with it.
    ///
    /// Runs once per thread, on the thread's first use of the pool (it is the
    /// `thread_local!`'s initializer), so the fast paths never have to ask
    /// whether the cache is set up. Allocates its slot, and nothing for the
    /// objects: the first release grows the cache.
    pub fn new(state: &'static PoolState<T>) -> Self {
        Self::with_state(StateRef::from_static(state))
    }

    /// The calling thread's cache for the pool whose shared half is
    /// `state`: [`new`](Self::new), for a static or a run-time pool.
    #[inline]
    pub(crate) fn with_state(state: StateRef<T>) -> Self {
        LocalCache {
            raw: RawCache::new(state.core()),
            _objects: PhantomData,
        }
    }

    /// The fast path of an acquire: pops an object if the cache is current
    /// and not empty.
    #[inline(always)]
    pub(crate) fn pop(&self, now: u64) -> Option<Boxed<T>> {
        let value = self.raw.pop(now)?;
        // SAFETY: the cache's objects are `Boxed<T>`s of this `T` (the
        // erasure invariant, `crate::state::PoolCore`).
        Some(unsafe { value.into_boxed() })
    }

    /// The fast path of a release: pushes `value` if the cache is current
    /// and has room; otherwise hands it back.
    #[inline(always)]
    pub(crate) fn push(&self, value: Boxed<T>, now: u64) -> Result<(), Boxed<T>> {
        self.raw.push(Erased::new(value), now).map_err(|value| {
            // SAFETY: `value` is the object just erased.
            unsafe { value.into_boxed() }
        })
    }

    /// The cache without its type, for the slow paths.
    #[inline(always)]
    pub(crate) fn raw(&self) -> &RawCache {
        &self.raw
    }

    /// The typed view of a cache of a pool of `T`s (a run-time pool's
    /// caches are kept as `RawCache`s, so that their `ThreadLocal` is
    /// compiled once).
    ///
    /// # Safety
    ///
    /// `raw` must be a cache of a pool of `T`s (its core's objects are
    /// `Boxed<T>`s).
    #[inline(always)]
    pub(crate) unsafe fn from_raw(raw: &RawCache) -> &Self {
        // SAFETY: `LocalCache<T>` is `repr(transparent)` over `RawCache`
        // (the other field is a `PhantomData`), so the pointer cast keeps
        // layout and validity; the caller vouches for `T`.
        unsafe { &*std::ptr::from_ref(raw).cast::<Self>() }
    }

    /// Hands the cache's idle objects to the shared store, for good: see
    /// [`RawCache::retire`]. The drop does it too; the loom models call
    /// it by hand.
    #[allow(dead_code, reason = "called by the loom models only")]
    pub(crate) fn retire(&self) {
        self.raw.retire();
    }
}

impl RawCache {
    /// A cache for the pool whose core is `core`, registered with it.
    #[inline(never)]
    pub(crate) fn new(core: CoreRef) -> Self {
        // Rotation must know the pool before the cache holds anything: it
        // reaches the caches of idle threads through the pool.
        core.register();
        let local = Local {
            items: Vec::new(),
            bound: 0,
            capacity: 0,
            epoch: epoch::epoch().now(),
            last_crossing: Crossing::None,
        };
        let epoch = local.epoch;
        RawCache {
            slot: Slot::register(local, epoch, &core.caches),
            core,
            retired: Cell::new(false),
        }
    }

    /// Points the cache at its pool's core anew, for a run-time pool being
    /// dropped (see `crate::runtime`).
    pub(crate) fn set_core(&mut self, core: CoreRef) {
        self.core = core;
    }

    #[inline(always)]
    fn slot(&self) -> &Slot<Local> {
        // SAFETY: the slot is freed only by this handle's `drop`.
        unsafe { self.slot.as_ref() }
    }

    /// Enters the slot for a slow path, waiting for a rotation that holds
    /// it; `None` if the cache is retired or re-entered.
    fn enter_slow(&self) -> Option<Entered<'_, Local>> {
        if self.retired.get() {
            return None;
        }
        self.slot().enter_slow()
    }

    #[inline(always)]
    fn pop(&self, now: u64) -> Option<Erased> {
        let slot = self.slot();
        let mut entered = slot.enter(now)?;
        let value = entered.get().items.pop()?;
        bump(&slot.hits_local);
        Some(value)
    }

    #[inline(always)]
    fn push(&self, value: Erased, now: u64) -> Result<(), Erased> {
        let slot = self.slot();
        let Some(mut entered) = slot.enter(now) else {
            return Err(value);
        };
        let local = entered.get();
        if local.is_full() {
            return Err(value);
        }
        local.items.push(value);
        bump(&slot.returned);
        Ok(())
    }

    /// Records an acquire's miss at epoch `now` without the slot's lock,
    /// if the cache is current (and so, since `pop` at `now` has just
    /// failed, empty), and says whether it was: then the miss has nothing
    /// to age here (see `PoolCore::take_slow`).
    #[inline]
    pub(crate) fn missed_current(&self, now: u64) -> bool {
        self.slot().enter(now).is_some_and(|mut entered| {
            let local = entered.get();
            local.missed();
            local.items.is_empty()
        })
    }

    /// Destroys `value`, a released object the fast path could not keep,
    /// if the cache is at its bound and current at `now` (the caller has
    /// seen the shared store full at `now`): counted as returned and dropped for capacity (one counter,
    /// `Slot::dropped`), as the store counts what it buries. Hands `value`
    /// back if the cache has room, is out of date or is in use.
    ///
    /// Runs the destructor (user code) after leaving the slot.
    #[inline]
    pub(crate) fn drop_if_full(&self, value: Erased, now: u64) -> Result<(), Erased> {
        let slot = self.slot();
        let full = slot.enter(now).is_some_and(|mut entered| {
            let local = entered.get();
            local.bound > 0 && local.items.len() >= local.bound
        });
        if !full {
            return Err(value);
        }
        bump(&slot.dropped);
        self.core.shared.destroy(value);
        Ok(())
    }

    /// Counts an object made on this thread for an acquire that missed:
    /// in the slot, with no read-modify-write, unless the cache is retired
    /// (its slot's counters are summed no more).
    #[inline]
    pub(crate) fn created(&self) {
        if self.retired.get() {
            self.core.created(1);
        } else {
            bump(&self.slot().created);
        }
    }

    /// The slow path of an acquire, after `pop` found nothing at epoch
    /// `now`: ages the cache, takes an object from the shared store and
    /// refills the cache from it in the same critical section, so that the
    /// next acquires on this thread are lock-free again. `None` means the
    /// pool has no idle object. `thread_capacity` and `capacity` are the
    /// pool's.
    #[inline(never)]
    pub(crate) fn refill(
        &self,
        now: u64,
        thread_capacity: usize,
        capacity: usize,
    ) -> (Option<Erased>, Graveyard<Erased>) {
        let Some(mut entered) = self.enter_slow() else {
            return self.core.take_uncached(now);
        };
        let local = entered.get();
        local.learn(thread_capacity, capacity);
        if local.items.is_empty() && self.core.shared.looks_empty() {
            // Nothing to age here and nothing to take there: skip the lock.
            // Under a burst larger than the pool, every miss lands here.
            local.epoch = now;
            local.missed();
            entered.open(now);
            return (None, self.core.shared.graveyard());
        }
        // The cache's old objects may go to the shared store, which `rotate`
        // must then age even if this pool is never touched again.
        let now = self.core.register();
        let mut store = self.core.shared.lock(now);
        local.turn_over(&mut store, now);
        let found = store.take().map(|(value, _tier)| value);
        let batch = local.missed();
        if let Some(found) = &found {
            store.take_batch(&mut local.items, batch);
            // These objects were last written by the threads that released
            // them, in a producer/consumer pair always the other core. One
            // prefetch per object now lets their lines cross together
            // instead of one miss per acquire: in the cross-thread handoff
            // (13 rounds alternating with and without through a temporary
            // switch, 2026-12-01; docs/PERFORMANCE.md, section 3) the small
            // object's median went from 43.4 to 35.7 ns per object and
            // `Person`'s from 171 to 127. At most
            // `PREFETCH`: the ones acquired first, from the top.
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
    pub(crate) fn spill(
        &self,
        value: Erased,
        thread_capacity: usize,
        capacity: usize,
    ) -> Graveyard<Erased> {
        // A pool with no thread caches, or a cache retired or re-entered:
        // straight to the shared store, without closing the gate.
        let entered = if thread_capacity > 0 {
            self.enter_slow()
        } else {
            None
        };
        let Some(mut entered) = entered else {
            return self.core.put_uncached(value, capacity);
        };
        let returned = &self.slot().returned;
        let local = entered.get();
        local.learn(thread_capacity, capacity);
        let current = epoch::epoch().now();
        if local.epoch == current && local.grow() {
            // Room made without the store: the cache is still warming up.
            local.items.push(value);
            bump(returned);
            entered.open(current);
            return self.core.shared.graveyard();
        }
        // Reads the epoch itself, after registering the pool, rather than
        // trusting the fast path's earlier read.
        let now = self.core.register();
        let mut store = self.core.shared.lock(now);
        local.turn_over(&mut store, now);
        if local.items.len() >= local.bound {
            // Spill in one batch from the bottom, keeping the recently used
            // (cache-warm) top unless this thread only releases.
            let (spill, capacity) = (local.overflowed(), local.capacity);
            store.put_from(&mut local.items, ..spill, now, capacity);
        }
        bump(returned);
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
/// ahead of use: one default thread cache (`crate::config`). A larger
/// cache's deeper objects are acquired long after the refill, and asking
/// for them then would only push the first ones out of the core's caches.
const PREFETCH: usize = crate::config::DEFAULT_THREAD_CAPACITY;

/// A bound of the thread cache that an acquire or a release ran into.
///
/// The batch a thread exchanges with the shared store depends on the bound
/// it crossed last. A thread that uses the pool evenly crosses them in
/// turn, and moves half a cache each time, so that small swings around a
/// bound stay on the fast path. A thread that crosses the same bound twice
/// in a row is a producer or a consumer (it acquires objects that another
/// thread releases, or the reverse): it moves a whole cache, halving the
/// trips to the shared store's lock. With the default `thread_capacity` of
/// 32, that took the `cross_thread_small` bench (one thread acquires,
/// another releases) from 1.45x opool's time per object to 0.87-1.03x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Crossing {
    /// Neither bound yet.
    None,
    /// An acquire found the cache empty (or out of date).
    Empty,
    /// A release found the cache full.
    Full,
}

impl Local {
    /// Whether the cache has no room left in its buffer. Comparing with the
    /// vector's own capacity (never above `bound`) lets the compiler drop
    /// `push`'s growth check; the slow path grows the buffer up to `bound`.
    #[inline]
    fn is_full(&self) -> bool {
        self.items.len() == self.items.capacity()
    }

    /// Takes the bounds from the pool's configuration (the same every time:
    /// a configuration never changes).
    fn learn(&mut self, thread_capacity: usize, capacity: usize) {
        self.bound = thread_capacity;
        self.capacity = capacity;
    }

    /// Grows the buffer towards `bound`, doubling (from four), with room for
    /// exactly that many objects so that its capacity never passes the
    /// bound. Returns whether there is room now; `false` if the cache is at
    /// its bound, or if memory for the larger buffer cannot be had.
    fn grow(&mut self) -> bool {
        let len = self.items.len();
        if len < self.items.capacity() {
            return true;
        }
        if len >= self.bound {
            return false;
        }
        let target = len.saturating_mul(2).max(4).min(self.bound);
        if self.items.try_reserve_exact(target - len).is_err() {
            return false;
        }
        if self.items.capacity() > self.bound {
            // An allocator may hand out more than was asked for; the fast
            // path must not see room beyond the bound.
            self.items.shrink_to(self.bound);
        }
        len < self.items.capacity()
    }

    /// Ages the cache to epoch `now`: objects cached in an earlier epoch go
    /// to the shared store, which files them as victims or expires them.
    /// Its owner calls it on a slow path; a rotation calls it on an idle
    /// owner's cache.
    pub(crate) fn turn_over(&mut self, store: &mut Locked<'_, Erased>, now: u64) {
        if self.epoch != now {
            let len = self.items.len();
            store.put_from(&mut self.items, ..len, self.epoch, self.capacity);
        }
        self.epoch = now;
    }

    /// Records an acquire that missed the cache, and returns how many
    /// objects to refill it with: half a cache, or all the room there is
    /// if the last miss was also an acquire's.
    fn missed(&mut self) -> usize {
        let room = self.bound.saturating_sub(self.items.len());
        let batch = match self.last_crossing {
            Crossing::Empty => room,
            Crossing::None | Crossing::Full => room.min(self.bound / 2),
        };
        self.last_crossing = Crossing::Empty;
        batch
    }

    /// Records a release that found the cache full, and returns how many
    /// objects, from the bottom (the least recently used), to spill: the
    /// older half, rounded up, or all of them if the last crossing was
    /// also a full cache's.
    fn overflowed(&mut self) -> usize {
        let len = self.items.len();
        let spill = match self.last_crossing {
            Crossing::Full => len,
            Crossing::None | Crossing::Empty => len.div_ceil(2),
        };
        self.last_crossing = Crossing::Full;
        spill
    }
}

impl RawCache {
    /// Hands the cache's idle objects to the shared store and its counters
    /// to the pool's totals, for good: what the thread's exit does. Later
    /// calls do nothing, so a loom model can retire a cache before loom
    /// drops it (loom runs a thread's local destructors outside the model's
    /// execution, where no modelled lock may be taken).
    #[inline(never)]
    fn retire(&self) {
        if self.retired.replace(true) {
            return;
        }
        // Out of the registry first: no rotation can reach the slot after
        // this, so the owner needs no handshake to empty it.
        lock(&self.core.caches).remove(self.slot);
        // SAFETY: unregistered, and this is its owner, outside any
        // operation (`retire` runs no user code before this point).
        let contents = unsafe { self.slot().contents_unregistered() };
        // SAFETY: as above; this is the only reference to the contents.
        let local = unsafe { contents.deref() };
        let now = self.core.register();
        let len = local.items.len();
        let mut store = self.core.shared.lock(now);
        let (epoch, capacity) = (local.epoch, local.capacity);
        store.put_from(&mut local.items, ..len, epoch, capacity);
        // A retired cache that is used again (by a later thread-local's
        // destructor) is passed over by the slow paths, and has no room for
        // the fast ones: it holds nothing from now on.
        local.items = Vec::new();
        let dead = store.unlock();
        // This runs in a thread-local's destructor, where a panic aborts the
        // process: a destructor's panic (already reported by the panic hook)
        // goes no further. The graveyard destroys every object either way.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(dead)));
    }
}

// SAFETY: a cache is its slot's owner, and the owner's side of the
// handshake (`crate::slot`) asks only that one thread at a time act as
// owner, in program order; moving the cache to another thread hands that
// role over with the synchronization of the move itself. A run-time pool's
// caches move only so: as the entry of a `ThreadLocal`, which another
// thread reaches only to drop it, with every thread's use of it over, or
// which a new thread inherits, through the crate's own locking, from one
// that has exited. The objects inside are `Erased`, which is `Send`, and
// the core is reached through a `Sync` reference.
unsafe impl Send for RawCache {}

impl Drop for RawCache {
    /// The thread is exiting: its idle objects go to the shared store, so
    /// that another thread can use them (or rotation can reclaim them), and
    /// its counters to the pool's totals.
    fn drop(&mut self) {
        self.retire();
        // SAFETY: `retire` took the slot out of the registry, and this
        // handle, its only other user, is going away.
        unsafe { slot::free(self.slot) };
    }
}

impl<T: Reset + Send + 'static> std::fmt::Debug for LocalCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}

impl std::fmt::Debug for RawCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.slot().enter(epoch::epoch().now()) {
            Some(mut entered) => {
                let local = entered.get();
                f.debug_struct("LocalCache")
                    .field("idle", &local.items.len())
                    .field("epoch", &local.epoch)
                    .field("last_crossing", &local.last_crossing)
                    .finish()
            }
            None => f.write_str("LocalCache { <in use> }"),
        }
    }
}
