//! How the pool holds an object: [`Boxed`], a box of [`Padded`].
//!
//! Invariant: every pooled object is followed, in its own allocation, by
//! [`GAP`] bytes that nothing reads or writes, so no two pooled objects
//! share a cache line (checked by this module's test).

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// How the pool holds an object: boxed, so that moving it between the guard,
/// the caches and the tiers moves one pointer whatever the size of `T`, and
/// padded (see [`Padded`]).
pub(crate) type Boxed<T> = Box<Padded<T>>;

/// Bytes of padding after each pooled object: one cache line on the
/// machines this crate targets.
const GAP: usize = 64;

/// An object followed by [`GAP`] bytes that nothing reads or writes.
///
/// Objects migrate between threads: released on one, acquired on another
/// (at thread exit, in cross-thread return, under a work-stealing runtime).
/// Objects made one after another are often neighbours in memory, and
/// without a gap two threads can end up writing to one cache line through
/// two different objects: the two-thread round-trip bench ran at 0.45–1.14×
/// the throughput of one thread when that happened. With at least a line's
/// worth of untouched bytes after every object (and `repr(C)` keeps them
/// after it), the next allocation's bytes cannot share a line with this
/// object's value. Padding rather than 128-byte alignment: an over-aligned
/// allocation takes the system allocator's slow `memalign` path on every
/// object made or dropped.
#[repr(C)]
pub(crate) struct Padded<T> {
    value: T,
    _gap: MaybeUninit<[u8; GAP]>,
}

/// Makes an object with `create`, straight into its box.
///
/// `Box::new(Padded::new(create()))` keeps up to three copies of `T` on the
/// stack in a debug build (the constructor's result, the padded value,
/// `Box::new`'s argument): a 600 KiB object then overflowed a spawned
/// thread's 2 MiB stack where `Box::new(T::new())` fits. Here the box is
/// allocated first and the constructor's result is moved into it, one
/// copy at most, as `Box::new` itself does.
#[inline]
pub(crate) fn boxed_with<T>(create: impl FnOnce() -> T) -> Boxed<T> {
    let mut boxed = Box::<Padded<T>>::new_uninit();
    let slot = boxed.as_mut_ptr();
    // SAFETY: `slot` points into a live allocation sized and aligned for a
    // `Padded<T>`, and `&raw mut` makes a pointer to its `value` field
    // without reading or referencing the uninitialized memory. `write`
    // moves the value in without dropping what was there (nothing).
    unsafe { (&raw mut (*slot).value).write(create()) };
    // SAFETY: `value` was initialized above; `_gap`, the only other field,
    // is a `MaybeUninit`, for which any bytes (none) are a valid value. If
    // `create` panicked we never get here, and the uninitialized box is
    // freed without dropping a `T`.
    unsafe { boxed.assume_init() }
}

impl<T> Padded<T> {
    #[cfg(test)]
    fn new(value: T) -> Self {
        Padded {
            value,
            _gap: MaybeUninit::uninit(),
        }
    }

    pub(crate) fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Deref for Padded<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Padded<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

#[cfg(test)]
mod tests {
    use super::Padded;

    /// The reason for the padding: two objects, released on one thread and
    /// acquired on two others, must not put those threads on one cache line.
    #[test]
    fn no_two_pooled_objects_share_a_cache_line() {
        const LINE: usize = 64;
        let boxes: Vec<_> = (0..64).map(|_| Box::new(Padded::new([1u8; 40]))).collect();
        let mut lines: Vec<(usize, usize)> = boxes
            .iter()
            .map(|b| {
                let start = std::ptr::from_ref::<[u8; 40]>(b).addr();
                (start / LINE, (start + 40 - 1) / LINE)
            })
            .collect();
        lines.sort_unstable();
        for pair in lines.windows(2) {
            assert!(
                pair[0].1 < pair[1].0,
                "two objects share line {}",
                pair[1].0
            );
        }
    }
}
