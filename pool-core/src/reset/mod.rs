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
//!   and `char` become their default: `0`, `0.0`, `false` or `'\0'`.
//! - **Collections**: [`String`], [`Vec`], [`VecDeque`], [`HashMap`],
//!   [`HashSet`], [`BinaryHeap`], [`BTreeMap`] and [`BTreeSet`] are cleared.
//!   The elements are dropped, not reset, so they need not implement
//!   [`Reset`]; the buffer is kept wherever the type has one. The B-tree
//!   collections have no spare capacity to keep, so clearing them frees their
//!   nodes.
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
//! [`Rc`](std::rc::Rc), [`Arc`](std::sync::Arc) and their `Weak` pointers
//! have no impl: the value behind them may be shared, so resetting it through
//! one owner would change what every other owner sees, and replacing the
//! pointer instead would not keep any allocation. Wrap the value in one of
//! your own types if a pooled object needs to hold one, and decide there what
//! its reset means.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};
use std::marker::PhantomData;
use std::sync::{Mutex, PoisonError, RwLock};

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
    note = "derive `Poolable` for it or implement `Reset` by hand; as a field of a derived struct, `#[pool(skip)]`, `#[pool(default)]` or `#[pool(reset = path)]` also work"
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
    [T] Vec<T>,
    [T] VecDeque<T>,
    [K, V, S] HashMap<K, V, S>,
    [T, S] HashSet<T, S>,
    [K, V] BTreeMap<K, V>,
    [T] BTreeSet<T>,
    [T] BinaryHeap<T>,
);

/// Collections of other crates, each behind a feature of the same name, so
/// that the buffers networked and data-heavy code holds can be pooled
/// without a newtype: each is cleared, keeping its allocation.
macro_rules! impl_reset_by_clear_behind {
    ($feature:literal: $([$($params:tt)*] $t:ty),* $(,)?) => {
        $(
            /// Clears it, dropping its contents and keeping its buffer
            #[doc = concat!("(feature `", $feature, "`).")]
            #[cfg(feature = $feature)]
            #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
            impl<$($params)*> Reset for $t {
                #[inline]
                fn reset(&mut self) {
                    self.clear();
                }
            }
        )*
    };
}

