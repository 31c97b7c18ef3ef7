//! Who may touch a thread cache's objects: its owner, on every operation
//! with plain loads and stores, or a rotation, rarely, while the owner is
//! between operations. The protocol is an asymmetric Dekker handshake.
//!
//! A thread's cache lives in a [`Slot`], on the heap, registered in its
//! pool's [`Slots`]. (A pool's are `Slot<Local>`, on erased objects, so
//! this code is compiled once for every pool: `crate::engine::erased`.) The slot's `gate` holds the epoch the cache's objects
//! were released in, which the owner's fast path compares with the global
//! epoch anyway. Two ways in:
//!
//! - **The owner's fast path** (every acquire and release that the cache
//!   serves) takes no lock. It marks the operation with `busy`, and backs
//!   off if the gate is not open at the current epoch.
//! - **The owner's slow paths and a rotation** take the slot's own lock,
//!   which nobody else wants (so the owner's is uncontended). A rotation
//!   holding it claims the slot by setting the gate to `CLAIMED`, which no
//!   epoch equals, and then must know the owner is not in a fast path:
//!
//! ```text
//! owner's fast path                    rotation (holds the slot's lock)
//!   busy = 1           (relaxed)         gate = CLAIMED          (relaxed)
//!   light barrier      (compiler)        heavy barrier           (membarrier)
//!   gate == epoch?     (acquire)         if busy == 0:           (acquire)
//!     no: busy = 0, slow path              age the cache
//!   ... the operation ...                  gate = its new epoch  (release)
//!   busy = 0           (release)         unlock
//! ```
//!
//! Invariant: the owner and a rotation never both hold a slot's contents.
//! Slow paths and rotations exclude each other by the slot's lock. Against
//! the fast path, the heavy barrier (`sync::heavy_barrier`: `membarrier(2)`
//! on Linux, `FlushProcessWriteBuffers` on Windows) runs a full memory
//! barrier on every thread of the process, so between the owner's store of
//! `busy` and its load of `gate` (kept in order by the compiler fence)
//! either the barrier ran, and the owner sees the claim, or it did not yet,
//! and the rotation sees `busy`. At least one of them backs off. A rotation
//! that finds the owner busy leaves the gate claimed; the owner's next
//! operation then takes the slow path, which reopens it.
//!
//! The fast path pays a load and two stores of `busy`, fewer instructions
//! than the `RefCell` borrow it replaced, and no fence instruction, no
//! read-modify-write, no line another thread writes: the gate check
//! replaces the epoch check it already made. Where no
//! heavy barrier exists, a rotation claims nothing and leaves the caches
//! to age on their owners' next operation (the 0.1 behaviour).
//!
//! The contents' writes pass between the two sides through the slot's lock
//! and the release stores and acquire loads of `busy` and `gate`. A slot
//! leaves the registry (under the registry's lock) before it is freed, and
//! a rotation touches slots only under that lock, so a rotation never
//! reaches freed memory.
//!
//! In a child of `fork`, a slot whose owner stayed in the parent is an
//! orphan (`crate::engine::fork`): no owner will enter it again, so a
//! rotation ages it with no barrier, if its owner was between operations
//! at the fork (a fork, like the heavy barrier, interrupts every thread of
//! the process, so the child sees each stopped between two instructions).

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crossbeam_utils::CachePadded;

/// The clock the gates hold values of.
pub(crate) use crate::engine::epoch::epoch;
use crate::engine::fork::Owner;
use crate::sync::{AtomicBool, AtomicU8, AtomicU64, MutPtr, Mutex, Ordering, UnsafeCell};
use crate::sync::{
    counters, heavy_barrier, heavy_barrier_available, light_barrier, lock, spin_wait,
};

/// The gate of a slot a rotation has claimed, or whose owner is in a slow
/// path: equal to no epoch, so the fast path backs off.
const CLAIMED: u64 = u64::MAX;

/// A thread cache's contents `L`, with the flags of the handshake and the
/// counters its owner bumps on the fast path.
pub(crate) struct Slot<L> {
    /// 1 while the owner is inside an operation on `contents`, else 0.
    busy: AtomicU8,
    /// The epoch the contents' objects were released in, as of the owner's
    /// last slow path or a rotation's aging; `CLAIMED` while a rotation or
    /// a slow path holds the slot, or since a rotation found the owner busy.
    gate: AtomicU64,
    /// Held by the owner's slow paths and by a rotation aging the slot.
    lock: SlotLock,
    /// Its counters, by the indices [`HITS_LOCAL`] to [`IDLE_OUT`]; written
    /// by the owner only.
    pub(crate) counts: [AtomicU64; 6],
    contents: UnsafeCell<L>,
    /// The thread that registered the slot: its owner. Last, off the lines
    /// the fast path reads.
    owner: Owner,
}

