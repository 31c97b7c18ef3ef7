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
//!
//! The type, its methods and in-place refilling are here; its std traits
//! (conversions, iterators, `Deref`, indexing, `Clone`, equality) in
//! `std_traits`.

use std::slice;

use super::{Heap, Reset, buffer_bytes};

mod std_traits;

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
        self.len = self.len.checked_sub(1)?;
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
        self.items.shrink_to(bound);
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
    pub(crate) fn refill<'de, A>(&mut self, mut source: A) -> Result<(), A::Error>
    where
        T: ::serde::Deserialize<'de>,
        A: ::serde::de::SeqAccess<'de>,
    {
        let live = self.len;
        let mut filled = 0;
        while filled < self.items.len() {
            self.len = live.max(filled + 1);
            let slot = InPlaceSeed(&mut self.items[filled]);
            if source.next_element_seed(slot)?.is_none() {
                // The source ended before this slot: it was not touched.
                self.len = live.max(filled);
                self.truncate(filled);
                return Ok(());
            }
            filled += 1;
        }
        self.len = filled;
        while let Some(value) = source.next_element()? {
            self.items.push(value);
            self.len += 1;
        }
        Ok(())
    }
}

/// Decodes one element over the `T` it holds, with `T::deserialize_in_place`.
#[cfg(feature = "serde")]
struct InPlaceSeed<'a, T>(&'a mut T);

#[cfg(feature = "serde")]
impl<'de, T: ::serde::Deserialize<'de>> ::serde::de::DeserializeSeed<'de> for InPlaceSeed<'_, T> {
    type Value = ();

    fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::deserialize_in_place(deserializer, self.0)
    }
}

/// Clears it: each live element is reset in place and kept. Its bytes are
/// its buffer's and every element's, live and kept; it shrinks by dropping
/// kept elements, the last first, until the rest fits, then its buffer.
impl<T: Reset> Reset for ReuseVec<T> {
    const HEAP: Heap = Heap::Counted;

    #[inline]
    fn reset(&mut self) {
        self.clear();
    }

    #[inline]
    fn heap_bytes(&mut self) -> usize {
        buffer_bytes::<T>(self.items.capacity()) + <[T]>::heap_bytes(&mut self.items)
    }

    fn shrink_to_bytes(&mut self, max: usize) -> usize {
        let mut bytes = self.heap_bytes();
        if bytes <= max {
            return bytes;
        }
        // Kept elements go first, from the end, each with its own bytes.
        while bytes > max && self.items.len() > self.len {
            if let Some(mut item) = self.items.pop() {
                bytes -= item.heap_bytes();
            }
        }
        // Then the buffer, down to what the remaining budget pays for (and
        // never below the elements it holds).
        let elements = bytes - buffer_bytes::<T>(self.items.capacity());
        let slots = max.saturating_sub(elements) / size_of::<T>().max(1);
        self.items.shrink_to(slots);
        // Live elements (none, after a reset) shrink last, each to what is left.
        let own = buffer_bytes::<T>(self.items.capacity());
        own + <[T]>::shrink_to_bytes(&mut self.items, max.saturating_sub(own))
    }
}

#[cfg(test)]
mod tests;
