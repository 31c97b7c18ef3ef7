//! The per-thread cache that sits in front of a pool's shared store.
//!
//! Each pool declared with [`pool!`](crate::pool!) (or derived) has its own
//! `thread_local!` holding a [`LocalCache`]: a stack of idle objects that
//! only its thread touches, so the hot path takes no lock and performs no
//! atomic read-modify-write.
//!
//! The cache is a `RefCell`, borrowed only for a few moves of pointers and
//! never while user code (a constructor, `reset`, a destructor) runs. A
//! user's `reset` or `Drop` may itself acquire or release objects of the same
//! pool (a tree of pooled nodes, say); because no borrow is held at that
//! moment, those calls find the cache free. Should a borrow ever fail, the
//! pool falls back to its shared store rather than panic.

use std::cell::RefCell;

use crate::epoch;
use crate::pool::{Boxed, Pool};
use crate::reset::Reset;
use crate::stats::{ThreadHandle, bump};

/// A thread's cache of idle objects for one pool.
///
/// Only [`pool!`](crate::pool!) and the derive create these, as the lazily
/// initialized value of a `thread_local!`; it has no public methods.
#[doc(hidden)]
pub struct LocalCache<T: Reset + Send + 'static> {
    pub(crate) cell: RefCell<Local<T>>,
}

pub(crate) struct Local<T: Reset + Send + 'static> {
    /// Idle objects; the most recently released on top. Allocated once with
    /// room for exactly `thread_capacity` objects and never grown, so its
    /// capacity is the bound the fast path checks.
    pub(crate) items: Vec<Boxed<T>>,
    /// The epoch `items` were released in.
    pub(crate) epoch: u64,
    /// Which bound of the cache this thread last ran into.
    pub(crate) last_crossing: Crossing,
    pub(crate) pool: &'static Pool<T>,
    /// This thread's hot-path counters, registered with the pool.
    pub(crate) counters: ThreadHandle,
}

impl<T: Reset + Send + 'static> LocalCache<T> {
    /// The cache of the calling thread for `pool`, registered with the pool.
    ///
    /// Runs once per thread, on the thread's first use of the pool (it is the
    /// `thread_local!`'s initializer), so the fast paths never have to ask
    /// whether the cache is set up.
    pub fn new(pool: &'static Pool<T>) -> Self {
        LocalCache {
            cell: RefCell::new(Local {
                items: Vec::with_capacity(pool.thread_capacity()),
                epoch: epoch::epoch().now(),
                last_crossing: Crossing::None,
                pool,
                counters: pool.join_thread(),
            }),
        }
    }

    /// The fast path of an acquire: pops an object if the cache is current
    /// and not empty.
    #[inline(always)]
    pub(crate) fn pop(&self, now: u64) -> Option<Boxed<T>> {
        let mut local = self.cell.try_borrow_mut().ok()?;
        if local.epoch != now {
            return None;
        }
        let value = local.items.pop()?;
        bump(&local.counters.hits_local);
        Some(value)
    }

    /// The fast path of a release: pushes `value` if the cache is current
    /// and has room; otherwise hands it back.
    #[inline(always)]
    pub(crate) fn push(&self, value: Boxed<T>, now: u64) -> Result<(), Boxed<T>> {
        let Ok(mut local) = self.cell.try_borrow_mut() else {
            return Err(value);
        };
        if local.epoch != now || local.is_full() {
            return Err(value);
        }
        local.items.push(value);
        bump(&local.counters.returned);
        Ok(())
    }
}

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
pub(crate) enum Crossing {
    /// Neither bound yet.
    None,
    /// An acquire found the cache empty (or out of date).
    Empty,
    /// A release found the cache full.
    Full,
}

impl<T: Reset + Send + 'static> Local<T> {
    /// Whether the cache holds `thread_capacity` objects. Comparing with the
    /// vector's own capacity (allocated as exactly `thread_capacity`) lets the
    /// compiler drop `push`'s growth check.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.items.len() == self.items.capacity()
    }

    /// Records an acquire that missed the cache, and returns how many
    /// objects to refill it with: half a cache, or all the room there is
    /// if the last miss was also an acquire's.
    pub(crate) fn missed(&mut self) -> usize {
        let room = self.items.capacity() - self.items.len();
        let batch = match self.last_crossing {
            Crossing::Empty => room,
            Crossing::None | Crossing::Full => room.min(self.items.capacity() / 2),
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

impl<T: Reset + Send + 'static> Drop for LocalCache<T> {
    /// The thread is exiting: its idle objects go to the shared store, so
    /// that another thread can use them (or rotation can reclaim them).
    fn drop(&mut self) {
        let local = self.cell.get_mut();
        local.pool.retire(local);
    }
}

impl<T: Reset + Send + 'static> std::fmt::Debug for LocalCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cell.try_borrow() {
            Ok(local) => f
                .debug_struct("LocalCache")
                .field("idle", &local.items.len())
                .field("epoch", &local.epoch)
                .field("last_crossing", &local.last_crossing)
                .finish(),
            Err(_) => f.write_str("LocalCache { <in use> }"),
        }
    }
}
