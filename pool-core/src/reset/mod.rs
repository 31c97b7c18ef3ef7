//! The [`Reset`] trait and its implementations for standard types.
//!
//! Resetting puts a value back to its freshly-made state but keeps what it
//! has allocated: reusing that memory is the reason to pool objects at all.
//! Nothing here shrinks a buffer, so an object that once grew large stays
//! large while it is pooled.
//!
//! # Implementations
//!
//! - **Numbers, `bool` and `char`**: every integer type, `f32` and `f64`, `bool`
//!   and `char` become their default: `0`, `0.0`, `false` or `'\0'`; so do
//!   the atomic integers and `AtomicBool` (through `get_mut`, no atomic
//!   operation). [`Duration`] becomes [`Duration::ZERO`].
//! - **Wrappers of a value**: [`Wrapping`], [`Saturating`], [`Reverse`] and
//!   [`Range`] reset what they hold (both ends of a range), in place.
//! - **Collections**: [`String`], [`Vec`], [`VecDeque`], [`LinkedList`],
//!   [`HashMap`], [`HashSet`], [`BinaryHeap`], [`BTreeMap`], [`BTreeSet`],
//!   [`OsString`] and [`PathBuf`] are cleared.
//!   The elements are dropped, not reset, so they need not implement
//!   [`Reset`]; the buffer is kept wherever the type has one (a
//!   [`ReuseVec`](reuse_vec::ReuseVec) keeps its elements too). The B-tree
//!   collections and the linked list have no spare capacity to keep, so
//!   clearing them frees their nodes.
//! - **[`Option`]** becomes [`None`], whatever it holds.
//! - **Arrays and slices** (`[T; N]` and `[T]`): each element is reset, so
//!   the element type must implement [`Reset`].
//! - **[`Box`]**: the value inside is reset and the box keeps its allocation.
//!   Together with the slice impl this covers `Box<[T]>`.
//! - **Tuples** up to twelve elements, each of which implements [`Reset`],
//!   and `()`.
//! - **[`Cell`], [`RefCell`], [`Mutex`] and [`RwLock`]**: the value inside is
//!   reset through `get_mut`, which the exclusive borrow makes free of any
//!   locking. A poisoned `Mutex` or `RwLock` is reset all the same, since
//!   resetting discards the state left behind by the panic, and its poison
//!   flag is then cleared, as a new lock has none.
//! - **[`PhantomData`]** holds nothing, so resetting it does nothing.
//! - **Other crates' collections**, each behind a feature of the crate's
//!   name: `bytes::BytesMut`, `smallvec::SmallVec`, `hashbrown::{HashMap,
//!   HashSet}`, `indexmap::{IndexMap, IndexSet}` are cleared, their buffers
//!   kept.
//!
//! # Not implemented
//!
//! Value types with no value that stands for a new one: [`Instant`](std::time::Instant),
//! [`SystemTime`](std::time::SystemTime), the `NonZero` integers,
//! [`Ordering`](std::cmp::Ordering), the IP and socket addresses. Picking one
//! (the epoch, `1`, `Equal`, `0.0.0.0`) would hand a reused object a value no
//! constructor gave it. As fields of a `#[derive(Poolable)]` struct they need
//! no attribute: they are `Clone`, so the derive copies the constructor's
//! value back into them on every reset.
//!
//! [`Rc`](std::rc::Rc), [`Arc`](std::sync::Arc) and their `Weak` pointers
//! have no impl: the value behind them may be shared, so resetting it through
//! one owner would change what every other owner sees, and replacing the
//! pointer instead would not keep any allocation. Wrap the value in one of
//! your own types if a pooled object needs to hold one, and decide there what
//! its reset means.
//!
//! Invariant: each impl leaves the value as a newly made one would be (a
//! lock unpoisoned too) and frees no buffer the value could keep; elements
//! that are dropped (a collection's, an option's) need not implement
//! [`Reset`], elements reset in place (an array's, a tuple's, a box's, a
//! cell's or a lock's) must.
//!
//! The trait and the impls for std's types are here; those for other
//! crates' collections, behind their features, in `foreign`; the vector
//! whose reset keeps its elements, [`ReuseVec`](reuse_vec::ReuseVec), in
//! `reuse_vec`.

