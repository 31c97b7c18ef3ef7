//! What a thread's cache holds, inside its slot ([`Local`]), and its
//! policy: within which bounds ([`Bounds`], the pool's, given when the
//! cache is made), when it ages, how much it refills and spills. Apart
//! from `crate::engine::cache` so that the pool's core, which keeps every
//! cache's slot, can name it.
//!
//! Invariant: the cache holds at most `bound` objects, all released in the
//! epoch it records; a cache found in an older epoch hands its objects to
//! the shared store (which files them as victims or expires them) before
//! it is used again, whether its owner finds it so on its next operation
//! or a rotation does while the owner is idle. Its buffer's capacity is the
//! room the fast path checks, so it never exceeds `bound`.

use crate::engine::bytes::Tally;
use crate::engine::erased::Erased;
use crate::engine::store::Locked;

/// A pool's bounds, fixed when it is made: how many idle objects each
/// thread's cache keeps (`thread_capacity`), and both shared tiers together
/// (`capacity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) thread_capacity: usize,
    pub(crate) capacity: usize,
}

/// What a thread's cache holds, inside its slot.
pub(crate) struct Local {
    /// Idle objects; the most recently released on top. Its capacity is the
    /// room the fast path checks: it starts at zero and grows, on the slow
    /// path and exactly (`Local::grow`), up to `bound`, so the bound is a
    /// bound and not a preallocation (a `thread_capacity` of `usize::MAX`
    /// costs nothing until objects are cached).
    pub(crate) items: Vec<Erased>,
    /// The pool's `thread_capacity`, and the bound on its shared tiers
    /// (its [`Bounds`], given when the cache is made).
    pub(crate) bound: usize,
    pub(crate) capacity: usize,
    /// The epoch `items` were released in.
    pub(crate) epoch: u64,
    /// Which bound of the cache this thread last ran into.
    pub(crate) last_crossing: Crossing,
    /// Whether the last refill found objects in the shared store, and
    /// whether the last spill found room there for all it moved. While
    /// they hold, the next refill or spill takes the store's lock without
    /// first reading its hints (`Shared::looks_empty`, `looks_full`): in a
    /// producer/consumer pair the other thread has just written the line
    /// they are on, and reading it before the lock's write makes it cross
    /// between the cores twice (docs/PERFORMANCE.md, cross-thread).
    pub(crate) refill_found: bool,
    pub(crate) spill_fit: bool,
    /// This thread's sample of the bytes its releases held, until folded
    /// into the pool's calibration (`crate::engine::bytes`).
    pub(crate) tally: Tally,
}

/// A bound of the thread cache that an acquire or a release ran into.
///
/// The batch a thread exchanges with the shared store depends on the bound
/// it crossed last. A thread that uses the pool evenly crosses them in
/// turn, and moves half a cache each time, so that small swings around a
/// bound stay on the fast path. A thread that crosses the same bound twice
/// in a row is a producer or a consumer (it acquires objects that another
/// thread releases, or the reverse): it moves a whole cache, halving the
/// trips to the shared store's lock (docs/PERFORMANCE.md, cross-thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Crossing {
    /// Neither bound yet.
    None,
    /// An acquire found the cache empty (or out of date).
    Empty,
    /// A release found the cache full.
    Full,
}

impl Local {
    /// An empty cache within `bounds`, current at epoch `now`; with no room
    /// (`Bounds` of 0), for a closed slot (`Slot::closed`).
    pub(crate) const fn new(now: u64, bounds: Bounds) -> Self {
        Local {
            items: Vec::new(),
            bound: bounds.thread_capacity,
            capacity: bounds.capacity,
            epoch: now,
            last_crossing: Crossing::None,
            refill_found: false,
            spill_fit: false,
            tally: Tally::new(),
        }
    }

    /// Whether the cache has no room left in its buffer. Comparing with the
    /// vector's own capacity (never above `bound`) lets the compiler drop
    /// `push`'s growth check; the slow path grows the buffer up to `bound`.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.items.len() == self.items.capacity()
    }

    /// Grows the buffer towards `bound`, doubling (from four), with room for
    /// exactly that many objects so that its capacity never passes the
    /// bound. Returns whether there is room now; `false` if the cache is at
    /// its bound, or if memory for the larger buffer cannot be had.
    pub(crate) fn grow(&mut self) -> bool {
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
        // An allocator may hand out more than was asked for; the fast path
        // must not see room beyond the bound (`shrink_to` does nothing
        // when the capacity is within it).
        self.items.shrink_to(self.bound);
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
    pub(crate) fn missed(&mut self) -> usize {
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
    pub(crate) fn overflowed(&mut self) -> usize {
        let len = self.items.len();
        let spill = match self.last_crossing {
            Crossing::Full => len,
            Crossing::None | Crossing::Empty => len.div_ceil(2),
        };
        self.last_crossing = Crossing::Full;
        spill
    }
}