impl_reset_by_clear_behind!("bytes": [] bytes::BytesMut);
impl_reset_by_clear_behind!("smallvec": [A: smallvec::Array] smallvec::SmallVec<A>);
impl_reset_by_clear_behind!(
    "hashbrown": [K, V, S] hashbrown::HashMap<K, V, S>,
    [T, S] hashbrown::HashSet<T, S>,
);
impl_reset_by_clear_behind!(
    "indexmap": [K, V, S] indexmap::IndexMap<K, V, S>,
    [T, S] indexmap::IndexSet<T, S>,
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

#[cfg(test)]
mod tests {
    use super::Reset;
    use std::cell::{Cell, RefCell};
    use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};
    use std::marker::PhantomData;
    use std::sync::{Mutex, PoisonError, RwLock};

    #[test]
    fn numbers_bool_and_char_go_to_their_default() {
        let mut ints = (-5i8, 300i16, -7i32, 1i64 << 40, -1i128, -9isize);
        let mut uints = (7u8, 9u16, 11u32, 13u64, u128::MAX, usize::MAX);
        let mut others = (1.5f32, -2.5f64, true, 'x');
        ints.reset();
        uints.reset();
        others.reset();
        assert_eq!(ints, (0, 0, 0, 0, 0, 0));
        assert_eq!(uints, (0, 0, 0, 0, 0, 0));
        assert_eq!(others, (0.0, 0.0, false, '\0'));
    }

    #[test]
    fn string_is_emptied_and_keeps_its_buffer() {
        let mut s = String::with_capacity(32);
        s.push_str("hello");
        let (cap, ptr) = (s.capacity(), s.as_ptr());
        s.reset();
        assert!(s.is_empty());
        assert!(s.capacity() >= cap);
        assert_eq!(s.as_ptr(), ptr);
    }

    #[test]
    fn vec_is_emptied_and_keeps_its_buffer() {
        // `String` elements are not `Reset`-bound: clearing drops them.
        let mut v = vec![String::from("a"), String::from("b")];
        v.reserve(16);
        let (cap, ptr) = (v.capacity(), v.as_ptr());
        v.reset();
        assert!(v.is_empty());
        assert!(v.capacity() >= cap);
        assert_eq!(v.as_ptr(), ptr);
    }

    #[test]
    fn vec_deque_is_emptied_and_keeps_its_capacity() {
        let mut d: VecDeque<u32> = VecDeque::with_capacity(16);
        d.extend([1, 2, 3]);
        let cap = d.capacity();
        d.reset();
        assert!(d.is_empty());
        assert!(d.capacity() >= cap);
    }

    #[test]
    fn hash_map_and_set_are_emptied_and_keep_their_capacity() {
        let mut m: HashMap<u32, String> = HashMap::with_capacity(16);
        m.insert(1, "one".into());
        let mut s: HashSet<u32> = HashSet::with_capacity(16);
        s.insert(1);
        let (map_cap, set_cap) = (m.capacity(), s.capacity());
        m.reset();
        s.reset();
        assert!(m.is_empty() && s.is_empty());
        assert!(m.capacity() >= map_cap);
        assert!(s.capacity() >= set_cap);
    }

    #[test]
    fn binary_heap_is_emptied_and_keeps_its_capacity() {
        let mut h = BinaryHeap::with_capacity(16);
        h.extend([3, 1, 2]);
        let cap = h.capacity();
        h.reset();
        assert!(h.is_empty());
        assert!(h.capacity() >= cap);
    }

    #[test]
    fn btree_map_and_set_are_emptied() {
        let mut m = BTreeMap::from([(1, "one"), (2, "two")]);
        let mut s = BTreeSet::from([1, 2, 3]);
        m.reset();
        s.reset();
        assert!(m.is_empty());
        assert!(s.is_empty());
    }

    #[test]
    fn option_becomes_none() {
        // `Vec<u8>`'s own `Reset` must not be used: the whole value goes.
        let mut o = Some(vec![1u8, 2, 3]);
        o.reset();
        assert_eq!(o, None);
    }

    #[test]
    fn array_elements_are_each_reset_and_keep_their_buffers() {
        let mut a: [String; 3] = std::array::from_fn(|i| {
            let mut s = String::with_capacity(8);
            s.push_str(&i.to_string());
            s
        });
        let ptrs = a.each_ref().map(|s| s.as_ptr());
        a.reset();
        for (s, ptr) in a.iter().zip(ptrs) {
            assert!(s.is_empty());
            assert!(s.capacity() >= 8);
            assert_eq!(s.as_ptr(), ptr);
        }
    }

    #[test]
    fn box_keeps_its_allocation_and_resets_the_value_inside() {
        let mut b = Box::new(String::from("boxed"));
        let addr = std::ptr::from_ref::<String>(&b);
        b.reset();
        assert_eq!(std::ptr::from_ref::<String>(&b), addr);
        assert!(b.is_empty());
    }

    #[test]
    fn boxed_slice_keeps_its_allocation_and_resets_each_element() {
        let mut b: Box<[String]> = vec![String::from("a"), String::from("bc")].into_boxed_slice();
        let addr = std::ptr::from_ref::<[String]>(&b);
        b.reset();
        assert_eq!(std::ptr::from_ref::<[String]>(&b), addr);
        assert_eq!(b.len(), 2);
        assert!(b.iter().all(String::is_empty));
    }

    #[test]
    fn twelve_tuple_of_mixed_types_is_reset() {
        let mut t = (
            1u8,
            -2i64,
            3.0f32,
            true,
            'z',
            String::from("s"),
            vec![1u16],
            Some(4u32),
            [5u16, 6],
            Box::new(7u64),
            Cell::new(8i32),
            (),
        );
        t.reset();
        let fresh = (
            0u8,
            0i64,
            0.0f32,
            false,
            '\0',
            String::new(),
            Vec::<u16>::new(),
            None::<u32>,
            [0u16; 2],
            Box::new(0u64),
            Cell::new(0i32),
            (),
        );
        assert_eq!(t, fresh);
    }

    // `()` and `PhantomData` hold nothing, so no run-time check of their
    // reset could fail; what matters is that the impls exist (a derived
    // struct's marker fields need them), and this fails to build without them.
    const _: fn() = || {
        fn implements_reset<T: Reset + ?Sized>() {}
        implements_reset::<()>();
        implements_reset::<PhantomData<str>>();
    };

    #[test]
    fn cell_and_ref_cell_reset_their_content() {
        let mut c = Cell::new(42u32);
        let mut r = RefCell::new(String::from("text"));
        c.reset();
        r.reset();
        assert_eq!(c.get(), 0);
        assert!(r.borrow().is_empty());
    }

    #[test]
    fn mutex_and_rw_lock_reset_their_content() {
        let mut m = Mutex::new(vec![1, 2, 3]);
        let mut l = RwLock::new(99u64);
        m.reset();
        l.reset();
        assert!(m.into_inner().unwrap().is_empty());
        assert_eq!(l.into_inner().unwrap(), 0);
    }

    #[test]
    fn poisoned_mutex_is_reset_and_its_poison_cleared() {
        let m = Mutex::new(String::from("half-written"));
        let result = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let _guard = m.lock().unwrap();
                    panic!("poisoning the mutex on purpose");
                })
                .join()
        });
        assert!(result.is_err());
        let mut m = m;
        assert!(m.is_poisoned());
        m.reset();
        assert!(!m.is_poisoned(), "a reset lock is as good as new");
        let value = m.into_inner().unwrap_or_else(PoisonError::into_inner);
        assert!(value.is_empty());
    }

    #[test]
    fn poisoned_rw_lock_is_reset_and_its_poison_cleared() {
        let l = RwLock::new(vec![1u8, 2, 3]);
        let result = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let _guard = l.write().unwrap();
                    panic!("poisoning the lock on purpose");
                })
                .join()
        });
        assert!(result.is_err());
        let mut l = l;
        assert!(l.is_poisoned());
        l.reset();
        assert!(!l.is_poisoned(), "a reset lock is as good as new");
        let value = l.into_inner().unwrap_or_else(PoisonError::into_inner);
        assert!(value.is_empty());
    }
}
