//! The registry of every pool the process has used, which rotation
//! (`crate::engine::rotation`) ages and [`pools`] lists.
//!
//! Rust has no garbage collector whose cycles could age a pool, so this
//! module supplies the clock: one process-wide epoch counter. Each call to
//! [`rotate`] advances it and ages every pool that holds shared idle
//! objects: primary objects become victims, victims are dropped (the
//! [crate docs](crate#how-rotation-bounds-memory) draw it).
//!
//! Each rotation also ages the per-thread caches of threads that are
//! between operations on the pool, through the handshake in `crate::engine::slot`
//! (no atomic read-modify-write on the owner's fast path): one epoch
//! behind, a cache's objects join the shared victim tier; two or more, they
//! are dropped. A thread in the middle of an operation, or any thread on a
//! platform with no process-wide barrier, ages its cache itself on its next
//! operation, and a thread's exit hands its cache to the shared store.
//!
//! The invariant, as in crossbeam's epochs: an object that has been idle
//! across two advancements is not held by any shared tier, and is not handed
//! out by any thread cache.

use std::sync::{Arc, Weak};

use crate::engine::fork::{ForkHold, excluded};
use crate::engine::stats::Stats;
use crate::sync::{AtomicBool, Mutex, Ordering, global, lock};

/// A pool as the registry knows it: what `rotate` ages and [`pools`]
/// lists.
pub(crate) trait Rotate: Send + Sync {
    /// Ages the shared tiers and the idle threads' caches to epoch `now`,
    /// dropping what expires; whether it dropped any object (for the
    /// allocator trim).
    fn rotate_to(&self, now: u64) -> bool;

    /// The pool's name (see [`PoolInfo::name`]).
    fn name(&self) -> &'static str;

    /// A snapshot of the pool's counters.
    fn stats(&self) -> Stats;

    /// A visit of a run-time pool is over (see `sync::Owners`).
    fn leave(&self) {}

    /// Takes the locks that the pool's acquire and release paths take, in
    /// their order, into `held`, which keeps them across a fork
    /// (`crate::engine::fork`).
    fn hold_for_fork(&self, held: &mut ForkHold);
}

/// A pool in the registry.
#[derive(Clone)]
pub(crate) enum Entry {
    /// A pool declared with `pool!`: its state, a static.
    Static(&'static dyn Rotate),
    /// A pool made at run time: its allocation, which the registry does not
    /// keep alive. Once every handle and guard is gone, `rotate` drops the
    /// entry.
    Runtime(Weak<dyn Rotate>),
}

/// A pool the registry holds, for the length of one visit.
#[derive(Clone)]
pub(crate) enum Visited {
    Static(&'static dyn Rotate),
    Runtime(Arc<dyn Rotate>),
}

impl Entry {
    /// The pool, unless it was a run-time pool and is gone.
    pub(crate) fn visit(&self) -> Option<Visited> {
        match self {
            Entry::Static(pool) => Some(Visited::Static(*pool)),
            Entry::Runtime(pool) => pool.upgrade().map(Visited::Runtime),
        }
    }

    fn is_gone(&self) -> bool {
        matches!(self, Entry::Runtime(pool) if pool.strong_count() == 0)
    }
}

impl Drop for Visited {
    fn drop(&mut self) {
        if let Visited::Runtime(pool) = self {
            pool.leave();
        }
    }
}

impl std::ops::Deref for Visited {
    type Target = dyn Rotate;

