//! How the pool holds an object: [`Boxed`], a box of [`Padded`], and
//! [`Erased`], the same box with its type forgotten, as the caches, the
//! shared store and rotation hold it.
//!
//! Invariants:
//! 1. Every pooled object is followed, in its own allocation, by [`GAP`]
//!    bytes that nothing reads or writes, so no two pooled objects share a
//!    cache line where blocks start at 16-byte boundaries (checked by this
//!    module's test).
//! 2. An [`Erased`] is a `Boxed<T>` of the `T` of the pool (or of the
//!    derived struct's template, `crate::pool::template::Restorer`) that holds
//!    it: made only by [`Erased::new`] from a `Boxed<T>`, and turned back
//!    (or dropped, by the pool's or the restorer's [`Dispose`],
//!    [`dispose::<T>`]) only with that `T`. Everything that moves objects
//!    without knowing `T` (the caches'
//!    slow paths, the shared store, rotation, the graveyard) is compiled
//!    once in pool-core rather than once per pooled type: a derived struct
//!    costs its fast paths and one `dispose`, not a copy of the tiers.

use std::alloc::Layout;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// How the pool holds an object: boxed, so that moving it between the guard,
/// the caches and the tiers moves one pointer whatever the size of `T`, and
/// padded (see [`Padded`]).
pub(crate) type Boxed<T> = Box<Padded<T>>;

/// Bytes of padding after each pooled object: the fewest that keep two
/// objects off one 64-byte cache line.
///
/// Allocators start blocks at 16-byte boundaries (glibc's `malloc`, the
/// system allocator on Linux, every block; jemalloc every block above 8
/// bytes; mimalloc every block above 64 bytes), and cache lines start at
/// 64-byte ones. For a line to hold the last byte of one object and the
/// first of the next, the next must start fewer than 64 bytes after that
/// last byte; it starts at least `GAP + 1` bytes after it, at a 16-byte
/// boundary, so the line's start would lie 49 to 63 bytes before it, and
/// no 16-byte boundary does. Not 64: that put the padded box of a 72-byte
/// request past the 128-byte bound of glibc's fast bins, which made every
/// object a burst creates and drops dearer (docs/PERFORMANCE.md, bursts).
const GAP: usize = 48;

/// An object followed by [`GAP`] bytes that nothing reads or writes.
///
/// Objects migrate between threads: released on one, acquired on another
/// (at thread exit, in cross-thread return, under a work-stealing runtime).
/// Objects made one after another are often neighbours in memory, and
/// without a gap two threads can end up writing to one cache line through
/// two different objects, and two threads then run slower together than
/// one alone (docs/PERFORMANCE.md, two threads). With [`GAP`]
/// untouched bytes after every object (and `repr(C)` keeps them after it),
/// the next allocation's bytes cannot share a line with this object's
/// value (see [`GAP`] for why 48 are enough). Padding rather than 128-byte alignment: an over-aligned
/// allocation takes the system allocator's slow `memalign` path on every
/// object made or dropped.
#[repr(C)]
pub(crate) struct Padded<T> {
    value: T,
    _gap: MaybeUninit<[u8; GAP]>,
}

/// A pooled object, boxed, with its type erased: a `Boxed<T>` (a pointer
/// from [`Box::into_raw`]) for the `T` of the pool that holds it
/// (module invariant 2). Pointer-sized, with a niche, as the box was, so
/// the caches' vectors and their fast paths are unchanged by the erasure.
///
/// Dropping an `Erased` leaks its object: whoever holds one either turns
/// it back into its box ([`Erased::into_boxed`]) or gives it to its pool's
/// [`Dispose`].
#[repr(transparent)]
pub(crate) struct Erased(NonNull<u8>);

// SAFETY: an `Erased` owns a `Boxed<T>` with `T: Send` (`Erased::new`
// asks for it), which may move between threads as the box may.
unsafe impl Send for Erased {}

impl Erased {
    /// Forgets the type of `boxed`.
    #[inline]
    pub(crate) fn new<T: Send>(boxed: Boxed<T>) -> Self {
        // SAFETY: `Box::into_raw` is never null.
        Erased(unsafe { NonNull::new_unchecked(Box::into_raw(boxed) as *mut u8) })
    }

    /// Where the object is, for reading it as the `T` it was made from
    /// (the pointer is to a `Padded<T>`, whose first field the object is).
    #[inline]
    pub(crate) fn as_ptr(&self) -> NonNull<u8> {
        self.0
    }

    /// The object whose pointer is `ptr` ([`Erased::as_ptr`]).
    ///
    /// # Safety
    ///
    /// `ptr` is an `Erased`'s, whose object nothing else holds any more.
    #[inline]
    pub(crate) unsafe fn from_ptr(ptr: NonNull<u8>) -> Self {
        Erased(ptr)
    }

