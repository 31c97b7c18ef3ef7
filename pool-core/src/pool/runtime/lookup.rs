//! How a run-time pool's `Pool` reaches the calling thread's part past the
//! memo (`Inner::part`): the thread's list of its parts
//! (`thread`), which takes a part from the pool the first time, one an
//! exited thread left or a new one; what the pool does with a part when
//! its thread exits ([`Exit`]); and the `put` and `clear` of the pool's
//! `crate::pool::Owned` (its `acquire`, past the memo, is `part`'s).
//!
//! Invariant: a part the lookup returns is the calling thread's own, and
//! lives as long as the pool (`part`'s invariant): the memo and the list
//! give only parts this thread took, and a part is handed back, its cache
//! retired, only by its thread's exit, once the memo is off.

use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use super::part::{Inner, Lent, Part, Parts};
use super::release;
use super::thread::{self, Exit};
use crate::engine::erased::Boxed;
use crate::pool::owned;
use crate::reset::Reset;
use crate::sync::{Ordering, lock};

impl<T: Reset + Send + 'static> Inner<T> {
    /// A part for a thread that has none: one an exited thread handed
    /// back, with a new cache, or a new one; with the pool, for the
    /// thread's list. `this` is the pool, with `Arc::as_ptr`'s provenance.
    fn take_part(&self, this: NonNull<Inner<T>>) -> (Weak<dyn Exit>, NonNull<()>) {
        let core = self.pool.state.core();
        let mut parts = lock(&self.parts);
        let part = match parts.free.pop() {
            Some(Lent(part)) => {
                self.hold_unless_closed(&parts, part);
                drop(parts);
                // SAFETY: off the free list, so this thread owns it now and
                // has not used it; its last owner put it there under the
                // lock just released.
                unsafe { part.as_ref().renew(core) };
                // SAFETY: as above.
                unsafe { part.as_ref().own() };
                part
            }
            None => {
                // The new part's cache registers with the pool's core:
                // not under this lock.
                drop(parts);
                let config = &self.pool.config;
                let retains = config.retain.is_some();
                let home = release::home(config.reset_on, retains);
                let part = Box::new(Part::new(this, core, home, config.reset_on));
                // SAFETY: from `Box::into_raw`, so not null, with the
                // provenance of the whole box, which only the pool's drop
                // frees.
                let part = unsafe { NonNull::new_unchecked(Box::into_raw(part)) };
                // SAFETY: made for this thread, not yet listed.
                unsafe { part.as_ref().own() };
                let mut parts = lock(&self.parts);
                parts.all.push(Lent(part));
                self.hold_unless_closed(&parts, part);
                part
            }
        };
        // SAFETY: `this` has `Arc::as_ptr`'s provenance, and the caller's
        // `&Pool` holds a strong count for the call, which `ManuallyDrop`
        // leaves as it is: this only makes a `Weak`.
        let pool = ManuallyDrop::new(unsafe { Arc::from_raw(this.as_ptr().cast_const()) });
        let pool: Weak<Inner<T>> = Arc::downgrade(&pool);
        (pool, part.cast())
    }

    /// Makes `part`, which the calling thread is taking, hold the pool,
    /// unless the pool is closed: so every part an acquire reaches holds
    /// it (an acquire needs a handle, and handles never come back once
    /// none is left), and lending a guard is one addition. `_parts` is the
    /// pool's lock on its parts, held: `close`, which looks at every part
    /// under it, then either finds the part held or has run before and
    /// left no handle.
    fn hold_unless_closed(&self, _parts: &Parts<T>, part: NonNull<Part<T>>) {
        if self.handles.load(Ordering::Relaxed) != 0 {
            // SAFETY: the calling thread is taking the part, under the
            // lock; the caller's `&Pool` (or guard) keeps the pool alive.
            unsafe { part.as_ref().hold() };
        }
    }
}

impl<T: Reset + Send + 'static> Exit for Inner<T> {
    fn exit(self: Arc<Self>, part: NonNull<()>) {
        let part = part.cast::<Part<T>>();
        // SAFETY: the exiting thread's part of this pool, which the strong
        // count keeps alive; the thread is its owner, done with it (its
        // memo is off).
        let part_ref = unsafe { part.as_ref() };
        part_ref.cache().retire();
        part_ref.disown();
        lock(&self.parts).free.push(Lent(part));
        self.owners.leave();
    }
}

/// The calling thread's part of the pool `inner`, when its memo has none:
/// through the thread's list, then recorded in the memo. What
/// `Inner::part` calls, through the pool's `part_slow`.
#[cold]
#[inline(never)]
pub(super) fn part_slow<T: Reset + Send + 'static>(inner: &Inner<T>) -> Option<NonNull<Part<T>>> {
    let id = inner.erased.id;
    let part = thread::part(id, || inner.take_part(inner.this()))?;
    owned::set(id, part);
    Some(part.cast())
}

/// The `put` of a run-time pool's `Pool` (`crate::pool::Owned`): files a
/// counted `Pool::put` through the calling thread's part, as a release.
///
/// # Safety
///
/// As for `part`'s `acquire_erased`: `inner` is the live allocation of a run-time
/// pool of `T`s, with the provenance of all of it.
pub(super) unsafe fn put_erased<T: Reset + Send + 'static>(inner: NonNull<()>, value: Boxed<T>) {
    // SAFETY: the caller's promise; the caller's `&Pool`, in the
    // allocation, keeps it alive for the call.
    unsafe { inner.cast::<Inner<T>>().as_ref() }.put(value);
}

/// The own-cache half of a run-time pool's `Pool::clear`
/// (`crate::pool::Owned`): empties the calling thread's part's cache, the
/// one cache reachable where rotation reaches none.
///
/// # Safety
///
/// As for [`put_erased`].
pub(super) unsafe fn clear_erased<T: Reset + Send + 'static>(inner: NonNull<()>) {
    // SAFETY: as in `put_erased`.
    let inner = unsafe { inner.cast::<Inner<T>>().as_ref() };
    if let Some(cache) = inner.cache() {
        cache.clear();
    }
}
