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
//! # Bytes
//!
//! Each impl also says what a value holds on the heap
//! ([`Reset::heap_bytes`], the capacities a reset keeps, not the lengths)
//! and, where the type can give memory back, frees it down to a budget
//! ([`Reset::shrink_to_bytes`]): a `String`, a `Vec` or another buffer
//! shrinks its capacity; a [`ReuseVec`](reuse_vec::ReuseVec) drops kept
//! elements first, then shrinks its buffer; wrappers, arrays, tuples and
//! boxes shrink what they hold, in order. Std's hash maps and sets, the
//! B-tree collections and the linked list report an estimate (std does not
//! say what they allocate): buckets or nodes times their entries' size.
//! Values and types that never allocate say so with
//! [`Reset::HEAP`]` = `[`Heap::None`], so a pool of them never measures.
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

    /// What [`heap_bytes`](Reset::heap_bytes) tells of this type: whether
    /// its values hold heap memory the method counts
    /// ([`Heap::Counted`]), never hold any ([`Heap::None`]: the pool
    /// neither measures nor bounds them, at no cost), or hold memory the
    /// type does not report ([`Heap::Unreported`], the default, for a
    /// hand-written impl that does not implement `heap_bytes`: no bound in
    /// bytes applies to it).
    ///
    /// ```
    /// use pool_core::{Heap, Reset};
    ///
    /// assert_eq!(<String as Reset>::HEAP, Heap::Counted);
    /// assert_eq!(<[u8; 64] as Reset>::HEAP, Heap::None);
    ///
    /// struct Hand(Vec<u8>);
    /// impl Reset for Hand {
    ///     fn reset(&mut self) {
    ///         self.0.clear();
    ///     }
    /// }
    /// assert_eq!(<Hand as Reset>::HEAP, Heap::Unreported);
    ///
    /// // A pool shows it too: no bound in bytes applies to its objects.
    /// use pool_core::{Pool, pool};
    /// pool! { static HANDS: Pool<Hand> = Pool::new(|| Hand(Vec::new())); }
    /// assert!(format!("{HANDS:?}").contains("heap: Unreported"));
    /// ```
    const HEAP: Heap = Heap::Unreported;

    /// The bytes of heap memory the value holds: what a reset keeps
    /// (capacities, not lengths), and for a collection whose reset keeps
    /// its elements ([`ReuseVec`](crate::ReuseVec)) their own bytes too.
    /// Not the value's own size, which is inline in whatever holds it.
    ///
    /// The pool calls it on an object alone (`&mut`: through `get_mut` for
    /// a `Mutex` or a `Cell`), after its reset, to hold objects to a bound
    /// in bytes. The default, `0`, keeps hand-written impls compiling; a
    /// type that implements it sets [`HEAP`](Reset::HEAP) to
    /// [`Heap::Counted`].
    ///
    /// ```
    /// use pool_core::{Heap, Reset};
    ///
    /// struct Frame {
    ///     header: String,
    ///     body: Vec<u8>,
    /// }
    ///
    /// impl Reset for Frame {
    ///     const HEAP: Heap = Heap::Counted;
    ///
    ///     fn reset(&mut self) {
    ///         self.header.reset();
    ///         self.body.reset();
    ///     }
    ///
    ///     fn heap_bytes(&mut self) -> usize {
    ///         self.header.heap_bytes() + self.body.heap_bytes()
    ///     }
    /// }
    ///
    /// let mut frame = Frame { header: String::with_capacity(16), body: Vec::with_capacity(1024) };
    /// assert_eq!(frame.heap_bytes(), 16 + 1024);
    /// ```
    #[inline]
    fn heap_bytes(&mut self) -> usize {
        0
    }

    /// Frees heap memory until the value holds at most `max` bytes (as
    /// [`heap_bytes`](Reset::heap_bytes) counts them), where the type can,
    /// and returns what it holds afterwards: more than `max` if it cannot
    /// shrink that far. Called by a pool, after the reset, on an object
    /// over its bound in bytes; an object still over the bound is dropped.
    ///
    /// The default frees nothing. A buffer shrinks its capacity; a
    /// structure shrinks its fields in order, each to what the earlier ones
    /// left of `max`.
    ///
    /// ```
    /// use pool_core::Reset;
    ///
    /// let mut body: Vec<u8> = Vec::with_capacity(1 << 20);
    /// assert!(body.shrink_to_bytes(4096) <= 4096);
    /// assert!(body.capacity() <= 4096);
    /// ```
    #[inline]
    fn shrink_to_bytes(&mut self, max: usize) -> usize {
        let _ = max;
        self.heap_bytes()
    }
}

