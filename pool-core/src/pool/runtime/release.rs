//! The way back of a guard acquired through a thread's part: its
//! `release` and `abandon` ([`Home`]), which return the object through
//! the pool on whatever thread drops the guard, then give back the
//! guard's count on its part; and `Inner`'s `put`, the same return for an
//! object with no part's count (`Pool::put`, a counted guard, a generic
//! struct's guard).
//!
//! Invariant: `Part`'s count protocol (`part`): a release gives back its
//! guard's count exactly once, last, also when the reset, the `retain`
//! test or a destructor panics ([`GiveBack`]), and touches nothing of the
//! pool after it unless its addition closed the part. An object goes to
//! the part's cache only on the part's owner thread (`Part::own_cache`),
//! else to the calling thread's own part.

use std::ptr::NonNull;
use std::sync::Arc;

use super::part::{CLOSED, Inner, Part};
use crate::engine::erased::Boxed;
use crate::engine::slot::epoch;
use crate::pool::config::ResetOn;
use crate::pool::guard::{Abandoned, Home, Released};
use crate::pool::owned::ONE;
use crate::reset::Reset;
use crate::sync::Ordering;

/// The home of the guards acquired through a part of a pool that resets
/// its objects on `reset_on` and has a `retain` test if `retains`: both
/// fixed here, so that a release reads neither.
pub(super) fn home<T: Reset + Send + 'static>(reset_on: ResetOn, retains: bool) -> Home<T> {
    Home {
        release: match (reset_on, retains) {
            (ResetOn::Release, false) => part_release::<T, true, false>,
            (ResetOn::Release, true) => part_release::<T, true, true>,
            (ResetOn::Acquire, false) => part_release::<T, false, false>,
            (ResetOn::Acquire, true) => part_release::<T, false, true>,
        },
        abandon: part_abandon::<T>,
    }
}

/// Gives a guard's count back to its part when dropped, also when the
/// reset, the `retain` test or a destructor on the way panics; with the
/// part's pool, read once.
struct GiveBack<T: Reset + Send + 'static> {
    part: NonNull<Part<T>>,
    inner: NonNull<Inner<T>>,
}

impl<T: Reset + Send + 'static> GiveBack<T> {
    /// The count of the guard whose home is `home`, a part's.
    ///
    /// # Safety
    ///
    /// `home` is a part's, and the caller gives up the count of a guard
    /// acquired through it.
    unsafe fn new(home: NonNull<Home<T>>) -> Self {
        let part = home.cast::<Part<T>>();
        // SAFETY: the guard's count keeps the part alive; `inner` is never
        // written after the part is made.
        let inner = unsafe { (*part.as_ptr()).inner() };
        GiveBack { part, inner }
    }

    /// The part and its pool, alive until `self` drops.
    fn get(&self) -> (&Part<T>, &Inner<T>) {
        // SAFETY: the guard's count keeps the part's hold, and so the
        // pool, alive until `self` drops; other threads write only the
        // part's atomics.
        unsafe { (self.part.as_ref(), self.inner.as_ref()) }
    }
}

impl<T: Reset + Send + 'static> Drop for GiveBack<T> {
    fn drop(&mut self) {
        // SAFETY: the guard's part and count, given up by its home's call.
        unsafe { give_back(self.part, self.inner) };
    }
}

/// The `release` of a guard acquired through a thread's part ([`Home`]):
/// returns the object through the pool, on whatever thread this is, then
/// gives back the guard's count on the part. `RESET` is whether the pool
/// resets on release (its `reset_on`) and `RETAIN` whether it has a
/// `retain` test, both fixed when the part is made.
fn part_release<T: Reset + Send + 'static, const RESET: bool, const RETAIN: bool>(
    home: NonNull<Home<T>>,
    value: Released<T>,
) {
    // SAFETY: a part's guard, whose count its home's call gives up.
    let give_back = unsafe { GiveBack::new(home) };
    let (here, inner) = give_back.get();
    let reset_on = if RESET {
        ResetOn::Release
    } else {
        ResetOn::Acquire
    };
    if let Some(value) = inner.pool.prepare_as(value.0, reset_on, RETAIN) {
        let now = epoch().now();
        // The guard's own part, if this thread owns it (the common case:
        // released where it was acquired); else this thread's part.
        match here.own_cache() {
            Some(cache) => inner.pool.give(Some(cache), value, now),
            None => inner.give_here(value, now),
        }
    }
}

/// The `abandon` of a guard acquired through a thread's part ([`Home`]).
fn part_abandon<T: Reset + Send + 'static>(home: NonNull<Home<T>>, value: Abandoned<T>) {
    // SAFETY: a part's guard, whose count its home's call gives up.
    let give_back = unsafe { GiveBack::new(home) };
    give_back.get().1.pool.abandon(value);
}

/// Gives back a guard's count on the part it was acquired through, and the
/// part's count on the pool if that was the closed part's last guard
/// (`Part`'s invariant).
///
/// # Safety
///
/// `part` is a guard's part, `inner` its pool (read before: once the
/// addition is done the part may be gone), and the guard gives its count
/// up: nothing of the pool may be used by the caller after this call.
unsafe fn give_back<T: Reset + Send + 'static>(part: NonNull<Part<T>>, inner: NonNull<Inner<T>>) {
    // SAFETY: alive by the guard's count; `back` is only reached as an
    // atomic.
    let back = unsafe { &(*part.as_ptr()).back };
    if back.fetch_add(ONE, Ordering::AcqRel).wrapping_add(ONE) == CLOSED {
        // SAFETY: the part's count on the pool, which only this release
        // gives back.
        unsafe { let_go(inner) };
    }
}

/// Gives back a closed part's strong count on its pool: a call of its own,
/// so that a release keeps no stack for the `Arc`'s drop.
///
/// # Safety
///
/// The caller gives back the part's count (`Part`'s invariant); `inner`
/// has `Arc::as_ptr`'s provenance.
#[cold]
#[inline(never)]
unsafe fn let_go<T: Reset + Send + 'static>(inner: NonNull<Inner<T>>) {
    // SAFETY: the caller's promise.
    unsafe {
        (*inner.as_ptr()).owners.leave();
        Arc::decrement_strong_count(inner.as_ptr().cast_const());
    }
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// [`Pool::put`](crate::Pool::put), knowing where the caches are; also
    /// the release of a guard that holds no part (`handle`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn put(&self, value: Boxed<T>) {
        if let Some(value) = self.pool.prepare(value) {
            self.give_here(value, epoch().now());
        }
    }

    /// Returns a prepared `value` through the calling thread's cache: a
    /// release on a thread other than its part's owner (a call of its
    /// own, so that the owner's release keeps nothing for it).
    #[inline(never)]
    fn give_here(&self, value: Boxed<T>, now: u64) {
        self.pool.give(self.cache(), value, now);
    }
}
