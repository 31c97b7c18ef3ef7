//! A thread's cache of one pool, [`RawCache`], and its fast paths; what it
//! holds and its policy (its bounds, how much it refills and spills) are
//! `crate::engine::policy`'s, its slow paths `crate::engine::slow`'s.
//!
//! A static pool's `thread_local!` holds a typed handle over a `RawCache`
//! ([`LocalCache`]); a run-time pool's each thread's part holds one. The
//! cache is a stack of idle objects that only its thread touches, so the
//! fast paths take no lock and perform no atomic read-modify-write.
//!
//! Invariants:
//! 1. The cache holds at most its `thread_capacity` objects, all released
//!    in the epoch it records; a cache found in an older epoch hands its
//!    objects to the shared store (which files them as victims or expires
//!    them) before it is used again, whether its owner finds it so on its
//!    next operation or a rotation does while the owner is idle. Its
//!    buffer's capacity is the room the fast path checks, so it never
//!    exceeds the bound. The bounds are the cache's own, given when it is
//!    made (the pool's [`Bounds`], which never change).
//! 2. Its objects live in a [`Slot`](crate::engine::slot::Slot) on the heap, which
//!    the owner enters for each operation and a rotation may enter while
//!    the owner is between operations (the handshake in `crate::engine::slot`).
//!    An operation only moves pointers; no user code (a constructor,
//!    `reset`, a destructor) runs inside one: the slow paths return what
//!    the store buried, as a `Graveyard`, for the caller to destroy
//!    afterwards. A user's `reset` or `Drop` may therefore acquire or
//!    release objects of the same pool (a tree of pooled nodes, say).
//!    Should the slot be busy (re-entered), the cache falls back to the
//!    shared store rather than wait.
//!
//! Everything here but [`LocalCache`] is on erased objects
//! (`crate::engine::erased::Erased`) and compiled once in pool-core; the
//! typed handle's fast paths, inlined where the pool is used, only turn the
//! erased pointer back into the box.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

use crate::engine::core::CoreRef;
use crate::engine::erased::Erased;
use crate::engine::policy::Local;
use crate::engine::slot::bump;
use crate::engine::slot::{self, Entered, Slot, epoch};
use crate::sync::lock;

/// A thread's cache without its type: what every slow path works on, and
/// what a static pool's `thread_local!` holds.
#[doc(hidden)]
pub struct RawCache {
    slot: NonNull<CachePadded<Slot<Local>>>,
    /// The pool's shared half, where misses, overflows and the thread's
    /// exit go, and whose registry holds the slot.
    pub(super) core: CoreRef,
    /// Whether [`RawCache::retire`] has run: the slot has left the
    /// registry, holds nothing, and the slow paths go straight to the
    /// shared store.
    pub(super) retired: Cell<bool>,
}

impl RawCache {
    /// A cache for the pool whose core is `core`, registered with it.
    #[inline(never)]
    pub(crate) fn new(core: CoreRef) -> Self {
        // Rotation must know the pool before the cache holds anything: it
        // reaches the caches of idle threads through the pool.
        core.register();
        let local = Local::new(epoch().now(), core.bounds);
        let epoch = local.epoch;
        RawCache {
            slot: Slot::register(local, epoch, &core.caches),
            core,
            retired: Cell::new(false),
        }
    }

    /// Points the cache at its pool's core anew, for a run-time pool being
    /// dropped (see `crate::pool::runtime`).
    pub(crate) fn set_core(&mut self, core: CoreRef) {
        self.core = core;
    }

    #[inline(always)]
    pub(super) fn slot(&self) -> &Slot<Local> {
        // SAFETY: the slot is freed only by this handle's `drop`.
        unsafe { self.slot.as_ref() }
    }

    /// Enters the slot for a slow path, waiting for a rotation that holds
    /// it; `None` if the cache is retired or re-entered.
    pub(super) fn enter_slow(&self) -> Option<Entered<'_, Local>> {
        if self.retired.get() {
            return None;
        }
        self.slot().enter_slow()
    }

    #[inline(always)]
    pub(crate) fn pop(&self, now: u64) -> Option<Erased> {
        let slot = self.slot();
        let mut entered = slot.enter(now)?;
        let value = entered.get().items.pop()?;
        bump(&slot.hits_local);
        Some(value)
    }

    #[inline(always)]
    pub(crate) fn push(&self, value: Erased, now: u64) -> Result<(), Erased> {
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
}

impl RawCache {
    /// Hands the cache's idle objects to the shared store and its counters
    /// to the pool's totals, for good: what the thread's exit does. Later
    /// calls do nothing, so a loom model can retire a cache before loom
    /// drops it (loom runs a thread's local destructors outside the model's
    /// execution, where no modelled lock may be taken).
    #[inline(never)]
    pub(crate) fn retire(&self) {
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
// handshake (`crate::engine::slot`) asks only that one thread at a time act as
// owner, in program order; moving the cache to another thread hands that
// role over with the synchronization of the move itself. A run-time pool's
// caches move only so: in a thread's part, which another thread reaches
// only to drop it, with every thread's use of it over, or to retire it and
// replace it, under the pool's lock, after the owner has exited. The objects inside are `Erased`, which is `Send`, and
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

impl std::fmt::Debug for RawCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.slot().enter(epoch().now()) {
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

/// A thread's cache of idle objects for one pool: the thread-local handle
/// of its slot.
///
/// Only [`pool!`](crate::pool!) and the derive create these, as the lazily
/// initialized value of a `thread_local!`; it has no public methods.
#[doc(hidden)]
#[repr(transparent)]
pub struct LocalCache<T> {
    /// Read directly by the typed pool's fast paths, which would otherwise
    /// make one more function per pooled type in a debug build.
    pub(crate) raw: RawCache,
    /// Its objects are `Boxed<T>`s.
    _objects: PhantomData<T>,
}

impl<T: Send + 'static> LocalCache<T> {
    /// A cache for the pool whose core is `core`, registered with it
    /// (its typed constructors, for a pool's state, are `crate::pool::state`'s).
    ///
    /// # Safety
    ///
    /// `core`'s objects are `Boxed<T>`s of this `T`.
    #[inline]
    pub(crate) unsafe fn from_core(core: CoreRef) -> Self {
        LocalCache {
            raw: RawCache::new(core),
            _objects: PhantomData,
        }
    }

    /// The cache without its type, for a static pool's `thread_local!`.
    #[inline]
    pub(crate) fn into_raw(self) -> RawCache {
        self.raw
    }

    /// The cache without its type, for the slow paths.
    #[inline(always)]
    pub(crate) fn raw(&self) -> &RawCache {
        &self.raw
    }

    /// The typed view of a cache of a pool of `T`s (a run-time pool's
    /// caches are kept as `RawCache`s, so that their parts' code is
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
}

impl<T> std::fmt::Debug for LocalCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}
