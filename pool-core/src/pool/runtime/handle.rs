//! [`PoolHandle`], a run-time pool's handle, and the home of the guards
//! that hold a strong count on the pool's allocation.
//!
//! Invariant: the allocation lives while a handle, a guard, or a rotation
//! visiting it does (the module docs of `crate::pool::runtime`). Handles
//! count themselves in `handles`: the last one to go closes every part
//! (`close`), after which only guards keep the allocation alive. A guard
//! acquired on a thread with no part holds a strong count of its own,
//! given back by [`release_counted`] or [`abandon_counted`]. The
//! allocation's drop, the protocol's last step, is here too.

use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

use super::part::{CLOSED, Inner, Lent};
use crate::engine::registry::Rotate;
use crate::engine::stats::Stats;
use crate::pool::Pool;
use crate::pool::guard::{Abandoned, Home, Pooled, Released};
use crate::pool::owned::HELD;
use crate::pool::state::StateRef;
use crate::reset::Reset;
use crate::sync::{Ordering, lock};

/// A pool made at run time with [`Pool::builder`]: a handle to it.
///
/// Cloning a handle is cheap (a reference count) and every clone is the
/// same pool, with one set of statistics; `PoolHandle` is `Send` and
/// `Sync`, so clones go to other threads or into shared state. The pool
/// has the tiers, bounds, reset, rotation and panic behaviour of a static
/// pool (see the [crate docs](crate#which-kind-of-pool) for when to use
/// which) and hands out the same [`Pooled<T>`] guard, so code that takes a
/// `Pooled<T>` works with both.
///
/// A guard keeps its pool alive, even past the last handle. When the last
/// handle and the last guard are gone, every idle object is dropped,
/// including those cached by threads that are still running, and
/// [`rotate`](crate::rotate) and [`pools`](crate::pools) forget the pool.
///
/// ```
/// use pool_core::{Pool, Pooled};
///
/// let pool = Pool::builder(|| Vec::<u8>::with_capacity(1024)).build();
///
/// fn fill(mut buf: Pooled<Vec<u8>>) -> usize {
///     buf.extend_from_slice(b"request");
///     buf.len()
/// }
///
/// let worker = {
///     let pool = pool.clone();
///     std::thread::spawn(move || fill(pool.acquire()))
/// };
/// assert_eq!(worker.join().unwrap(), 7);
/// assert_eq!(fill(pool.acquire()), 7);
/// assert_eq!(pool.stats().acquired(), 2);
/// ```
pub struct PoolHandle<T: Reset + Send + 'static> {
    inner: Arc<Inner<T>>,
}

impl<T: Reset + Send + 'static> PoolHandle<T> {
    /// The first handle of a pool just made.
    pub(super) fn new(inner: Arc<Inner<T>>) -> Self {
        PoolHandle { inner }
    }

    /// Takes an idle object, or makes one: [`Pool::acquire`], reached
    /// directly where the handle is at hand.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).build();
    /// let mut s = pool.acquire();
    /// s.push_str("hello");
    /// drop(s);
    /// assert!(pool.acquire().is_empty()); // reset on return
    /// ```
    #[inline]
    pub fn acquire(&self) -> Pooled<T> {
        self.inner.pool.acquire_owned(&self.inner.erased)
    }
}

impl<T: Reset + Send + 'static> Deref for PoolHandle<T> {
    type Target = Pool<T>;

    /// The pool: every [`Pool`] method, [`acquire`](Pool::acquire) first,
    /// is called through the handle, and `&handle` is a `&Pool<T>` where
    /// one is expected.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deref(&self) -> &Pool<T> {
        &self.inner.pool
    }
}

impl<T: Reset + Send + 'static> Clone for PoolHandle<T> {
    fn clone(&self) -> Self {
        self.inner.handles.fetch_add(1, Ordering::Relaxed);
        PoolHandle {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.inner.pool.config;
        f.debug_struct("PoolHandle")
            .field("name", &self.inner.state.name())
            .field("capacity", &config.capacity)
            .field("thread_capacity", &config.thread_capacity)
            .field("stats", &self.inner.state.stats())
            .finish()
    }
}
impl<T: Reset + Send + 'static> Drop for PoolHandle<T> {
    fn drop(&mut self) {
        if self.inner.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.inner.close(Arc::as_ptr(&self.inner));
        }
        self.inner.owners.leave();
    }
}