/// What a type's [`Reset::heap_bytes`] reports: [`Reset::HEAP`].
///
/// ```
/// use pool_core::{Heap, Reset, ReuseVec};
///
/// assert_eq!(<u64 as Reset>::HEAP, Heap::None);
/// assert_eq!(<ReuseVec<String> as Reset>::HEAP, Heap::Counted);
/// assert_eq!(<(u8, Vec<u8>) as Reset>::HEAP, Heap::Counted);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heap {
    /// No value of the type holds heap memory: `heap_bytes` is always 0,
    /// and a pool does not call it.
    None,
    /// `heap_bytes` counts what a value holds.
    Counted,
    /// The type does not report its heap memory (`heap_bytes` is the
    /// default, `0`): a pool cannot hold its objects to a bound in bytes.
    Unreported,
}

impl Heap {
    /// What a value made of two parts reports: counted if either is, else
    /// unreported if either is, else none.
    ///
    /// ```
    /// use pool_core::Heap;
    ///
    /// assert_eq!(Heap::None.and(Heap::Counted), Heap::Counted);
    /// assert_eq!(Heap::None.and(Heap::Unreported), Heap::Unreported);
    /// assert_eq!(Heap::None.and(Heap::None), Heap::None);
    /// ```
    #[must_use]
    pub const fn and(self, other: Heap) -> Heap {
        match (self, other) {
            (Heap::Counted, _) | (_, Heap::Counted) => Heap::Counted,
            (Heap::Unreported, _) | (_, Heap::Unreported) => Heap::Unreported,
            (Heap::None, Heap::None) => Heap::None,
        }
    }

    /// Whether a pool measures objects of this type: [`Heap::Counted`].
    ///
    /// ```
    /// assert!(pool_core::Heap::Counted.is_counted());
    /// ```
    #[must_use]
    pub const fn is_counted(self) -> bool {
        matches!(self, Heap::Counted)
    }
}

/// Impls for types whose values hold no heap memory after their reset
/// ([`Heap::None`]): a pool neither measures nor bounds them. Each group
/// is a doc, the impl's parameters (none for a list of types) and the
/// reset, `|value| expr`.
macro_rules! impl_reset_no_heap {
    () => {};
    ($doc:literal [$($params:tt)*] $t:ty => |$this:ident| $reset:expr; $($rest:tt)*) => {
        #[doc = $doc]
        impl<$($params)*> Reset for $t {
            const HEAP: Heap = Heap::None;

            #[inline]
            fn reset(&mut self) {
                let $this = self;
                $reset
            }
        }

        impl_reset_no_heap!($($rest)*);
    };
    ($doc:literal $($t:ty),+ => |$this:ident| $reset:expr; $($rest:tt)*) => {
        $(impl_reset_no_heap!($doc [] $t => |$this| $reset;);)+
        impl_reset_no_heap!($($rest)*);
    };
}

impl_reset_no_heap! {
    "Sets the value to its default: `0`, `0.0`, `false` or `'\\0'`."
        i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char
        => |value| *value = Default::default();
    "Sets the value to its default, `0` or `false`, through `get_mut`: the \
     borrow is exclusive, so no atomic operation."
        AtomicBool, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16,
        AtomicU32, AtomicU64, AtomicUsize => |value| *value.get_mut() = Default::default();
    "Sets the duration to [`Duration::ZERO`], its default."
        Duration => |value| *value = Duration::ZERO;
    "Sets the option to `None`, dropping any value it held: after its reset \
     it holds no heap memory (`T` need not implement `Reset`, so what a \
     `Some` holds is not measured)."
        [T] Option<T> => |value| *value = None;
    "Does nothing: there is no state to reset." () => |_value| {};
    "Does nothing: a `PhantomData` holds no value."
        [T: ?Sized] PhantomData<T> => |_value| {};
}