/// A pointer to a registered slot, for the registry.
struct SlotRef<L>(NonNull<CachePadded<Slot<L>>>);

// SAFETY: a `SlotRef` is only dereferenced under its registry's lock, to
// read the counters (atomics) or, through the handshake, to reach the
// contents while the owner is between operations; the contents move
// between threads, so they must be `Send`.
unsafe impl<L: Send> Send for SlotRef<L> {}

/// A pool's registered thread caches, and the counter totals of the caches
/// that have left.
pub(crate) struct Slots<L> {
    live: Vec<SlotRef<L>>,
    /// The counters of the slots that have left the registry.
    retired: Totals,
}

/// A slot's counters ([`Slot::counts`]): acquires served from the cache;
/// releases it kept; releases destroyed at once because it and the shared
/// store were both full (returned, and dropped for capacity); objects made
/// for acquires that missed it; the heap bytes of the objects it kept on
/// release, and of those acquires took from it, as the pool counts them
/// (`Reset::heap_bytes`).
pub(crate) const HITS_LOCAL: usize = 0;
pub(crate) const RETURNED: usize = 1;
pub(crate) const DROPPED: usize = 2;
pub(crate) const CREATED: usize = 3;
pub(crate) const IDLE_IN: usize = 4;
pub(crate) const IDLE_OUT: usize = 5;

/// The caches' counters, summed, by the indices of [`Slot::counts`].
pub(crate) type Totals = [u64; 6];

/// The owner's exclusive access to a slot's contents for one operation:
/// on the fast path `G` is `()`; on a slow path it is the slot's lock
/// ([`SlotGuard`]), so that no rotation can claim the slot until the
/// operation ends, and only then may the operation reopen the gate
/// ([`Entered::open`]).
pub(crate) struct Entered<'a, L, G = ()> {
    slot: &'a Slot<L>,
    /// Released in `drop` before `busy` is cleared, so that (for loom) the
    /// access ends before a rotation may begin its own.
    contents: ManuallyDrop<MutPtr<L>>,
    _lock: G,
}

impl<L> Slot<L> {
    crate::sync::const_fn! {
        /// A slot no one owns, whose gate is closed for ever: the fast paths
        /// back off from it and nothing registers it (a static pool's cache
        /// before its first slow path, `crate::engine::cache::ThreadCache::unset`).
        pub(crate) fn closed(contents: L) -> Self {
            Slot::new(contents, CLAIMED, Owner::NONE)
        }
    }

    crate::sync::const_fn! {
        /// A slot holding `contents`, its gate at `gate`, owned by `owner`:
        /// a `const fn` outside loom, for [`Slot::closed`].
        fn new(contents: L, gate: u64, owner: Owner) -> Self {
            Slot {
                busy: AtomicU8::new(0),
                gate: AtomicU64::new(gate),
                lock: SlotLock(AtomicBool::new(false)),
                counts: counters(),
                contents: UnsafeCell::new(contents),
                owner,
            }
        }
    }

    /// Allocates a slot for `contents`, released in `epoch`, and registers
    /// it in `slots`; the calling thread is its owner.
    pub(crate) fn register(
        contents: L,
        epoch: u64,
        slots: &Mutex<Slots<L>>,
    ) -> NonNull<CachePadded<Slot<L>>> {
        let slot = Box::new(CachePadded::new(Slot::new(
            contents,
            epoch,
            Owner::current(),
        )));
        let slot = NonNull::from(Box::leak(slot));
        lock(slots).live.push(SlotRef(slot));
        slot
    }

