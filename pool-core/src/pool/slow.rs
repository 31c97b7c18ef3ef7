//! A typed pool's slow paths without the type: a miss that makes an object
//! (or resets one taken from the store, in a pool that resets on acquire),
//! a release past the thread cache, a `retain` test. Compiled once in
//! pool-core; what each needs of `T` it is handed as one of the small
//! functions of `crate::pool::config` (`make`, `reset`, `retains`), made
//! for the pool's `T`, so a pooled type compiles its
//! fast paths and those functions only, not a copy of these paths
//! (docs/PERFORMANCE.md, "Compile cost of the derive").
//!
//! Invariant: every `Erased` here is an object of the pool whose core is
//! given, and every function handed with it, with its data (the pool's
//! `Create<T>` or `Retain<T>`), was made for that pool's `T` (the erasure
//! invariant, `crate::pool::state`).

use std::ptr::NonNull;

use crate::engine::cache::{RawCache, put_slow, take_slow};
use crate::engine::core::PoolCore;
use crate::engine::erased::Erased;
use crate::pool::config::{MakeFn, ResetFn, RetainFn};
use crate::sync::{AtomicU64, Ordering};

/// An acquire's miss: an object from the shared tiers, reset with `reset`
/// if the pool resets on acquire, or else a new one from `make` (with its
/// data, the pool's constructor), counted as created.
///
/// # Safety
///
/// `make` and `reset` are the pool's (the module's invariant).
#[cold]
#[inline(never)]
pub(crate) unsafe fn take(
    core: &PoolCore,
    cache: Option<&RawCache>,
    now: u64,
    reset: Option<ResetFn>,
    (make, create): (MakeFn, NonNull<()>),
) -> Erased {
    match take_slow(core, cache, now) {
        Some(value) => match reset {
            // SAFETY: the caller's promise.
            Some(reset) => unsafe { reset_counted(core, reset, value) },
            None => value,
        },
        // A new object is as the constructor made it: no reset.
        None => {
            // Counted once made: a constructor that panics made nothing.
            // SAFETY: the caller's promise.
            let value = unsafe { make(create) };
            match cache {
                Some(cache) => cache.created(),
                None => core.created(1),
            }
            value
        }
    }
}

/// Runs `reset` on `value`; if it panics, the unwind drops the object,
/// counted as discarded (a half-reset object is never reused).
///
/// # Safety
///
/// As for [`take`].
unsafe fn reset_counted(core: &PoolCore, reset: ResetFn, value: Erased) -> Erased {
    let held = Discard(Some(value), core);
    if let Some(value) = &held.0 {
        // SAFETY: the caller's promise; the object is this call's alone.
        unsafe { reset(value.as_ptr()) };
    }
    held.keep()
}

/// Whether a released object passes the pool's `retain` test (`retains`,
/// with its data): the object, or `None` once it is dropped, counted as
/// rejected. A test that panics drops it with the unwind, counted as
/// discarded, as a panicking `reset` does. No lock is held: the test and
/// the destructor are user code.
///
/// # Safety
///
/// `retains` is the pool's (the module's invariant).
#[inline(never)]
pub(crate) unsafe fn keep_if(
    core: &PoolCore,
    value: Erased,
    (retains, retain): (RetainFn, NonNull<()>),
) -> Option<Erased> {
    let held = Discard(Some(value), core);
    // SAFETY: the caller's promise; the object is this call's alone.
    let keep = held
        .0
        .as_ref()
        .is_some_and(|value| unsafe { retains(retain, value.as_ptr()) });
    let value = held.keep();
    if keep {
        return Some(value);
    }
    core.reject();
    core.shared.destroy(value);
    None
}

/// Counts and drops an object whose guard does not give it back: `Some`,
/// discarded; `None`, taken out of the pool for good (detached).
#[inline(never)]
pub(crate) fn abandon(core: &PoolCore, value: Option<Erased>) {
    match value {
        Some(value) => core.discard(value),
        None => core.detach(),
    }
}

/// A release the thread cache could not keep (full, gone or disabled): to
/// the shared store, or destroyed past its bound.
#[cold]
#[inline(never)]
pub(crate) fn put(core: &PoolCore, cache: Option<&RawCache>, value: Erased) {
    put_slow(core, cache, value);
}

/// An object in the hands of user code (a reset, a `retain` test):
/// counted as discarded and dropped if that code panics.
struct Discard<'a>(Option<Erased>, &'a PoolCore);

impl Discard<'_> {
    /// The object, once the user code has returned.
    fn keep(mut self) -> Erased {
        self.0.take().expect("taken only here")
    }
}

impl Drop for Discard<'_> {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            self.1.discard(value);
        }
    }
}

/// Counts an object as discarded if dropped: forgotten once the user code
/// it guards has returned, so it costs nothing unless that code panics.
pub(super) struct DiscardOnUnwind<'a>(pub(super) &'a AtomicU64);

impl Drop for DiscardOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}
