//! Where a thread's cache's objects go when it stops keeping them: at its
//! thread's exit ([`RawCache::retire`], then its `Drop`), to the shared
//! store for other threads; for `Pool::clear`, expired.
//!
//! Invariant: a retired cache is out of its pool's registry, holds nothing,
//! and is passed over by every slow path from then on (`RawCache::enter_slow`),
//! so that a later thread-local destructor that uses the pool goes to the
//! shared store; its slot is freed only by the cache's `Drop`.

use crate::engine::cache::RawCache;
use crate::engine::slot;
use crate::sync::lock;

impl RawCache {
    /// Hands the cache's idle objects to the shared store and its counters
    /// to the pool's totals, for good: what the thread's exit does. Later
    /// calls do nothing, so a loom model can retire a cache before loom
    /// drops it (loom runs a thread's local destructors outside the model's
    /// execution, where no modelled lock may be taken).
    #[inline(never)]
    pub(crate) fn retire(&self) {
        if self.retired.replace(true) || self.is_unset() {
            return;
        }
        // Out of the registry first: no rotation can reach the slot after
        // this, so the owner needs no handshake to empty it.
        lock(&self.core().caches).remove(self.slot.get());
        // SAFETY: unregistered, and this is its owner, outside any
        // operation (`retire` runs no user code before this point).
        let contents = unsafe { self.slot().contents_unregistered() };
        // SAFETY: as above; this is the only reference to the contents.
        let local = unsafe { contents.deref() };
        let now = self.core().register();
        let len = local.items.len();
        let mut store = self.core().shared.lock(now);
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
            let now = self.core().register();
            let mut store = self.core().shared.lock(now);
            store.expire(items);
            entered.open(epoch);
            drop(entered);
            store.unlock()
        };
        drop(dead);
    }
}

impl Drop for RawCache {
    /// The thread is exiting: its idle objects go to the shared store, so
    /// that another thread can use them (or rotation can reclaim them), and
    /// its counters to the pool's totals.
    fn drop(&mut self) {
        self.retire();
        if self.is_unset() {
            return; // its slot is the static `UNSET`
        }
        // SAFETY: `retire` took the slot out of the registry, and this
        // handle, its only other user, is going away.
        unsafe { slot::free(self.slot.get()) };
    }
}