    /// The owner's fast entry: exclusive access to the contents if their
    /// objects were released in epoch `now` (the gate is open at `now`);
    /// `None` if not, or if a rotation has claimed the slot, or if the
    /// owner is inside a slow path (which keeps the gate closed, so that a
    /// re-entered call, from a global allocator that pools, say, backs off
    /// here).
    ///
    /// No check of `busy` before setting it: a fast path runs no code that
    /// could re-enter, and a slow path keeps the gate closed, so an open
    /// gate means `busy` was clear. Backing off restores the value found,
    /// so a re-entered call leaves the slow path's `busy` set.
    #[inline]
    pub(crate) fn enter(&self, now: u64) -> Option<Entered<'_, L>> {
        let before = self.busy.load(Ordering::Relaxed);
        self.busy.store(1, Ordering::Relaxed);
        light_barrier();
        if self.gate.load(Ordering::Acquire) != now {
            self.busy.store(before, Ordering::Release);
            return None;
        }
        Some(Entered {
            slot: self,
            contents: ManuallyDrop::new(self.contents.get_mut()),
            _lock: (),
        })
    }

    /// The owner's slow entry, whatever the epoch: takes the slot's lock
    /// (waiting for a rotation that holds it) and closes the gate until the
    /// slow path reopens it ([`Entered::open`]), so that a re-entered call
    /// (from a global allocator that pools, say) backs off on the fast path
    /// and is refused here. `None` only if the owner is already inside an
    /// operation.
    pub(crate) fn enter_slow(&self) -> Option<Entered<'_, L, SlotGuard<'_>>> {
        if self.busy.load(Ordering::Relaxed) != 0 {
            return None; // re-entered
        }
        let locked = self.lock.lock();
        // No rotation holds the slot now, so nothing here races: the gate
        // and `busy` are the owner's while it holds the lock.
        self.busy.store(1, Ordering::Relaxed);
        self.gate.store(CLAIMED, Ordering::Relaxed);
        Some(Entered {
            slot: self,
            contents: ManuallyDrop::new(self.contents.get_mut()),
            _lock: locked,
        })
    }

    /// Runs `age` on an orphan's contents (module docs), unless its owner
    /// was inside an operation at the fork.
    fn age_orphan(&self, age: &mut impl FnMut(&mut L)) {
        let Some(_locked) = self.lock.try_lock() else {
            return; // in a slow path
        };
        if self.busy.load(Ordering::Acquire) == 0 {
            let contents = self.contents.get_mut();
            // SAFETY: no thread of this process enters the slot again
            // (`Owner::is_orphaned`), and its owner was between operations
            // at the fork, so the contents are as it left them, and ours.
            age(unsafe { contents.deref() });
        }
    }

    /// The contents, for the owner once the slot has left the registry.
    ///
    /// # Safety
    ///
    /// The slot must have left its registry (no rotation can reach it) and
    /// the caller must be its owner, outside any operation.
    pub(crate) unsafe fn contents_unregistered(&self) -> MutPtr<L> {
        self.contents.get_mut()
    }
}

impl<L> Entered<'_, L, SlotGuard<'_>> {
    /// Opens the gate at `epoch`, the epoch the contents' objects are now
    /// from: the fast paths serve while the global epoch equals it. Only a
    /// slow path's entry has it: it holds the slot's lock.
    pub(crate) fn open(&self, epoch: u64) {
        self.slot.gate.store(epoch, Ordering::Release);
    }
}

impl<L, G> Entered<'_, L, G> {
    /// The contents.
    #[inline]
    pub(crate) fn get(&mut self) -> &mut L {
        // SAFETY: an `Entered` exists only while `busy` is set, and either
        // the gate was open when it was set (the fast path: by the
        // handshake, module docs, no rotation reaches the contents until
        // `busy` is cleared in `drop`) or the slot's lock is held (a slow
        // path: rotations age a slot only under it). The owner does not
        // enter twice: `enter_slow` refuses while `busy` is set, and
        // `enter` while the gate is closed, as it is during a slow path.
        // The borrow is tied to `&mut self`, so no two of these coexist.
        unsafe { self.contents.deref() }
    }
}

impl<L, G> Drop for Entered<'_, L, G> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: dropped once, here, and not used after.
        unsafe { ManuallyDrop::drop(&mut self.contents) };
        // Release: a rotation that reads 0 here sees the contents as this
        // operation left them.
        self.slot.busy.store(0, Ordering::Release);
    }
}

impl<L> Slots<L> {
    crate::sync::const_fn! {
        pub(crate) fn new() -> Self {
            Slots {
                live: Vec::new(),
                retired: [0; 6],
            }
        }
    }

    /// Takes `slot` out of the registry, folding its counters into the
    /// totals. After this no rotation can reach it.
    pub(crate) fn remove(&mut self, slot: NonNull<CachePadded<Slot<L>>>) {
        if let Some(at) = self.live.iter().position(|s| s.0 == slot) {
            self.live.swap_remove(at);
            // SAFETY: the slot was registered, so it is still allocated
            // (slots are freed only after leaving the registry).
            add(&mut self.retired, unsafe { slot.as_ref() });
        }
    }

