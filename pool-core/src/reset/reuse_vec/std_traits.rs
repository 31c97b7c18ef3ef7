//! The std traits of [`ReuseVec`], each on its live elements only: the
//! conversions, the iterators, `Deref` to the slice and indexing, `Clone`,
//! `Debug`, equality and `Hash`.
//!
//! Invariant: none of them reads a kept element as data, and only
//! `clone_from` makes a kept element live again, by writing over it.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut, Index, IndexMut};
use std::slice::{self, SliceIndex};

use super::ReuseVec;
use crate::reset::Reset;

/// An empty vector, [`ReuseVec::new`].
///
/// ```
/// let tags: pool_core::ReuseVec<String> = Default::default();
/// assert!(tags.is_empty());
/// ```
impl<T> Default for ReuseVec<T> {
    fn default() -> Self {
        ReuseVec::new()
    }
}

/// The vector's elements, all live.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec![1, 2]);
/// assert_eq!((tags.len(), tags.kept()), (2, 0));
/// ```
impl<T> From<Vec<T>> for ReuseVec<T> {
    fn from(items: Vec<T>) -> Self {
        ReuseVec {
            len: items.len(),
            items,
        }
    }
}

/// The live elements; the kept ones are dropped.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![1, 2]);
/// tags.truncate(1);
/// assert_eq!(Vec::from(tags), [1]);
/// ```
impl<T> From<ReuseVec<T>> for Vec<T> {
    fn from(mut vec: ReuseVec<T>) -> Self {
        vec.items.truncate(vec.len);
        vec.items
    }
}

/// Collects into live elements.
///
/// ```
/// let tags: pool_core::ReuseVec<u32> = (1..=3).collect();
/// assert_eq!(tags, [1, 2, 3]);
/// ```
impl<T> FromIterator<T> for ReuseVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

/// Pushes each element, as [`ReuseVec::push`] does.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![1]);
/// tags.extend([2, 3]);
/// assert_eq!(tags, [1, 2, 3]);
/// ```
impl<T> Extend<T> for ReuseVec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        iter.into_iter().for_each(|value| self.push(value));
    }
}

/// The live elements, by value; the kept ones are dropped.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec![1, 2]);
/// assert_eq!(tags.into_iter().collect::<Vec<_>>(), [1, 2]);
/// ```
impl<T> IntoIterator for ReuseVec<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        Vec::from(self).into_iter()
    }
}

/// The live elements, by reference.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec![1, 2]);
/// let mut sum = 0;
/// for n in &tags {
///     sum += n;
/// }
/// assert_eq!(sum, 3);
/// ```
impl<'a, T> IntoIterator for &'a ReuseVec<T> {
    type Item = &'a T;
    type IntoIter = slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The live elements, by mutable reference.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![1, 2]);
/// for n in &mut tags {
///     *n += 1;
/// }
/// assert_eq!(tags, [2, 3]);
/// ```
impl<'a, T> IntoIterator for &'a mut ReuseVec<T> {
    type Item = &'a mut T;
    type IntoIter = slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// The slice of live elements.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec![3, 1, 2]);
/// assert_eq!(tags.first(), Some(&3));
/// ```
impl<T> Deref for ReuseVec<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

/// The slice of live elements, mutably.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![3, 1, 2]);
/// tags.sort();
/// assert_eq!(tags, [1, 2, 3]);
/// ```
impl<T> DerefMut for ReuseVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

/// Indexes the live elements, as a slice does; out of bounds (a kept
/// element's index included) it panics.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec!["a", "b", "c"]);
/// assert_eq!(tags[1], "b");
/// assert_eq!(tags[1..], ["b", "c"]);
/// ```
impl<T, I: SliceIndex<[T]>> Index<I> for ReuseVec<T> {
    type Output = I::Output;