    /// Asks the CPU to bring the object's first 64 bytes into this core's
    /// cache, without waiting for them: a hint, which reads and writes
    /// nothing the program can observe, and is a no-op where it is not
    /// available (targets other than `x86_64`, and Miri).
    ///
    /// For the objects a refill brings from the shared store
    /// (`crate::engine::cache`): they were last written by the thread that
    /// released them, often on another core, so each acquire's first
    /// touch of one would wait for its line to cross; asked for together,
    /// the lines cross at once. Both lines that the first 64 bytes can
    /// span are asked for: the object starts at a 16-byte boundary, and
    /// byte 48 is inside the allocation whatever `T` is (the value and
    /// [`GAP`] bytes after it).
    #[inline]
    pub(crate) fn prefetch(&self) {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let first = self.0.as_ptr().cast_const().cast::<i8>();
            // The `unsafe` is needed on Rust 1.85 (the crate's minimum),
            // where `_mm_prefetch` is an `unsafe fn`, and is unused on
            // later ones, where it is safe to call with SSE enabled (it is
            // on every `x86_64` target).
            #[allow(unused_unsafe)]
            // SAFETY: a prefetch never faults and has no effect on memory;
            // SSE, which it needs, is part of every `x86_64` target. Both
            // addresses are inside the object's allocation (above).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(first);
                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(GAP));
            }
        }
    }

    /// The box again.
    ///
    /// # Safety
    ///
    /// `T` must be the type this was made from ([`Erased::new`]).
    #[inline]
    pub(crate) unsafe fn into_boxed<T>(self) -> Boxed<T> {
        // SAFETY: made by `Erased::new` from a `Boxed<T>` of this `T` (the
        // caller's promise), whose `Box::leak` gave up ownership to this
        // value, which is consumed here: one owner again.
        unsafe { Box::from_raw(self.0.as_ptr() as *mut Padded<T>) }
    }
}

/// `ptr`, from a reference, without its type: what `NonNull::from(r).cast()`
/// does, in one function for every pointee type. The caller casts the
/// reference: `r as *const X as *const u8`.
#[inline]
pub(crate) fn untyped(ptr: *const u8) -> NonNull<u8> {
    NonNull::new(ptr.cast_mut()).expect("a pointer from a reference")
}

/// Drops an [`Erased`] object of one pool, and returns the heap bytes it
/// held as its pool counts them (`0` for a type the pool does not
/// measure): the one thing the erased code needs to know about `T`. A
/// pool's is `crate::pool::state`'s, which measures; [`dispose::<T>`]
/// measures nothing.
///
/// # Safety
///
/// The object must be of the type the function was made for (an object of
/// the pool it belongs to).
pub(crate) type Dispose<T> = unsafe fn(T) -> usize;

/// A [`Dispose`] for objects of `T` that drops the object, frees its box
/// and counts nothing.
///
/// # Safety
///
/// `object` must have been made from a `Boxed<T>` of this `T`.
pub(crate) unsafe fn dispose<T>(object: Erased) -> usize {
    // SAFETY: the caller's promise.
    drop(unsafe { object.into_boxed::<T>() });
    0
}

/// Makes an object with `create`, straight into its box.
///
/// `Box::new(Padded { value: create(), .. })` keeps up to three copies of
/// `T` on the stack in a debug build (the constructor's result, the padded value,
/// `Box::new`'s argument): a 600 KiB object then overflowed a spawned
/// thread's 2 MiB stack where `Box::new(T::new())` fits. Here the box is
/// allocated first and the constructor's result is moved into it, one
/// copy at most, as `Box::new` itself does.
///
/// The allocation and its release on a panic of `create` are compiled once
/// (`allocate`, `Unfilled`), not once per pooled type as
/// `Box::new_uninit` and its drop would be (docs/PERFORMANCE.md, "Compile
/// cost of the derive").
#[inline]
pub(crate) fn boxed_with<T>(create: impl FnOnce() -> T) -> Boxed<T> {
    let layout = Layout::new::<Padded<T>>();
    let unfilled = Unfilled(allocate(layout), layout);
    let slot = unfilled.0.as_ptr() as *mut Padded<T>;
    // SAFETY: `slot` points to a live allocation sized and aligned for a
    // `Padded<T>`, and `&raw mut` makes a pointer to its `value` field
    // without reading or referencing the uninitialized memory. `write`
    // moves the value in without dropping what was there (nothing). If
    // `create` panics, `unfilled` frees the allocation, with no `T` in it.
    unsafe { (&raw mut (*slot).value).write(create()) };
    std::mem::forget(unfilled);
    // SAFETY: allocated by the global allocator with `Padded<T>`'s layout,
    // as `Box` allocates; `value` is initialized above, and `_gap`, the
    // only other field, is a `MaybeUninit`, for which any bytes are valid.
    unsafe { Box::from_raw(slot) }
}

/// Allocates `layout` (never zero-sized: a `Padded` has its gap) with the
/// global allocator, as `Box` does.
#[inline(never)]
fn allocate(layout: Layout) -> NonNull<u8> {
    // SAFETY: `layout` is not zero-sized (`GAP` bytes at least).
    let raw = unsafe { std::alloc::alloc(layout) };
    NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

/// An allocation from [`allocate`] with no object in it yet: freed if
/// dropped (the constructor panicked).
struct Unfilled(NonNull<u8>, Layout);

impl Drop for Unfilled {
    fn drop(&mut self) {
        // SAFETY: allocated by `allocate` with this layout, and holding no
        // object that would need dropping.
        unsafe { std::alloc::dealloc(self.0.as_ptr(), self.1) };
    }
}

impl<T> Padded<T> {
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
    use super::boxed_with;

    /// The reason for the padding: two objects, released on one thread and
    /// acquired on two others, must not put those threads on one cache line.
    #[test]
    fn no_two_pooled_objects_share_a_cache_line() {
        const LINE: usize = 64;
        let boxes: Vec<_> = (0..64).map(|_| boxed_with(|| [1u8; 40])).collect();
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