    fn deref(&self) -> &(dyn Rotate + 'static) {
        match self {
            Visited::Static(pool) => *pool,
            Visited::Runtime(pool) => &**pool,
        }
    }
}

global! {
    /// Every pool a thread has used.
    static POOLS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
}

global! {
    /// The run-time pools a fork's prepare handler visited, kept alive
    /// until the next rotation (or registration) drops them outside any
    /// handler and lock: the last count on one would run its destructors
    /// inside the handler. Locked only with [`POOLS`] held, so that no
    /// other thread holds it at a fork.
    static DEFERRED: Mutex<Vec<Visited>> = Mutex::new(Vec::new());
}

/// What a fork holds of the pools (`crate::engine::fork`): the registry,
/// then each live pool's locks, in the order of `rotate_to` (the registry
/// is never taken under a pool's lock). A run-time pool is kept alive
/// across the fork by its visit, deferred afterwards ([`DEFERRED`]).
pub(crate) fn hold_for_fork(held: &mut ForkHold) {
    let pools = lock(&POOLS);
    let visits: Vec<Visited> = pools.iter().filter_map(Entry::visit).collect();
    // SAFETY: `POOLS` is a static.
    unsafe { held.keep(pools) };
    for visit in &visits {
        visit.hold_for_fork(held);
    }
    // Kept last, so released first, while `POOLS` is still held: its
    // pools outlive the locks held above, and `DEFERRED` is free.
    // SAFETY: owns what it holds.
    unsafe { held.keep(Deferred(visits)) };
}

/// The visits of a fork's prepare handler, handed to [`DEFERRED`] when
/// the fork is done.
struct Deferred(Vec<Visited>);

impl Drop for Deferred {
    fn drop(&mut self) {
        lock(&DEFERRED).append(&mut self.0);
        FORKED.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// Whether a fork may have left pools in [`DEFERRED`]: so that a rotation
/// takes its lock only after a fork. std's atomic, not the facade's (as in
/// `crate::engine::fork`): loom cannot fork, and its models need not
/// explore a lock that only a fork fills.
static FORKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Adds `pool` to the set that [`rotate`] ages, once: `registered` is the
/// pool's flag, set under the registry's lock after the pool is in the list,
/// so a thread that sees it set knows every later rotation sees the pool.
/// Whether this call added it.
pub(crate) fn register(pool: Entry, registered: &AtomicBool) -> bool {
    let _fork = excluded();
    let mut pools = lock(&POOLS);
    if registered.load(Ordering::Relaxed) {
        return false;
    }
    // Run-time pools come and go: forget the gone ones here too, so a
    // program that makes pools and never rotates keeps a short list.
    pools.retain(|entry| !entry.is_gone());
    pools.push(pool);
    registered.store(true, Ordering::Release);
    true
}

/// Every registered pool, copied, so that no lock is held while the caller
/// visits them (a destructor may itself touch a pool, or rotate).
pub(crate) fn entries() -> Vec<Entry> {
    // The pools that forks kept alive ([`DEFERRED`]), dropped with no lock
    // held: their destructors are user code. The flag is cleared before the
    // list is taken: a fork's pools appended after it set it again, for the
    // next rotation.
    if FORKED.swap(false, std::sync::atomic::Ordering::Acquire) {
        let deferred = {
            let _fork = excluded();
            let _pools = lock(&POOLS);
            std::mem::take(&mut *lock(&DEFERRED))
        };
        drop(deferred);
    }
    let _fork = excluded();
    lock(&POOLS).clone()
}

/// Forgets the run-time pools that are gone.
pub(crate) fn forget_gone() {
    let _fork = excluded();
    lock(&POOLS).retain(|entry| !entry.is_gone());
}

#[cfg(feature = "metrics")]
global! {
    /// The pools of each name that have ended, their counters added up
    /// (`idle` zero: an ended pool holds nothing), so that a name's
    /// published counters do not fall when one of its pools goes.
    static RETIRED: Mutex<Vec<(&'static str, Stats)>> = Mutex::new(Vec::new());
}

/// A registered pool has ended (a run-time pool's core is dropped): keeps
/// its final counters under its name.
#[cfg(feature = "metrics")]
pub(crate) fn retire(name: &'static str, mut stats: Stats) {
    stats.idle = 0;
    let _fork = excluded();
    crate::engine::stats::add_named(&mut lock(&RETIRED), name, stats);
}

/// The counters of every ended pool, by name (see [`retire`]).
#[cfg(feature = "metrics")]
pub(crate) fn retired() -> Vec<(&'static str, Stats)> {
    let _fork = excluded();
    lock(&RETIRED).clone()
}

/// Every pool the process has used, in the order each was first used: for
/// metrics and health endpoints, with no list of pools to keep by hand.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static LINES: Pool<String> = Pool::new(String::new); }
///
/// drop(LINES.acquire());
/// let lines = pool_core::pools().into_iter().find(|p| p.name() == "LINES").unwrap();
/// assert_eq!(lines.stats().created, 1);
/// ```
pub fn pools() -> Vec<PoolInfo> {
    let entries = entries();
    entries
        .iter()
        .filter_map(Entry::visit)
        .map(|pool| PoolInfo { pool })
        .collect()
}

/// One pool of [`pools`]: its name and its statistics. It keeps a pool
/// made at run time alive (as a handle would) until it is dropped.
#[derive(Clone)]
pub struct PoolInfo {
    pool: Visited,
}

impl PoolInfo {
    /// The pool's name: the type's name for a derived pool (`Request`), the
    /// static's name for one declared with [`pool!`](crate::pool!)
    /// (`BUFFERS`).
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use pool_core::Poolable;
    ///
    /// #[derive(Poolable, Default)]
    /// struct Request {
    ///     path: String,
    /// }
    ///
    /// drop(Request::acquire());
    /// assert!(pool_core::pools().iter().any(|p| p.name() == "Request"));
    /// # }
    /// ```
    pub fn name(&self) -> &'static str {
        self.pool.name()
    }

    /// A snapshot of the pool's counters, as [`Pool::stats`](crate::Pool::stats)
    /// gives it.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
    ///
    /// drop(IDS.acquire());
    /// for pool in pool_core::pools() {
    ///     let stats = pool.stats();
    ///     println!("{}: {} idle, {} created", pool.name(), stats.idle, stats.created);
    /// }
    /// ```
    pub fn stats(&self) -> Stats {
        self.pool.stats()
    }
}

impl std::fmt::Debug for PoolInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolInfo")
            .field("name", &self.name())
            .field("stats", &self.stats())
            .finish()
    }
}
