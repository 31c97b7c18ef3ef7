//! The shared store: a pool's two tiers of idle objects, primary and victim,
//! behind one lock.
//!
//! Threads reach this store only when their own cache misses or overflows,
//! and then move objects in batches, so the lock is taken once per batch, not
//! once per object. Every object the store decides to destroy (over capacity,
//! or aged out by rotation) goes to a graveyard that is dropped only after the
//! lock is released: the store never runs user code under its lock.
//!
//! The store is generic over what it holds, but a pool's is a
//! `Shared<Erased>` (`crate::engine::erased`): every pool's store is the same
//! code, compiled once in pool-core, and destroys its objects through the
//! pool's [`Dispose`], given when the store is made.
//!
//! Invariant: both tiers together hold at most `capacity` objects, and
//! every object the store lets go of (expired, over capacity, or the
//! store's own end) passes through a [`Graveyard`] that destroys it with
//! no lock held.
//!
//! [`Graveyard`]: where the objects a shared store lets go of are
//! destroyed, after its lock is released.
//!
//! Invariant: every object buried here is destroyed exactly once, by the
//! store's [`Dispose`], with no lock held; a destructor that panics does not
//! stop the others, and no second panic meets the first.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use crate::engine::erased::Dispose;
use crate::engine::fork::ForkHold;
use crate::sync::{AtomicU64, AtomicUsize, Mutex, MutexGuard, Ordering, const_fn, lock};

/// A pool's shared idle objects, laid out so that what every refill and
/// spill touches is one cache line (`repr(C)`, aligned): the hints, the
/// lock and, inside it, the primary tier and the epoch. A producer and a
/// consumer thread take the lock in turn, once per batch each, so each
/// line of this that both write crosses between their cores per batch.
#[repr(C, align(64))]
pub(crate) struct Shared<T> {
    /// How many objects the tiers held when the lock was last released. Read
    /// without the lock, it lets a miss on an empty store go straight to the
    /// constructor instead of queueing for a lock that has nothing to give.
    idle: AtomicUsize,
    /// How many of them were in the primary tier, likewise, and the epoch
    /// the tiers were at: a release that finds its thread cache at its
    /// bound and this tier full in the current epoch destroys its object at
    /// once, without the lock, as the store would (`PoolCore::put_slow`).
    primary: AtomicUsize,
    primary_epoch: AtomicU64,
    tiers: Mutex<Tiers<T>>,
    /// Destroys one of the objects: the only thing the store knows about
    /// their type.
    dispose: Dispose<T>,
    /// The heap bytes of the idle objects destroyed, as `dispose` counts
    /// them: what [`Shared::destroy`] and every graveyard of this store
    /// destroyed (`crate::engine::core`'s idle bytes).
    dropped_bytes: AtomicU64,
}

/// In `repr(C)` order: the primary tier and the epoch, which every batch
/// moved reads or writes, on the line of the lock (see [`Shared`]); the
/// victim tier on the next line, and the counters on the one after, which
/// refills write and spills do not read.
#[repr(C)]
struct Tiers<T> {
    /// Objects released in the store's current epoch.
    primary: Vec<T>,
    /// The epoch the tiers are classified against. Only moves forward.
    epoch: u64,
    /// Objects that were idle when the epoch last advanced. Served only when
    /// the primary tier is empty; dropped when the epoch advances again.
    victim: Vec<T>,
    _line: [u8; 64 - size_of::<Vec<()>>()],
    counts: SharedCounts,
}

/// Counters kept under the store's lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SharedCounts {
    pub(crate) hits_primary: u64,
    pub(crate) hits_victim: u64,
    pub(crate) dropped_capacity: u64,
    pub(crate) dropped_rotation: u64,
    /// Objects held in both tiers right now.
    pub(crate) idle: u64,
}

impl<T> Shared<T> {
    const_fn! {
        /// An empty store whose objects `dispose` destroys.
        ///
        /// # Safety
        ///
        /// `dispose` must accept every object that will be filed in the
        /// store (for a pool's store: `dispose::<T>` of the pool's `T`).
        pub(crate) unsafe fn new(dispose: Dispose<T>) -> Self {
            Shared {
                idle: AtomicUsize::new(0),
                primary: AtomicUsize::new(0),
                primary_epoch: AtomicU64::new(0),
                tiers: Mutex::new(Tiers {
                    primary: Vec::new(),
                    epoch: 0,
                    victim: Vec::new(),
                    _line: [0; 64 - size_of::<Vec<()>>()],
                    counts: SharedCounts {
                        hits_primary: 0,
                        hits_victim: 0,
                        dropped_capacity: 0,
                        dropped_rotation: 0,
                        idle: 0,
                    },
                }),
                dispose,
                dropped_bytes: AtomicU64::new(0),
            }
        }
    }