/// Impls for wrappers of one value (`$held`) whose reset, size and
/// shrinking are those of the value they hold, reached in place by
/// `$inner` (and, for the locks, a poison flag cleared after the reset, as
/// a new lock has none).
macro_rules! impl_reset_through {
    ($($(#[$doc:meta])* [$($params:tt)*] $t:ty: $held:ty => |$this:ident| $inner:expr $(, then $after:ident)?;)*) => {
        $(
            $(#[$doc])*
            impl<$($params)*> Reset for $t {
                const HEAP: Heap = <$held as Reset>::HEAP;

                #[inline]
                fn reset(&mut self) {
                    let $this = &mut *self;
                    $inner.reset();
                    $(self.$after();)?
                }

                #[inline]
                fn heap_bytes(&mut self) -> usize {
                    let $this = self;
                    $inner.heap_bytes()
                }

                #[inline]
                fn shrink_to_bytes(&mut self, max: usize) -> usize {
                    let $this = self;
                    $inner.shrink_to_bytes(max)
                }
            }
        )*
    };
}

impl_reset_through!(
    /// Resets the value inside, in place.
    [T: Reset] Wrapping<T>: T => |w| w.0;
    /// Resets the value inside, in place.
    [T: Reset] Saturating<T>: T => |s| s.0;
    /// Resets the value inside, in place.
    [T: Reset] Reverse<T>: T => |r| r.0;
    /// Resets each element in place; counts and shrinks each in order.
    [T: Reset, const N: usize] [T; N]: [T] => |a| a.as_mut_slice();
    /// Resets the value inside; the exclusive borrow means no copy is needed.
    [T: Reset] Cell<T>: T => |c| c.get_mut();
    /// Resets the value inside; the exclusive borrow means no runtime borrow
    /// check is needed.
    [T: Reset] RefCell<T>: T => |c| c.get_mut();
    /// Resets the value inside without locking, since the borrow is exclusive.
    /// A poisoned mutex is reset too, because resetting discards whatever the
    /// panicking thread left half-done; the poison flag is then cleared, as a
    /// new mutex has none.
    [T: Reset] Mutex<T>: T => |m| m.get_mut().unwrap_or_else(PoisonError::into_inner), then clear_poison;
    /// Resets the value inside without locking, since the borrow is exclusive.
    /// A poisoned lock is reset too, because resetting discards whatever the
    /// panicking thread left half-done; the poison flag is then cleared, as a
    /// new lock has none.
    [T: Reset] RwLock<T>: T => |l| l.get_mut().unwrap_or_else(PoisonError::into_inner), then clear_poison;
    /// Clears the path, keeping its buffer; counts and shrinks its capacity.
    [] PathBuf: OsString => |p| p.as_mut_os_string();
);

/// Resets both ends in place: `0..0` for a range of integers.
impl<T: Reset> Reset for Range<T> {
    const HEAP: Heap = T::HEAP;

    #[inline]
    fn reset(&mut self) {
        self.start.reset();
        self.end.reset();
    }

    #[inline]
    fn heap_bytes(&mut self) -> usize {
        self.start.heap_bytes() + self.end.heap_bytes()
    }

    #[inline]
    fn shrink_to_bytes(&mut self, max: usize) -> usize {
        let start = self.start.shrink_to_bytes(max);
        start + self.end.shrink_to_bytes(max.saturating_sub(start))
    }
}

/// The bytes of a buffer of `capacity` elements of `T`.
#[inline]
pub(crate) const fn buffer_bytes<T>(capacity: usize) -> usize {
    capacity.saturating_mul(size_of::<T>())
}

/// An estimate of what std's hash table holds for `capacity` entries of
/// `T`: hashbrown's buckets (the next power of two of 8/7 of the capacity,
/// at least 4), each an entry and a control byte, plus a group of control
/// bytes. std does not say what it allocated.
pub(crate) const fn hash_table_bytes<T>(capacity: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        if capacity < 4 { 4 } else { 8 }
    } else {
        (capacity.saturating_mul(8) / 7).next_power_of_two()
    };
    buckets.saturating_mul(size_of::<T>() + 1) + 16
}

/// Impls for collections, std's and (behind a feature of the crate's name,
/// `foreign`) other crates': each is cleared, keeping its buffer, which
/// `heap_bytes` counts (`|value| bytes`) and, where the type can,
/// `shrink_to_bytes` frees (`|value, max| shrink`; without it, nothing is
/// freed).
macro_rules! impl_reset_by_clear {
    ($($(feature $feature:literal:)? [$($params:tt)*] $t:ty => |$this:ident| $bytes:expr
        $(, |$shrunk:ident, $max:ident| $shrink:expr)?;)*) => {
        $(
            /// Clears the collection, dropping its elements and keeping its
            /// buffer if it has one; counts that buffer, and shrinks it.
            $(#[cfg(feature = $feature)]
            #[cfg_attr(docsrs, doc(cfg(feature = $feature)))])?
            impl<$($params)*> $crate::reset::Reset for $t {
                const HEAP: $crate::reset::Heap = $crate::reset::Heap::Counted;

                #[inline]
                fn reset(&mut self) {
                    self.clear();
                }

                #[inline]
                fn heap_bytes(&mut self) -> usize {
                    let $this = &*self;
                    $bytes
                }

                $(#[inline]
                fn shrink_to_bytes(&mut self, max: usize) -> usize {
                    if $crate::reset::Reset::heap_bytes(self) > max {
                        let ($shrunk, $max) = (&mut *self, max);
                        $shrink;
                    }
                    $crate::reset::Reset::heap_bytes(self)
                })?
            }
        )*
    };
}
use impl_reset_by_clear;

// Shrinking a map needs `K: Eq + Hash` and `S: BuildHasher`, which the
// impls do not ask for: a map over its bound is not shrunk.
impl_reset_by_clear!(
    [] String => |s| s.capacity(), |s, max| s.shrink_to(max);
    [] OsString => |s| s.capacity(), |s, max| s.shrink_to(max);
    [T] Vec<T> => |v| buffer_bytes::<T>(v.capacity()),
        |v, max| v.shrink_to(max / size_of::<T>().max(1));
    [T] VecDeque<T> => |v| buffer_bytes::<T>(v.capacity()),
        |v, max| v.shrink_to(max / size_of::<T>().max(1));
    [T] LinkedList<T> => |l| buffer_bytes::<(T, usize, usize)>(l.len()), |l, _max| l.clear();
    [K, V, S] HashMap<K, V, S> => |m| hash_table_bytes::<(K, V)>(m.capacity());
    [T, S] HashSet<T, S> => |m| hash_table_bytes::<T>(m.capacity());
    [K, V] BTreeMap<K, V> => |m| buffer_bytes::<(K, V)>(m.len()), |m, _max| m.clear();
    [T] BTreeSet<T> => |m| buffer_bytes::<T>(m.len()), |m, _max| m.clear();
    [T] BinaryHeap<T> => |v| buffer_bytes::<T>(v.capacity()),
        |v, max| v.shrink_to(max / size_of::<T>().max(1));
);

/// Resets each element in place; counts and shrinks each in order.
impl<T: Reset> Reset for [T] {
    const HEAP: Heap = T::HEAP;

    #[inline]
    fn reset(&mut self) {
        self.iter_mut().for_each(T::reset);
    }

    #[inline]
    fn heap_bytes(&mut self) -> usize {
        if matches!(T::HEAP, Heap::None) {
            return 0;
        }
        self.iter_mut().map(T::heap_bytes).sum()
    }

    #[inline]
    fn shrink_to_bytes(&mut self, max: usize) -> usize {
        if matches!(T::HEAP, Heap::None) {
            return 0;
        }
        self.iter_mut().fold(0, |kept, item| {
            kept + item.shrink_to_bytes(max.saturating_sub(kept))
        })
    }
}

/// Resets the boxed value in place, keeping the box's allocation; counts
/// the allocation (the value's size) and what the value holds.
impl<T: Reset + ?Sized> Reset for Box<T> {
    const HEAP: Heap = Heap::Counted;

    #[inline]
    fn reset(&mut self) {
        T::reset(self);
    }

    #[inline]
    fn heap_bytes(&mut self) -> usize {
        size_of_val::<T>(self) + T::heap_bytes(self)
    }

    #[inline]
    fn shrink_to_bytes(&mut self, max: usize) -> usize {
        let own = size_of_val::<T>(self);
        own + T::shrink_to_bytes(self, max.saturating_sub(own))
    }
}

macro_rules! impl_reset_for_tuples {
    () => {};
    ($head:ident $(, $tail:ident)*) => {
        /// Resets each element in place.
        // Not listed among the types that implement `Reset` when a field's
        // type does not: twelve tuple arities are not what the user needs
        // to read there.
        #[diagnostic::do_not_recommend]
        #[allow(non_snake_case, reason = "bindings reuse the type parameter names")]
        impl<$head: Reset, $($tail: Reset),*> Reset for ($head, $($tail,)*) {
            const HEAP: Heap = $head::HEAP$(.and($tail::HEAP))*;

            #[inline]
            fn reset(&mut self) {
                let ($head, $($tail,)*) = self;
                $head.reset();
                $($tail.reset();)*
            }

            #[inline]
            fn heap_bytes(&mut self) -> usize {
                let ($head, $($tail,)*) = self;
                $head.heap_bytes() $(+ $tail.heap_bytes())*
            }

            #[inline]
            fn shrink_to_bytes(&mut self, max: usize) -> usize {
                let ($head, $($tail,)*) = self;
                let kept = $head.shrink_to_bytes(max);
                $(let kept = kept + $tail.shrink_to_bytes(max.saturating_sub(kept));)*
                kept
            }
        }

        impl_reset_for_tuples!($($tail),*);
    };
}

impl_reset_for_tuples!(A, B, C, D, E, F, G, H, I, J, K, L);
