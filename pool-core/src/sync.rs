//! The synchronisation primitives the pool is built on, swapped for `loom`'s
//! model-checked versions under `cfg(loom)`.
//!
//! Every atomic and lock in the concurrent core comes through this module, so
//! the loom models (`crate::tests::loom_*`) explore exactly the code that
//! ships.

#[cfg(loom)]
pub(crate) use loom::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};

#[cfg(not(loom))]
pub(crate) use std::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};

/// Locks `mutex`, ignoring poison.
///
/// The pool never runs user code (constructors, `reset`, destructors) while
/// it holds one of its locks, so a critical section can only be interrupted
/// by a panic outside user code (an allocation failure inside `Vec::push`,
/// say), which leaves the guarded vectors valid. Poison therefore carries no
/// information here, and refusing to serve after it would turn one failed
/// allocation into a pool that is dead for the rest of the process.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}