    /// Destroys one of this store's objects (one that would be filed in
    /// it), at once: the caller holds no lock.
    ///
    /// On a thread that is already unwinding (a guard dropped during a
    /// panic, the rest of a `Vec` of guards after one destructor panicked),
    /// a destructor that panics is caught and its panic dropped, as the
    /// [`Graveyard`] does: a second panic there would abort the process
    /// ("panic in a destructor during cleanup"). Otherwise its panic goes
    /// on to the caller.
    ///
    /// If `idle` (the object was counted in the pool's idle bytes: filed,
    /// or being filed), the heap bytes `dispose` counts go to
    /// [`dropped_bytes`](Shared::dropped_bytes).
    pub(crate) fn destroy(&self, object: T, idle: bool) {
        let dispose = self.dispose;
        let bytes = if std::thread::panicking() {
            // SAFETY: `dispose` accepts this store's objects (`Shared::new`).
            catch_unwind(AssertUnwindSafe(move || unsafe { dispose(object) })).unwrap_or(0)
        } else {
            // SAFETY: as above.
            unsafe { dispose(object) }
        };
        if idle && bytes > 0 {
            self.dropped_bytes
                .fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }

    /// The heap bytes of the idle objects this store and its graveyards
    /// destroyed.
    pub(crate) fn dropped_bytes(&self) -> u64 {
        self.dropped_bytes.load(Ordering::Relaxed)
    }

    /// An empty graveyard for this store's objects; allocates nothing.
    #[inline]
    pub(crate) fn graveyard(&self) -> Graveyard<'_, T> {
        Graveyard {
            dead: Vec::new(),
            store: self,
        }
    }

    /// Whether the store looked empty when its lock was last released. A
    /// hint: an object stored since may be missed, which costs one needless
    /// construction, never correctness.
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        self.idle.load(Ordering::Relaxed) == 0
    }

    /// Whether the primary tier looked full under `capacity`, at epoch
    /// `now`, when the lock was last released: an object released now would
    /// be buried (the store evicts only victims for a fresh object). A
    /// hint, as [`looks_empty`](Self::looks_empty) is: acting on a stale one
    /// buries a fresh object where a victim could have gone, never more
    /// objects than the bound.
    ///
    /// A count published in an older epoch is of objects the next lock
    /// ages into victims, so in epoch `now` that primary tier is empty:
    /// full only if the store has no room at all (`capacity` 0). Reading it
    /// as "not full" instead made a store of capacity 0 that had not been
    /// locked since the epoch last advanced take the lock for a release
    /// past the bound.
    #[inline]
    pub(crate) fn looks_full(&self, capacity: usize, now: u64) -> bool {
        let primary = if self.primary_epoch.load(Ordering::Relaxed) == now {
            self.primary.load(Ordering::Relaxed)
        } else {
            0
        };
        primary >= capacity
    }

    /// Holds the store's lock across a fork (`crate::engine::fork`), aging
    /// nothing.
    ///
    /// # Safety
    ///
    /// The store lives until the fork is done.
    pub(crate) unsafe fn hold_for_fork(&self, held: &mut ForkHold) {
        // SAFETY: the caller's promise.
        unsafe { held.keep(lock(&self.tiers)) };
    }

    /// Locks the store after bringing its tiers up to epoch `now`.
    ///
    /// If `now` is ahead of the store, the tiers age first: one step moves
    /// primary to victim and expires the old victim; two or more expire both.
    /// Expired objects wait in the returned guard's graveyard.
    pub(crate) fn lock(&self, now: u64) -> Locked<'_, T> {
        let mut locked = Locked {
            tiers: lock(&self.tiers),
            graveyard: self.graveyard(),
        };
        let tiers = &mut *locked.tiers;
        if now > tiers.epoch {
            let expired = if now - tiers.epoch == 1 {
                // The old victims go, in their own buffer, to the graveyard;
                // the primary tier becomes the victim tier, keeping its
                // buffer, and the new primary tier starts empty, unallocated.
                let old_victim = std::mem::take(&mut tiers.victim);
                tiers.victim = std::mem::take(&mut tiers.primary);
                old_victim
            } else {
                let mut expired = std::mem::take(&mut tiers.victim);
                expired.append(&mut tiers.primary);
                expired
            };
            tiers.epoch = now;
            locked.expire(expired);
        }
        locked
    }

    /// A snapshot of the counters.
    pub(crate) fn counts(&self) -> SharedCounts {
        let tiers = lock(&self.tiers);
        SharedCounts {
            idle: tiers.len() as u64,
            ..tiers.counts
        }
    }
}

