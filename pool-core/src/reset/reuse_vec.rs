//! [`ReuseVec`]: a vector whose reset keeps its elements, not only its
//! buffer, so that a pooled object with a list of parts (an order's line
//! items, a message's repeated fields) gets its parts back on the next use,
//! each with the buffers it grew.
//!
//! `Vec<T>`'s [`Reset`] clears it: the buffer stays, but every element is
//! dropped, so a `Vec<LineItem>` whose items hold `String`s allocates them
//! all again on the next fill. A `ReuseVec<T>` resets its elements in place
//! instead and keeps them past its length, where [`ReuseVec::push_reused`]
//! and in-place decoding (feature `serde`) find them. It is the idea of
//! protobuf's C++ `RepeatedPtrField`, which keeps cleared messages for the
//! next parse.
//!
//! Invariant: the elements are one `Vec<T>`, the live ones first; `len` of
//! them are live, what the slice, the iterators and the traits (`PartialEq`,
//! `Debug`, `Serialize`) show; the others are *kept*, each reset with
//! [`Reset::reset`] since its last use, and nothing reads them until a push
//! makes one live again. Only what removes live elements without giving
//! them to the caller (`truncate`, `clear`, `reset`) keeps them, so every
//! method that does so needs `T: Reset`; `pop` hands its element out, and a
//! push by value drops the kept element whose slot it takes, so the number
//! held never exceeds the largest length the vector had.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut, Index, IndexMut};
use std::slice::{self, SliceIndex};

use super::Reset;

/// A vector whose [`reset`](Reset::reset) keeps its elements for reuse:
/// it becomes empty, and each element is reset in place and kept, so the
/// next fill gets them back with their buffers, through
/// [`push_reused`](ReuseVec::push_reused) or in-place decoding (feature
/// `serde`).
///
/// It dereferences to the slice of its live elements, `[T]`, and has the
/// `Vec` methods a fill needs. [`truncate`](ReuseVec::truncate) and
/// [`clear`](ReuseVec::clear) keep what they remove, as `reset` does;
/// [`pop`](ReuseVec::pop) hands its element out; [`push`](ReuseVec::push)
/// takes a kept element's slot and drops that element, so push by value
/// only what you have made anyway. As a field of a derived struct,
/// `#[pool(max_capacity = N)]` bounds how many elements it keeps.
///
/// ```
/// use pool_core::{Reset, ReuseVec};
///
/// let mut tags: ReuseVec<String> = ReuseVec::new();
/// tags.push_reused().push_str("urgent");
/// tags.push_reused().push_str("gift");
/// let first = tags[0].as_ptr();
///
/// tags.reset(); // empty, both strings kept (cleared, buffers and all)
/// assert!(tags.is_empty());
/// assert_eq!(tags.kept(), 2);
///
/// tags.push_reused().push_str("fragile"); // no allocation: a kept string
/// assert_eq!(tags, ["fragile"]);
/// assert_eq!(tags[0].as_ptr(), first);
/// ```
pub struct ReuseVec<T> {
    /// The live elements, then the kept ones.
    items: Vec<T>,
    /// How many of `items` are live: `len <= items.len()`.
    len: usize,
}

impl<T> ReuseVec<T> {
    /// An empty vector, which allocates nothing until an element is pushed.
    ///
    /// ```
    /// let tags: pool_core::ReuseVec<String> = pool_core::ReuseVec::new();
    /// assert!(tags.is_empty());
    /// assert_eq!(tags.capacity(), 0);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        ReuseVec {
            items: Vec::new(),
            len: 0,
        }
    }

    /// An empty vector with room for at least `capacity` elements, live and
    /// kept together, before it reallocates.
    ///
    /// ```
    /// let tags: pool_core::ReuseVec<String> = pool_core::ReuseVec::with_capacity(8);
    /// assert!(tags.capacity() >= 8);
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        ReuseVec {
            items: Vec::with_capacity(capacity),
            len: 0,
        }
    }

    /// The number of live elements.
    ///
    /// ```
    /// let tags = pool_core::ReuseVec::from(vec!["a", "b"]);
    /// assert_eq!(tags.len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no live element (kept ones do not count).
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![String::from("a")]);
    /// tags.clear();
    /// assert!(tags.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of kept elements: reset, waiting for
    /// [`push_reused`](ReuseVec::push_reused) or a decode to use them again.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![String::from("a"), String::from("b")]);
    /// tags.truncate(1);
    /// assert_eq!((tags.len(), tags.kept()), (1, 1));
    /// ```
    #[must_use]
    pub fn kept(&self) -> usize {
        self.items.len() - self.len
    }

    /// How many elements, live and kept, the buffer holds before it
    /// reallocates.
    ///
    /// ```
    /// let tags: pool_core::ReuseVec<u32> = pool_core::ReuseVec::with_capacity(4);
    /// assert!(tags.capacity() >= 4);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.items.capacity()
    }

    /// The live elements.
    ///
    /// ```
    /// let tags = pool_core::ReuseVec::from(vec![1, 2]);
    /// assert_eq!(tags.as_slice(), &[1, 2]);
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }

    /// The live elements, mutably.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![1, 2]);
    /// tags.as_mut_slice()[0] = 7;
    /// assert_eq!(tags, [7, 2]);
    /// ```
    #[must_use]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..self.len]
    }

    /// An iterator over the live elements.
    ///
    /// ```
    /// let tags = pool_core::ReuseVec::from(vec![1, 2, 3]);
    /// assert_eq!(tags.iter().sum::<i32>(), 6);
    /// ```
    pub fn iter(&self) -> slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// An iterator over the live elements, mutably.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![1, 2, 3]);
    /// tags.iter_mut().for_each(|n| *n *= 10);
    /// assert_eq!(tags, [10, 20, 30]);
    /// ```
    pub fn iter_mut(&mut self) -> slice::IterMut<'_, T> {
        self.as_mut_slice().iter_mut()
    }

    /// Appends `value`. If an element is kept in the slot it goes to, that
    /// element is dropped: to reuse it, use
    /// [`push_reused`](ReuseVec::push_reused) and fill it instead.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::new();
    /// tags.push("new");
    /// assert_eq!(tags, ["new"]);
    /// ```
    pub fn push(&mut self, value: T) {
        match self.items.get_mut(self.len) {
            Some(slot) => *slot = value,
            None => self.items.push(value),
        }
        self.len += 1;
    }

    /// Removes the last live element and returns it, or `None` if there is
    /// none. The kept elements stay kept.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec!["a", "b"]);
    /// assert_eq!(tags.pop(), Some("b"));
    /// assert_eq!(tags, ["a"]);
    /// ```
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // The last element of all, a kept one if any, takes the popped
        // element's slot: kept elements are in no particular order.
        Some(self.items.swap_remove(self.len))
    }

    /// Keeps at most `max` kept elements, dropping the others, and shrinks
    /// the buffer to the live elements and `max` if it is larger: what
    /// `#[pool(max_capacity = N)]` does on a derived struct's field after
    /// its reset, so that one outsized use does not stay outsized in the
    /// pool. Live elements are never dropped.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![String::new(); 100]);
    /// tags.truncate(1); // 99 kept
    /// tags.shrink_kept_to(8);
    /// assert_eq!((tags.len(), tags.kept()), (1, 8));
    /// assert!(tags.capacity() < 100);
    /// ```
    pub fn shrink_kept_to(&mut self, max: usize) {
        let bound = self.len.saturating_add(max);
        self.items.truncate(bound);
        if self.items.capacity() > bound {
            self.items.shrink_to(bound);
        }
    }
}

