//! Each thread's own list of its parts of the run-time pools, keyed by the
//! pool's id, and what the thread's exit does with them: the storage a
//! `thread_local!` gives a static pool, for pools made at run time.
//!
//! Invariant: a part in a thread's list is used by that thread alone, for
//! as long as its pool lives and the list does. The list's destructor, at
//! the thread's exit, first turns the thread's memo off (`crate::pool::owned`), so that
//! no later operation on the thread reaches a part, and then hands each
//! part whose pool is still alive back to it ([`Exit::exit`]): the pool
//! retires the part's cache into its shared store, as a static pool's
//! thread-local does, and keeps the part for the next thread that needs
//! one. Neither the lookup nor the exit needs a thread id, so both work
//! in any order of the thread-local destructors; once the list is gone,
//! the thread's operations go without a part.
//!
//! A pool dropped before the thread leaves a dead entry (its `Weak`
//! upgrades to nothing, and the pool has freed the part), which the
//! thread's next insertion clears when the list has doubled since the last
//! clearing. So a thread's list costs one entry per live pool it used,
//! whatever other threads exist.
//!
//! Under loom a model thread's locals are dropped outside its execution,
//! where no modelled lock may be taken: a model ends each thread by taking
//! its list out of [`PARTS`] and calling [`Parts::exit`], which is what
//! the destructor does.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crate::pool::owned;

/// A run-time pool, as a thread's list knows it: what to do with the
/// thread's part of it when the thread exits.
pub(super) trait Exit: Send + Sync {
    /// The thread that owns `part`, this pool's, is exiting: take the
    /// part back. Called with a strong count on the pool, given back here.
    fn exit(self: Arc<Self>, part: NonNull<()>);
}

/// A thread's part of one pool.
struct Entry {
    pool: Weak<dyn Exit>,
    part: NonNull<()>,
}

/// The calling thread's parts, by pool id.
pub(crate) struct Parts {
    by_pool: HashMap<u64, Entry, BuildHasherDefault<IdHasher>>,
    /// The length at which the next insertion clears dead entries.
    clear_at: usize,
}

/// The fewest entries a list clears its dead ones at.
const CLEAR_AT_LEAST: usize = 8;

crate::sync::thread_local! {
    /// The calling thread's parts.
    pub(crate) static PARTS: RefCell<Parts> = RefCell::new(Parts::default());
}

/// The calling thread's part of the pool `id`: the one listed, or the one
/// `take` hands it (the pool and its part), then listed. `None` once the
/// thread is destroying its list.
///
/// `take` may lock the pool's own locks, but must not use a run-time pool.
pub(super) fn part(
    id: u64,
    take: impl FnOnce() -> (Weak<dyn Exit>, NonNull<()>),
) -> Option<NonNull<()>> {
    PARTS
        .try_with(|parts| {
            if let Some(entry) = parts.borrow().by_pool.get(&id) {
                return entry.part;
            }
            let (pool, part) = take();
            parts.borrow_mut().insert(id, Entry { pool, part });
            part
        })
        .ok()
}

impl Default for Parts {
    fn default() -> Self {
        Parts {
            by_pool: HashMap::default(),
            clear_at: CLEAR_AT_LEAST,
        }
    }
}

impl Parts {
    fn insert(&mut self, id: u64, entry: Entry) {
        if self.by_pool.len() >= self.clear_at {
            self.by_pool
                .retain(|_, entry| entry.pool.strong_count() > 0);
            self.clear_at = CLEAR_AT_LEAST.max(2 * self.by_pool.len());
        }
        self.by_pool.insert(id, entry);
    }

    /// Turns the thread's memo off, then hands every listed part back to
    /// its pool, if the pool lives: what the thread's exit does.
    pub(crate) fn exit(&mut self) {
        owned::off();
        for (_, entry) in self.by_pool.drain() {
            if let Some(pool) = entry.pool.upgrade() {
                pool.exit(entry.part);
            }
        }
    }
}

impl Drop for Parts {
    fn drop(&mut self) {
        self.exit();
    }
}

/// The hash of a pool id: ids are consecutive, and a multiplication by an
/// odd constant (Fibonacci hashing) spreads them over the table's bits
/// at a fraction of SipHash's cost.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 << 8 | u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