impl<T> Drop for Shared<T> {
    /// The store's end (a run-time pool's): its objects go through a
    /// graveyard, as every object the store lets go of does, expired (the
    /// counts of a store at its end are read by no one).
    fn drop(&mut self) {
        self.lock(0).expire_all();
    }
}

impl<T> Tiers<T> {
    fn len(&self) -> usize {
        self.primary.len() + self.victim.len()
    }
}

/// The store, locked. Dropping it releases the lock and then destroys the
/// objects in the graveyard.
pub(crate) struct Locked<'a, T> {
    tiers: MutexGuard<'a, Tiers<T>>,
    // Declared after `tiers`: struct fields drop in declaration order, so the
    // lock is released before any object in here is destroyed and its
    // destructor (user code) runs. Its store is the locked one.
    graveyard: Graveyard<'a, T>,
}

impl<T> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        // Still under the lock, so the hints are the counts at release.
        let (shared, tiers) = (self.graveyard.store, &self.tiers);
        shared.idle.store(tiers.len(), Ordering::Relaxed);
        shared.primary.store(tiers.primary.len(), Ordering::Relaxed);
        shared.primary_epoch.store(tiers.epoch, Ordering::Relaxed);
    }
}

impl<'a, T> Locked<'a, T> {
    /// Releases the lock and hands over the objects to destroy, so that the
    /// caller decides when their destructors run.
    pub(crate) fn unlock(mut self) -> Graveyard<'a, T> {
        let store = self.graveyard.store;
        std::mem::replace(&mut self.graveyard, store.graveyard())
    }

    /// Expires `dead`, objects of this pool that were idle: buried, and
    /// counted as dropped by rotation (`Pool::clear`).
    pub(crate) fn expire(&mut self, dead: Vec<T>) {
        self.tiers.counts.dropped_rotation += dead.len() as u64;
        self.graveyard.bury(dead);
    }

    /// Expires both tiers' objects, as [`expire`](Self::expire) does.
    pub(crate) fn expire_all(&mut self) {
        let primary = std::mem::take(&mut self.tiers.primary);
        let victim = std::mem::take(&mut self.tiers.victim);
        self.expire(primary);
        self.expire(victim);
    }

    /// How many objects both tiers hold.
    pub(crate) fn len(&self) -> usize {
        self.tiers.len()
    }

    /// How many more objects fit under `capacity`, the bound on both tiers
    /// together.
    fn room(&self, capacity: usize) -> usize {
        capacity.saturating_sub(self.tiers.len())
    }

    /// Stores the objects of `batch[range]`, released in epoch `origin`, and
    /// removes them from `batch`, keeping both tiers together within
    /// `capacity`.
    ///
    /// Objects released in the current epoch go to the primary tier,
    /// evicting victims if the store is full (a fresh object is worth more
    /// than one that is about to expire); objects from the previous epoch go
    /// to the victim tier if there is room; older ones are expired. Whatever
    /// is not stored is buried.
    pub(crate) fn put_from(
        &mut self,
        batch: &mut Vec<T>,
        range: std::ops::RangeTo<usize>,
        origin: u64,
        capacity: usize,
    ) {
        let n = range.end.min(batch.len());
        let age = self.tiers.epoch.saturating_sub(origin);
        if n == 0 {
            return;
        } else if age > 1 {
            self.expire(batch.drain(..n).collect());
            return;
        }
        let room = self.room(capacity);
        let evict = match age {
            0 => n.saturating_sub(room).min(self.tiers.victim.len()),
            _ => 0,
        };
        let keep = (room + evict).min(n);
        let tiers = &mut *self.tiers;
        // Only when there is something to evict or to count: a batch that
        // fits writes nothing off the lock's line (see `Shared`), not even
        // a zero.
        let dropped = n - keep + evict;
        if dropped > 0 {
            tiers.counts.dropped_capacity += dropped as u64;
            let victims = tiers.victim.len();
            self.graveyard
                .bury(tiers.victim.drain(victims - evict..).collect());
        }
        // The objects at the top of the batch are the most recently
        // released; keep those.
        let mut moving = batch.drain(..n);
        self.graveyard
            .bury(moving.by_ref().take(n - keep).collect());
        match age {
            0 => tiers.primary.extend(moving),
            _ => tiers.victim.extend(moving),
        }
    }

    /// Whether the primary tier alone fills `capacity`, so that a fresh
    /// object would be buried (what `Shared::looks_full` hints unlocked).
    pub(crate) fn primary_full(&self, capacity: usize) -> bool {
        self.tiers.primary.len() >= capacity
    }

    /// Stores one object released in the current epoch, within `capacity`
    /// (evicting a victim for it if need be), or buries it.
    pub(crate) fn put_one(&mut self, value: T, capacity: usize) {
        if self.room(capacity) == 0 {
            self.tiers.counts.dropped_capacity += 1;
            let Some(victim) = self.tiers.victim.pop() else {
                return self.graveyard.dead.push(value);
            };
            self.graveyard.dead.push(victim);
        }
        self.tiers.primary.push(value);
    }

    /// Takes one object for an acquire: the primary tier first, then the
    /// victim tier.
    pub(crate) fn take(&mut self) -> Option<T> {
        let tiers = &mut *self.tiers;
        if let Some(value) = tiers.primary.pop() {
            tiers.counts.hits_primary += 1;
            Some(value)
        } else {
            let value = tiers.victim.pop()?;
            tiers.counts.hits_victim += 1;
            Some(value)
        }
    }

    /// Moves up to `max` objects from the primary tier into `out`, to refill
    /// a thread's cache. Victims are not moved: they are handed out one at a
    /// time so that an unused victim still expires on schedule.
    ///
    /// `out` grows by exactly what it takes (never past `out.len() + max`),
    /// or takes nothing if memory for that cannot be had.
    pub(crate) fn take_batch(&mut self, out: &mut Vec<T>, max: usize) {
        let primary = &mut self.tiers.primary;
        let n = max.min(primary.len());
        if n == 0 || out.try_reserve_exact(n).is_err() {
            return;
        }
        out.extend(primary.drain(primary.len() - n..));
    }
}