    /// The caches' counters, summed, the departed caches' included.
    pub(crate) fn totals(&self) -> Totals {
        let mut totals = self.retired;
        for slot in &self.live {
            // SAFETY: registered, so allocated; only atomics are read.
            add(&mut totals, unsafe { slot.0.as_ref() });
        }
        totals
    }

    /// Runs `age` on the contents of every cache whose owner is between
    /// operations, the rotation's side of the handshake, and reopens their
    /// gates at `now`, the epoch `age` brings them to. Slots whose owner is
    /// in a slow path (their lock taken) are passed over: the owner is using
    /// the pool, and ages the cache itself. Where the platform has no heavy
    /// barrier, touches only orphans (module docs).
    pub(crate) fn age_idle(&mut self, now: u64, mut age: impl FnMut(&mut L)) {
        let barrier = heavy_barrier_available();
        let mut claimed = Vec::with_capacity(if barrier { self.live.len() } else { 0 });
        for slot in &self.live {
            // SAFETY: registered, so allocated (and we hold the registry's
            // lock, so it stays registered until we are done).
            let slot = unsafe { slot.0.as_ref() };
            if slot.owner.is_orphaned() {
                slot.age_orphan(&mut age);
            } else if barrier {
                if let Some(locked) = slot.lock.try_lock() {
                    slot.gate.store(CLAIMED, Ordering::Relaxed);
                    claimed.push((slot, locked));
                }
            }
        }
        // If the barrier fails, the gates stay claimed, and each owner's
        // next operation takes its slow path, which reopens its gate.
        if claimed.is_empty() || !heavy_barrier() {
            return;
        }
        for (slot, _locked) in &claimed {
            if slot.busy.load(Ordering::Acquire) != 0 {
                // In a fast path: the owner finds its gate claimed on its
                // next operation, and its slow path reopens it.
                continue;
            }
            {
                let contents = slot.contents.get_mut();
                // SAFETY: we hold the slot's lock (no slow path), the slot
                // is claimed and its owner was not busy after the heavy
                // barrier, so by the handshake no fast path enters until
                // the gate reopens below.
                age(unsafe { contents.deref() });
            }
            // Release: an owner that reads this sees what `age` did.
            slot.gate.store(now, Ordering::Release);
        }
    }
}

/// Adds `slot`'s counters to `totals`.
fn add<L>(totals: &mut Totals, slot: &Slot<L>) {
    for (total, count) in totals.iter_mut().zip(&slot.counts) {
        *total += count.load(Ordering::Relaxed);
    }
}

/// The slot's lock: a flag, so that a rotation can try it without waiting
/// (a rotation passes over a slot whose owner is in a slow path). Held only
/// for a slow path's few moves of pointers, or by a rotation across one
/// heavy barrier, so the other side spins rather than sleeps.
struct SlotLock(AtomicBool);

/// A held [`SlotLock`]; released on drop.
pub(crate) struct SlotGuard<'a>(&'a SlotLock);

impl SlotLock {
    fn try_lock(&self) -> Option<SlotGuard<'_>> {
        // Not `then_some(SlotGuard(self))`: that makes the guard, and drops
        // it (unlocking what another thread holds) when the exchange fails.
        let taken = self
            .0
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
        taken.then(|| SlotGuard(self))
    }

    fn lock(&self) -> SlotGuard<'_> {
        let mut round = 0;
        loop {
            if let Some(locked) = self.try_lock() {
                return locked;
            }
            spin_wait(&mut round);
        }
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        self.0.0.store(false, Ordering::Release);
    }
}

/// Frees a slot.
///
/// # Safety
///
/// The slot must have left its registry ([`Slots::remove`]) and must not be
/// used again.
pub(crate) unsafe fn free<L>(slot: NonNull<CachePadded<Slot<L>>>) {
    // SAFETY: allocated by `Slot::register` with `Box`, and, by the
    // caller's promise, unreachable from the registry and unused from now on.
    drop(unsafe { Box::from_raw(slot.as_ptr()) });
}

/// Adds `n` to a counter that only its owning thread writes.
///
/// A load and a store instead of `fetch_add`: with a single writer no
/// increment can be lost, and the pair compiles to plain moves rather than a
/// locked instruction. Readers on other threads see some recent value.
/// Returns the new count.
#[inline]
pub(crate) fn bump(counter: &AtomicU64, n: u64) -> u64 {
    let count = counter.load(Ordering::Relaxed) + n;
    counter.store(count, Ordering::Relaxed);
    count
}