    fn index(&self, index: I) -> &I::Output {
        &self.as_slice()[index]
    }
}

/// Indexes the live elements mutably, as a slice does.
///
/// ```
/// let mut tags = pool_core::ReuseVec::from(vec![1, 2]);
/// tags[0] = 5;
/// assert_eq!(tags, [5, 2]);
/// ```
impl<T, I: SliceIndex<[T]>> IndexMut<I> for ReuseVec<T> {
    fn index_mut(&mut self, index: I) -> &mut I::Output {
        &mut self.as_mut_slice()[index]
    }
}

/// Clones the live elements; the clone keeps none. `clone_from` writes
/// into `self`'s elements, live and kept, with `T::clone_from`, and keeps
/// (resets) those it does not need, so copying a vector into one that held
/// as many allocates nothing new.
///
/// ```
/// let source = pool_core::ReuseVec::from(vec![String::from("a")]);
/// let mut target = pool_core::ReuseVec::from(vec![String::from("xy"), String::from("z")]);
/// target.clone_from(&source);
/// assert_eq!(target, source);
/// assert_eq!(target.kept(), 1);
/// assert_eq!(source.clone(), ["a"]);
/// ```
impl<T: Clone + Reset> Clone for ReuseVec<T> {
    fn clone(&self) -> Self {
        self.as_slice().to_vec().into()
    }

    fn clone_from(&mut self, source: &Self) {
        self.truncate(source.len);
        let reused = self.items.len().min(source.len);
        for (slot, value) in self.items[..reused].iter_mut().zip(source.iter()) {
            slot.clone_from(value);
        }
        self.items.extend_from_slice(&source[reused..]);
        self.len = source.len;
    }
}

/// Lists the live elements, as a `Vec` does; [`ReuseVec::kept`] counts the
/// others.
///
/// ```
/// let tags = pool_core::ReuseVec::from(vec![1, 2]);
/// assert_eq!(format!("{tags:?}"), "[1, 2]");
/// ```
impl<T: fmt::Debug> fmt::Debug for ReuseVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Equal when the live elements are; kept elements do not count.
///
/// ```
/// let mut a = pool_core::ReuseVec::from(vec![String::from("a"), String::from("b")]);
/// a.truncate(1);
/// assert_eq!(a, pool_core::ReuseVec::from(vec![String::from("a")]));
/// ```
impl<T: PartialEq<U>, U> PartialEq<ReuseVec<U>> for ReuseVec<T> {
    fn eq(&self, other: &ReuseVec<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// Equality of the live elements is an equivalence when `T`'s is.
///
/// ```
/// let a = pool_core::ReuseVec::from(vec![1]);
/// assert!(a == a.clone());
/// ```
impl<T: Eq> Eq for ReuseVec<T> {}

/// Hashes the live elements, as their slice does.
///
/// ```
/// use std::collections::HashSet;
///
/// let set: HashSet<_> = [pool_core::ReuseVec::from(vec![1, 2])].into_iter().collect();
/// assert!(set.contains(&pool_core::ReuseVec::from(vec![1, 2])));
/// ```
impl<T: Hash> Hash for ReuseVec<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

macro_rules! impl_partial_eq_with {
    ($([$($params:tt)*] $rhs:ty),* $(,)?) => {
        $(
            /// Equal when the live elements equal the other's elements.
            ///
            /// ```
            /// let tags = pool_core::ReuseVec::from(vec![1, 2]);
            /// assert_eq!(tags, [1, 2]);
            /// assert_eq!(tags, vec![1, 2]);
            /// assert_eq!(tags, &[1, 2][..]);
            /// ```
            impl<$($params)* T: PartialEq<U>, U> PartialEq<$rhs> for ReuseVec<T> {
                fn eq(&self, other: &$rhs) -> bool {
                    self.as_slice() == &other[..]
                }
            }
        )*
    };
}

impl_partial_eq_with!([] Vec<U>, [] [U], ['b,] &'b [U], [const N: usize,] [U; N]);