mod foreign;
pub(crate) mod reuse_vec;
#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ffi::OsString;
use std::marker::PhantomData;
use std::num::{Saturating, Wrapping};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{
    AtomicBool, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16,
    AtomicU32, AtomicU64, AtomicUsize,
};
use std::sync::{Mutex, PoisonError, RwLock};
use std::time::Duration;

/// Puts a value back into its freshly-made state while keeping its
/// allocations, so the next user of a pooled object finds it clean and cheap.
///
/// A pool calls `reset` on every object it takes back, before the object is
/// cached, so idle objects hold no stale data and no garbage references.
///
/// # Example
///
/// ```
/// use pool_core::Reset;
///
/// let mut name = String::with_capacity(64);
/// name.push_str("Ada");
/// name.reset();
/// assert!(name.is_empty());
/// assert!(name.capacity() >= 64); // the buffer is kept
/// ```
///
/// # Implementing `Reset`
///
/// Reset the fields one by one, so each keeps its own allocation. A field
/// that describes the object's slot rather than its contents can be kept as
/// it is:
///
/// ```
/// use pool_core::Reset;
///
/// struct Request {
///     id: u64,
///     path: String,
///     headers: Vec<(String, String)>,
///     // Which worker owns this object; it outlives each request.
///     worker: usize,
/// }
///
/// impl Reset for Request {
///     fn reset(&mut self) {
///         self.id.reset();
///         self.path.reset();
///         self.headers.reset();
///         // `worker` is deliberately kept.
///     }
/// }
///
/// let mut request = Request {
///     id: 7,
///     path: String::from("/index.html"),
///     headers: vec![("Host".into(), "example.org".into())],
///     worker: 3,
/// };
/// request.reset();
/// assert_eq!(request.id, 0);
/// assert!(request.path.is_empty());
/// assert!(request.headers.is_empty());
/// assert_eq!(request.worker, 3);
/// ```
///
/// `#[derive(Poolable)]` generates an impl like this one for you, which also
/// gives back the constructor's values where they are not the fields' reset
/// values (`retries: 3`; see [the derive](derive@crate::Poolable)). A
/// hand-written `reset` must do that itself: the pool hands the object out
/// again as `reset` leaves it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `Reset`",
    label = "`{Self}` cannot be reset for reuse",
    note = "derive `Reset` (for a part of a pooled object) or `Poolable` for it, or implement `Reset` by hand; as a field of a `#[derive(Poolable)]` struct, a `Clone` type needs no `Reset` (the constructor's value is copied back), and `#[pool(reset = path)]` or `#[pool(skip)]` also work"
)]
pub trait Reset {
    /// Resets `self` in place to the state of a newly made value, keeping
    /// any allocation it owns.
    ///
    /// ```
    /// use pool_core::Reset;
    ///
    /// let mut scores = vec![3, 1, 2];
    /// scores.reset();
    /// assert!(scores.is_empty());
    /// assert!(scores.capacity() >= 3);
    /// ```
    fn reset(&mut self);
}

macro_rules! impl_reset_to_default {
    ($($t:ty),* $(,)?) => {
        $(
            /// Sets the value to its default: `0`, `0.0`, `false` or `'\0'`.
            impl Reset for $t {
                #[inline]
                fn reset(&mut self) {
                    *self = Default::default();
                }
            }
        )*
    };
}

impl_reset_to_default!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char,
);

macro_rules! impl_reset_atomic {
    ($($t:ty),* $(,)?) => {
        $(
            /// Sets the value to its default, `0` or `false`, through
            /// `get_mut`: the borrow is exclusive, so no atomic operation.
            impl Reset for $t {
                #[inline]
                fn reset(&mut self) {
                    *self.get_mut() = Default::default();
                }
            }
        )*
    };
}

impl_reset_atomic!(
    AtomicBool,
    AtomicI8,
    AtomicI16,
    AtomicI32,
    AtomicI64,
    AtomicIsize,
    AtomicU8,
    AtomicU16,
    AtomicU32,
    AtomicU64,
    AtomicUsize,
);

/// Sets the duration to [`Duration::ZERO`], its default.
impl Reset for Duration {
    #[inline]
    fn reset(&mut self) {
        *self = Duration::ZERO;
    }
}

macro_rules! impl_reset_inner {
    ($($t:ident),* $(,)?) => {
        $(
            /// Resets the value inside, in place.
            impl<T: Reset> Reset for $t<T> {
                #[inline]
                fn reset(&mut self) {
                    self.0.reset();
                }
            }
        )*
    };
}