impl<T: Reset> ReuseVec<T> {
    /// Appends an element and returns it to be filled: a kept element,
    /// already reset, if there is one, else a new `T::default()`. With a
    /// `T` whose reset gives what `default` makes (the std types, and any
    /// derived struct), the element is as new either way; only a kept one
    /// comes with buffers.
    ///
    /// ```
    /// use pool_core::ReuseVec;
    ///
    /// let mut lines: ReuseVec<Vec<u8>> = ReuseVec::new();
    /// lines.push_reused().extend_from_slice(b"GET / HTTP/1.1");
    /// lines.clear(); // the line is kept, emptied
    /// let line = lines.push_reused();
    /// assert!(line.is_empty() && line.capacity() >= 14);
    /// ```
    pub fn push_reused(&mut self) -> &mut T
    where
        T: Default,
    {
        if self.len == self.items.len() {
            self.items.push(T::default());
        }
        self.len += 1;
        &mut self.items[self.len - 1]
    }

    /// Shortens the vector to `len` live elements; the removed ones are
    /// reset and kept, not dropped. Does nothing if `len` is not less than
    /// the length.
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![String::from("a"), String::from("b")]);
    /// tags.truncate(1);
    /// assert_eq!(tags, ["a"]);
    /// assert_eq!(tags.kept(), 1);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.items[len..self.len].iter_mut().for_each(T::reset);
            self.len = len;
        }
    }

    /// Removes every live element; each is reset and kept, not dropped:
    /// the same as [`reset`](Reset::reset).
    ///
    /// ```
    /// let mut tags = pool_core::ReuseVec::from(vec![String::from("a")]);
    /// tags.clear();
    /// assert!(tags.is_empty());
    /// assert_eq!(tags.kept(), 1);
    /// ```
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Fills the vector from `source`, in place, for in-place decoding
    /// (`crate::serde`): the slots first, live and kept, each element
    /// written over the one there; then new elements, once every slot is
    /// used. The live length becomes the number of elements the source
    /// had; live elements it did not reach are reset and kept.
    ///
    /// On an error the slot being filled counts as live, so that it is
    /// reset with the others rather than kept half-filled; every slot past
    /// the length is then one the fill did not touch.
    #[cfg(feature = "serde")]
    pub(crate) fn refill<S: Refill<T>>(&mut self, source: &mut S) -> Result<(), S::Error> {
        let live = self.len;
        let mut filled = 0;
        while filled < self.items.len() {
            self.len = live.max(filled + 1);
            if !source.fill(&mut self.items[filled])? {
                // The source ended before this slot: it was not touched.
                self.len = live.max(filled);
                self.truncate(filled);
                return Ok(());
            }
            filled += 1;
        }
        self.len = filled;
        while let Some(value) = source.make()? {
            self.items.push(value);
            self.len += 1;
        }
        Ok(())
    }
}

/// Where [`ReuseVec::refill`] takes its elements from: a serde sequence,
/// element by element (`crate::serde`).
#[cfg(feature = "serde")]
pub(crate) trait Refill<T> {
    /// What a failed element returns.
    type Error;

    /// Writes the next element over `slot`; `false` if there is none, and
    /// then `slot` is untouched.
    fn fill(&mut self, slot: &mut T) -> Result<bool, Self::Error>;

    /// The next element, made new; `None` if there is none.
    fn make(&mut self) -> Result<Option<T>, Self::Error>;
}

/// Clears it: each live element is reset in place and kept.
impl<T: Reset> Reset for ReuseVec<T> {
    #[inline]
    fn reset(&mut self) {
        self.clear();
    }
}

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

#[cfg(test)]
mod tests;
