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

use crate::pool::Pool;
use crate::reset::Reset;
use crate::stats::{ThreadHandle, bump};

/// The epoch of a cache that has not yet been tied to its pool. The global
/// epoch never reaches it, so the fast path's epoch comparison also sends a
/// thread's first use of a pool down the slow path, where it registers.
const UNREGISTERED: u64 = u64::MAX;

/// A thread's cache of idle objects for one pool.
///
/// Only [`pool!`](crate::pool!) and the derive create these, inside a
/// `thread_local!`; it has no public methods.
#[doc(hidden)]
pub struct LocalCache<T: Reset + Send + 'static> {
    pub(crate) cell: RefCell<Local<T>>,
}

pub(crate) struct Local<T: Reset + Send + 'static> {
    /// Idle objects; the most recently released on top.
    pub(crate) items: Vec<Box<T>>,
    /// The epoch `items` were released in.
    pub(crate) epoch: u64,
    /// Set when the cache registers with its pool, on first use.
    pub(crate) owner: Option<Owner<T>>,
}

pub(crate) struct Owner<T: Reset + Send + 'static> {
    pub(crate) pool: &'static Pool<T>,
    pub(crate) counters: ThreadHandle,
}

impl<T: Reset + Send + 'static> LocalCache<T> {
    /// An empty cache, not yet tied to a pool.
    #[allow(clippy::new_without_default)] // only ever built in a `const` initializer
    pub const fn new() -> Self {
        LocalCache {
            cell: RefCell::new(Local {
                items: Vec::new(),
                epoch: UNREGISTERED,
                owner: None,
            }),
        }
    }

    /// The fast path of an acquire: pops an object if the cache is current
    /// and not empty.
    #[inline]
    pub(crate) fn pop(&self, now: u64) -> Option<Box<T>> {
        let mut local = self.cell.try_borrow_mut().ok()?;
        if local.epoch != now {
            return None;
        }
        let value = local.items.pop()?;
        if let Some(owner) = &local.owner {
            bump(&owner.counters.hits_local);
        }
        Some(value)
    }

    /// The fast path of a release: pushes `value` if the cache is current
    /// and has room; otherwise hands it back.
    #[inline]
    pub(crate) fn push(&self, value: Box<T>, now: u64, capacity: usize) -> Result<(), Box<T>> {
        let Ok(mut local) = self.cell.try_borrow_mut() else {
            return Err(value);
        };
        if local.epoch != now || local.items.len() >= capacity {
            return Err(value);
        }
        local.items.push(value);
        if let Some(owner) = &local.owner {
            bump(&owner.counters.returned);
        }
        Ok(())
    }
}

impl<T: Reset + Send + 'static> Local<T> {
    pub(crate) fn is_registered(&self) -> bool {
        self.epoch != UNREGISTERED
    }
}

impl<T: Reset + Send + 'static> Drop for LocalCache<T> {
    /// The thread is exiting: its idle objects go to the shared store, so
    /// that another thread can use them (or rotation can reclaim them).
    fn drop(&mut self) {
        let local = self.cell.get_mut();
        if let Some(owner) = local.owner.take() {
            owner.pool.retire(local, &owner.counters);
        }
    }
}

impl<T: Reset + Send + 'static> std::fmt::Debug for LocalCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cell.try_borrow() {
            Ok(local) => f
                .debug_struct("LocalCache")
                .field("idle", &local.items.len())
                .field("epoch", &local.epoch)
                .finish(),
            Err(_) => f.write_str("LocalCache { <in use> }"),
        }
    }
}
