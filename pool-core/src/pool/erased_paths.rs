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
use crate::engine::cache::{RawCache, take_shared};
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
    // SAFETY: forgotten below; an unwind leaves `value` to it.
    let on_unwind = unsafe { DiscardOnUnwind::new(core, &value, false) };
    // SAFETY: the caller's promise; the object is this call's alone.
    let kept = unsafe {
        if let Some(reset) = reset {
            reset(value.as_ptr());
        }
        shrink(value.as_ptr(), budget)
    };
    std::mem::forget(on_unwind);
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
    // SAFETY: forgotten below; an unwind leaves `value` to it.
    let on_unwind = unsafe { DiscardOnUnwind::new(core, &value, false) };
    // SAFETY: the caller's promise; the object is this call's alone.
    let keep = unsafe { retains(retain, value.as_ptr()) };
    std::mem::forget(on_unwind);
    if keep {
        return Some(value);
    }
    core.reject();
    core.shared.destroy(value, false);
    None
}

/// An erased object lent to user code (its `heap_bytes`, a reset, a
/// shrink, a `retain` test):
/// discarded, counted, if dropped, as the unwind of a panic in that code
/// drops it (`idle`: its bytes are still counted idle); forgotten once the
/// code has returned, so it costs nothing unless that code panics.
pub(super) struct DiscardOnUnwind<'a> {
    core: &'a PoolCore,
    value: NonNull<u8>,
    idle: bool,
}

impl<'a> DiscardOnUnwind<'a> {
    /// The guard of `value`, of the pool whose core is `core`.
    ///
    /// # Safety
    ///
    /// The guard is forgotten unless a panic unwinds through it, and then
    /// nothing uses `value` after it.
    #[inline]
    pub(super) unsafe fn new(core: &'a PoolCore, value: &Erased, idle: bool) -> Self {
        DiscardOnUnwind {
            core,
            value: value.as_ptr(),
            idle,
        }
    }
}

impl Drop for DiscardOnUnwind<'_> {
    fn drop(&mut self) {
        // SAFETY: the object the guard was made for, which the code that
        // panicked held and nothing uses after the unwind.
        let value = unsafe { Erased::from_ptr(self.value) };
        self.core.discard(value, self.idle);
    }
}
