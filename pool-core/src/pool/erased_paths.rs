//! A typed pool's paths past its fast paths, erased (compiled once, not
//! per pooled type): an acquire's miss, and a released object's shrink
//! past the pool's bound in bytes and its `retain` test (which `keep`, in
//! `crate::pool`, calls).
//!
//! Invariant: as the erasure invariant of `crate::pool`: every object here
//! is of the pool whose core is given, and every function handed with it
//! is that pool's `T`'s.

use std::ptr::NonNull;

use crate::engine::bytes::COLD_CAP;
use crate::engine::cache::{Held, RawCache, take_shared};
use crate::engine::core::PoolCore;
use crate::engine::erased::Erased;
use crate::pool::config::{ByteBounds, MakeFn, ResetFn, RetainFn, ShrinkFn};

/// An acquire's miss, erased: an object from the shared tiers (`Ok`, its
/// bytes still counted idle and not reset: the caller's `taken` does
/// both), or else a new one from `make` (with its data, the pool's
/// constructor), counted as created (`Err`).
///
/// # Safety
///
/// `make` is the pool's (the module's invariant).
#[cold]
#[inline(never)]
pub(super) unsafe fn take_missed(
    core: &PoolCore,
    cache: Option<&RawCache>,
    now: u64,
    (make, create): (MakeFn, NonNull<()>),
) -> Result<Erased, Erased> {
    match take_shared(core, cache, now) {
        Some(value) => Ok(value),
        // A new object is as the constructor made it: no reset.
        None => {
            // Counted once made: a constructor that panics made nothing.
            // SAFETY: the caller's promise.
            let value = unsafe { make(create) };
            match cache {
                Some(cache) => cache.created(),
                None => core.created(1),
            }
            Err(value)
        }
    }
}

/// A released object that holds `bytes`, over its pool's bound, erased
/// (compiled once, not per pooled type): reset with `reset` if the pool
/// resets on acquire, then shrunk with `shrink` to `max_bytes`, the learned
/// usual size, or the cold cap; kept if then within the bound (counted as
/// shrunk), else dropped (counted as oversize). Its bytes feed the
/// calibration, every one. A reset or a shrink that panics discards it.
///
/// # Safety
///
/// `value` is an object of the pool whose core is `core` and whose bounds
/// are `bounds`; `reset` and `shrink` are that pool's `T`'s (the module's
/// invariant).
#[cold]
#[inline(never)]
pub(super) unsafe fn over_bound(
    core: &PoolCore,
    bounds: ByteBounds,
    value: Erased,
    bytes: usize,
    reset: Option<ResetFn>,
    shrink: ShrinkFn,
) -> Option<(Erased, usize)> {
    if bounds.learns() {
        core.calibration.record(bytes);
    }
    let budget = match bounds.max {
        Some(max) => max,
        None if bounds.calibrate => core.calibration.usual(),
        None => COLD_CAP,
    };
    let held = Held(Some(value), core, false);
    let kept = held.0.as_ref().map_or(0, |value| {
        // SAFETY: the caller's promise; the object is this call's alone.
        unsafe {
            if let Some(reset) = reset {
                reset(value.as_ptr());
            }
            shrink(value.as_ptr(), budget)
        }
    });
    let value = held.into_inner().expect("held until here");
    if kept <= bounds.bound(core) {
        core.count_shrunk();
        return Some((value, kept));
    }
    core.count_oversize();
    core.shared.destroy(value, false);
    None
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
pub(super) unsafe fn keep_if(
    core: &PoolCore,
    value: Erased,
    (retains, retain): (RetainFn, NonNull<()>),
) -> Option<Erased> {
    let held = Held(Some(value), core, false);
    // SAFETY: the caller's promise; the object is this call's alone.
    let keep = held
        .0
        .as_ref()
        .is_some_and(|value| unsafe { retains(retain, value.as_ptr()) });
    let value = held.into_inner().expect("held until here");
    if keep {
        return Some(value);
    }
    core.reject();
    core.shared.destroy(value, false);
    None
}