impl<T: Reset + Send + 'static> Rotate for Inner<T> {
    fn leave(&self) {
        self.owners.leave();
    }

    fn rotate_to(&self, now: u64) {
        self.state.rotate_to(now);
    }

    fn name(&self) -> &'static str {
        self.state.name()
    }

    fn stats(&self) -> Stats {
        self.state.stats()
    }
}

/// Gives back a counted guard's strong count when dropped, also when the
/// reset, the `retain` test or a destructor on the way panics.
struct Counted<T: Reset + Send + 'static>(NonNull<Inner<T>>);

impl<T: Reset + Send + 'static> Drop for Counted<T> {
    fn drop(&mut self) {
        let inner = self.0.as_ptr().cast_const();
        // SAFETY: the guard's count keeps the allocation alive up to here,
        // and the pointer has `Arc::as_ptr`'s provenance (the home is the
        // allocation's first byte, `Inner::acquire_counted`); nothing
        // uses the pool after the count is given back.
        unsafe {
            (*inner).owners.leave();
            Arc::decrement_strong_count(inner);
        }
    }
}

/// The `release` of a guard taken without a part ([`Home`]): returns the
/// object through the pool, then gives back the guard's strong count.
pub(super) fn release_counted<T: Reset + Send + 'static>(
    home: NonNull<Home<T>>,
    value: Released<T>,
) {
    let inner = home.cast::<Inner<T>>();
    let _counted = Counted(inner);
    // SAFETY: alive by the guard's count until `_counted` drops; the home
    // is the first field of the `Inner`'s first field (both `repr(C)`).
    unsafe { inner.as_ref() }.put(value.0);
}

/// The `abandon` of a guard taken without a part ([`Home`]).
pub(super) fn abandon_counted<T: Reset + Send + 'static>(
    home: NonNull<Home<T>>,
    value: Abandoned<T>,
) {
    let inner = home.cast::<Inner<T>>();
    let _counted = Counted(inner);
    // SAFETY: as in `release_counted`.
    unsafe { inner.as_ref() }.pool.abandon(value);
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// The last handle is gone: closes every part, and gives back the
    /// count of each that has no guard out (`Part`'s invariant). `this` is
    /// the pool, from `Arc::as_ptr`; the caller's handle still holds it.
    pub(super) fn close(&self, this: *const Inner<T>) {
        let parts = lock(&self.parts);
        for part in &parts.all {
            let part = part.0;
            // SAFETY: a part of this pool, alive as long as the pool; only
            // its atomics are reached, as its owner may be using the rest.
            let (lent, back) = unsafe { (&(*part.as_ptr()).head.lent, &(*part.as_ptr()).back) };
            // No acquire follows: the handles' count ordered every one
            // before this `close`, and this is the last handle.
            let lent = lent.get();
            if lent & HELD == 0 {
                continue; // lent nothing, holds nothing
            }
            let closing = CLOSED.wrapping_sub(lent - HELD);
            if back
                .fetch_add(closing, Ordering::AcqRel)
                .wrapping_add(closing)
                == CLOSED
            {
                self.owners.leave();
                // SAFETY: the part's count, given back once (only this
                // addition made `back` `CLOSED`: every guard was back);
                // not the last count, as the caller's handle holds one.
                unsafe { Arc::decrement_strong_count(this) };
            }
        }
    }
}

impl<T: Reset + Send + 'static> Drop for Inner<T> {
    fn drop(&mut self) {
        self.owners.last();
        // The caches dropped here hand their objects to the state through
        // the pointer they were made with. While the allocation is dropped,
        // `self` is the only way in (a `&mut` that Stacked Borrows
        // protects), so point them at the state through `self` first.
        let state = NonNull::from(&self.state);
        let parts = std::mem::take(&mut lock(&self.parts).all);
        for Lent(part) in parts {
            // SAFETY: made by `Box::into_raw` (`lookup`), freed only here;
            // every thread's use of the pool is over.
            let mut part = unsafe { Box::from_raw(part.as_ptr()) };
            // SAFETY: `state` is a field of this allocation, dropped after
            // the parts, and was made by `with_owner`.
            part.cache_mut()
                .set_core(unsafe { StateRef::from_owned(state) }.core());
        }
    }
}