#[cfg(all(test, not(loom)))]
mod tests;

/// Objects the store decided to destroy, handed out of the lock so that
/// their destructors (user code) run with no lock held.
///
/// Dropping it destroys the objects one at a time. A destructor that panics
/// does not stop the others: every object is destroyed, then the first
/// panic is passed on (or, if the thread is already unwinding, dropped, as
/// a second panic would abort the process). Dropping a plain `Vec` of them
/// instead would abort on the second panicking destructor ("panic in a
/// destructor during cleanup").
pub(crate) struct Graveyard<'a, T> {
    dead: Vec<T>,
    /// The store they were let go of: its [`Dispose`] destroys them, and
    /// its `dropped_bytes` counts the bytes they held.
    store: &'a Shared<T>,
}

impl<T> Graveyard<'_, T> {
    /// Whether no object is to be destroyed.
    pub(crate) fn is_empty(&self) -> bool {
        self.dead.is_empty()
    }

    /// Buries every object of `dead`.
    pub(crate) fn bury(&mut self, mut dead: Vec<T>) {
        if self.dead.is_empty() {
            std::mem::swap(&mut self.dead, &mut dead);
        } else {
            self.dead.append(&mut dead);
        }
    }

    /// Destroys every object, then passes on the first panic (see the
    /// type's docs).
    #[inline(never)]
    fn destroy_all(&mut self) {
        let mut first = None;
        let mut bytes = 0u64;
        let dispose = self.store.dispose;
        for object in self.dead.drain(..) {
            // SAFETY: every object buried here is one of its store's, which
            // `dispose` accepts (`Shared::new`).
            let destroyed = catch_unwind(AssertUnwindSafe(move || unsafe { dispose(object) }));
            match destroyed {
                Ok(held) => bytes += held as u64,
                Err(payload) => {
                    first.get_or_insert(payload);
                }
            }
        }
        if bytes > 0 {
            self.store.dropped_bytes.fetch_add(bytes, Ordering::Relaxed);
        }
        // Nested, not a let chain: the crate builds on Rust 1.85, and let
        // chains came in 1.88.
        if let Some(payload) = first {
            if !std::thread::panicking() {
                resume_unwind(payload);
            }
        }
    }
}

impl<T> Drop for Graveyard<'_, T> {
    /// Inlined, so that the common empty graveyard (every slow path returns
    /// one) costs a length check, not a call.
    #[inline]
    fn drop(&mut self) {
        if !self.dead.is_empty() {
            self.destroy_all();
        }
    }
}
