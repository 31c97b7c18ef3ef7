//! Every slow path of an acquire or a release: what runs when a thread's
//! cache is empty, full, out of date, retired or absent ([`take_slow`],
//! [`put_slow`]): the cache's side of it (refill, spill, by the cache's
//! policy, `crate::engine::cache::Local`), and the shared store's side for
//! a thread with no cache.
//!
//! Invariant: no user code (a constructor, `reset`, a destructor) runs
//! while a slot is entered or the store is locked: what the store lets go
//! of comes back as a [`Graveyard`], destroyed by the caller afterwards,
//! and an object taken for an acquire is [`Held`] across that, so a panic
//! in a destructor there discards it rather than loses it.

use crate::engine::cache::RawCache;
use crate::engine::core::PoolCore;
use crate::engine::erased::Erased;
use crate::engine::graveyard::Graveyard;
use crate::engine::slot::{bump, epoch};

impl RawCache {
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

    /// Drops this cache's idle objects, for `Pool::clear` on the owner's
    /// thread: through the owner's slow entry, so it works where rotation
    /// cannot reach caches (no heavy barrier). Counted as dropped by
    /// rotation; the destructors run after the slot and the store are
    /// left. Does nothing if the cache is retired or the owner is inside
    /// an operation on the pool (a destructor the pool runs calling
    /// `clear`).
    #[inline(never)]
    pub(crate) fn clear(&self) {
        let dead = {
            let Some(mut entered) = self.enter_slow() else {
                return;
            };
            let local = entered.get();
            let items = std::mem::take(&mut local.items);
            let epoch = local.epoch;
            if items.is_empty() {
                entered.open(epoch);
                return;
            }
            let now = self.core.register();
            let mut store = self.core.shared.lock(now);
            store.expire(items);
            entered.open(epoch);
            drop(entered);
            store.unlock()
        };
        drop(dead);
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
    /// pool has no idle object.
    #[inline(never)]
    pub(crate) fn refill(&self, now: u64) -> (Option<Erased>, Graveyard<Erased>) {
        let Some(mut entered) = self.enter_slow() else {
            return self.core.take_uncached(now);
        };
        let local = entered.get();
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
            // instead of one miss per acquire (docs/PERFORMANCE.md,
            // cross-thread). At most `PREFETCH`: the ones acquired first,
            // from the top.
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
    pub(crate) fn spill(&self, value: Erased) -> Graveyard<Erased> {
        // A pool with no thread caches, or a cache retired or re-entered:
        // straight to the shared store, without closing the gate.
        let entered = if self.core.bounds.thread_capacity > 0 {
            self.enter_slow()
        } else {
            None
        };
        let Some(mut entered) = entered else {
            return self.core.put_uncached(value);
        };
        let returned = &self.slot().returned;
        let local = entered.get();
        let current = epoch().now();
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

/// The shared store's side of a slow path, for a thread with no cache (it
/// is exiting, or the pool keeps none).
impl PoolCore {
    /// Takes an object from the shared store for an acquire that has no
    /// thread cache to go through. What the store expired on the way is
    /// returned to be destroyed by the caller.
    #[inline(never)]
    pub(crate) fn take_uncached(&self, now: u64) -> (Option<Erased>, Graveyard<Erased>) {
        if self.shared.looks_empty() {
            return (None, self.shared.graveyard());
        }
        let mut store = self.shared.lock(now);
        let found = store.take().map(|(value, _tier)| value);
        (found, store.unlock())
    }

    /// Files one reset object released with no thread cache to go through,
    /// within the pool's capacity.
    #[inline(never)]
    pub(crate) fn put_uncached(&self, value: Erased) -> Graveyard<Erased> {
        let now = self.register();
        self.count_returned();
        let mut store = self.shared.lock(now);
        store.put_one(value, self.bounds.capacity);
        store.unlock()
    }
}

/// The most objects of a refill whose lines [`RawCache::refill`] asks for
/// ahead of use: one default thread cache (`crate::pool::config` checks
/// that they agree). A larger
/// cache's deeper objects are acquired long after the refill, and asking
/// for them then would only push the first ones out of the core's caches.
pub(crate) const PREFETCH: usize = 32;

/// The slow path of an acquire (`Pool::take_slow`), erased: through
/// `cache` if the thread has one, else straight from the shared store.
/// `None` means the pool has no idle object: the caller makes one.
#[inline(never)]
pub(crate) fn take_slow(core: &PoolCore, cache: Option<&RawCache>, now: u64) -> Option<Erased> {
    // A miss with nothing to take anywhere, as under a burst larger
    // than the pool: straight to the constructor, with no lock taken.
    if core.shared.looks_empty() && cache.is_none_or(|cache| cache.missed_current(now)) {
        return None;
    }
    take_through(core, cache, now)
}

/// [`take_slow`], when there may be something to take.
#[inline(never)]
fn take_through(core: &PoolCore, cache: Option<&RawCache>, now: u64) -> Option<Erased> {
    let (found, dead) = match cache {
        Some(cache) => cache.refill(now),
        None => core.take_uncached(now),
    };
    let Some(value) = found else {
        drop(dead);
        return None;
    };
    // The object is this acquire's from here on. If a destructor in
    // `dead` panics, the unwind drops it as it drops a guard: counted
    // as discarded, not lost with `in_use` stuck at one.
    let held = Held(Some(value), core);
    drop(dead);
    held.into_inner()
}

/// The slow path of a release (`Pool::put_slow`), erased: files
/// `value`, already reset, when the thread cache is full, gone or
/// disabled, and destroys what the store lets go of.
#[inline(never)]
pub(crate) fn put_slow(core: &PoolCore, cache: Option<&RawCache>, value: Erased) {
    // A release past the bound, as under a burst larger than the pool:
    // the object is destroyed at once, as the store would bury it, with
    // no lock taken and no half-cache spilled only to be buried too.
    let now = epoch().now();
    let value = match cache {
        Some(cache) if core.shared.looks_full(core.bounds.capacity, now) => {
            match cache.drop_if_full(value, now) {
                Ok(()) => return,
                Err(value) => value,
            }
        }
        _ => value,
    };
    let dead = match cache {
        Some(cache) => cache.spill(value),
        None => core.put_uncached(value),
    };
    drop(dead);
}

/// An object an acquire has taken but not yet handed out; discarded if
/// dropped before [`Held::into_inner`].
struct Held<'a>(Option<Erased>, &'a PoolCore);

impl Held<'_> {
    fn into_inner(mut self) -> Option<Erased> {
        self.0.take()
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            self.1.discard(value);
        }
    }
}