impl_reset_inner!(Wrapping, Saturating, Reverse);

/// Resets both ends in place: `0..0` for a range of integers.
impl<T: Reset> Reset for Range<T> {
    #[inline]
    fn reset(&mut self) {
        self.start.reset();
        self.end.reset();
    }
}

/// Clears the path, keeping its buffer.
impl Reset for PathBuf {
    #[inline]
    fn reset(&mut self) {
        self.as_mut_os_string().clear();
    }
}

macro_rules! impl_reset_by_clear {
    ($([$($params:tt)*] $t:ty),* $(,)?) => {
        $(
            /// Clears the collection, dropping its elements and keeping its
            /// buffer if it has one.
            impl<$($params)*> Reset for $t {
                #[inline]
                fn reset(&mut self) {
                    self.clear();
                }
            }
        )*
    };
}

impl_reset_by_clear!(
    [] String,
    [] OsString,
    [T] Vec<T>,
    [T] VecDeque<T>,
    [T] LinkedList<T>,
    [K, V, S] HashMap<K, V, S>,
    [T, S] HashSet<T, S>,
    [K, V] BTreeMap<K, V>,
    [T] BTreeSet<T>,
    [T] BinaryHeap<T>,
);

/// Sets the option to `None`, dropping any value it held.
impl<T> Reset for Option<T> {
    #[inline]
    fn reset(&mut self) {
        *self = None;
    }
}

/// Resets each element in place.
impl<T: Reset> Reset for [T] {
    #[inline]
    fn reset(&mut self) {
        self.iter_mut().for_each(T::reset);
    }
}

/// Resets each element in place.
impl<T: Reset, const N: usize> Reset for [T; N] {
    #[inline]
    fn reset(&mut self) {
        self.as_mut_slice().reset();
    }
}

/// Resets the boxed value in place, keeping the box's allocation.
impl<T: Reset + ?Sized> Reset for Box<T> {
    #[inline]
    fn reset(&mut self) {
        T::reset(self);
    }
}

/// Does nothing: there is no state to reset.
impl Reset for () {
    #[inline]
    fn reset(&mut self) {}
}

macro_rules! impl_reset_for_tuples {
    () => {};
    ($head:ident $(, $tail:ident)*) => {
        /// Resets each element in place.
        // Not listed among the types that implement `Reset` when a field's
        // type does not: twelve tuple arities are not what the user needs
        // to read there.
        #[diagnostic::do_not_recommend]
        impl<$head: Reset, $($tail: Reset),*> Reset for ($head, $($tail,)*) {
            #[inline]
            fn reset(&mut self) {
                #[allow(non_snake_case, reason = "bindings reuse the type parameter names")]
                let ($head, $($tail,)*) = self;
                $head.reset();
                $($tail.reset();)*
            }
        }

        impl_reset_for_tuples!($($tail),*);
    };
}

impl_reset_for_tuples!(A, B, C, D, E, F, G, H, I, J, K, L);

/// Resets the value inside; the exclusive borrow means no copy is needed.
impl<T: Reset> Reset for Cell<T> {
    #[inline]
    fn reset(&mut self) {
        self.get_mut().reset();
    }
}

/// Resets the value inside; the exclusive borrow means no runtime borrow
/// check is needed.
impl<T: Reset> Reset for RefCell<T> {
    #[inline]
    fn reset(&mut self) {
        self.get_mut().reset();
    }
}

/// Resets the value inside without locking, since the borrow is exclusive.
/// A poisoned mutex is reset too, because resetting discards whatever the
/// panicking thread left half-done; the poison flag is then cleared, as a
/// new mutex has none.
impl<T: Reset> Reset for Mutex<T> {
    #[inline]
    fn reset(&mut self) {
        self.get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .reset();
        self.clear_poison();
    }
}

/// Resets the value inside without locking, since the borrow is exclusive.
/// A poisoned lock is reset too, because resetting discards whatever the
/// panicking thread left half-done; the poison flag is then cleared, as a
/// new lock has none.
impl<T: Reset> Reset for RwLock<T> {
    #[inline]
    fn reset(&mut self) {
        self.get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .reset();
        self.clear_poison();
    }
}

/// Does nothing: a `PhantomData` holds no value.
impl<T: ?Sized> Reset for PhantomData<T> {
    #[inline]
    fn reset(&mut self) {}
}
