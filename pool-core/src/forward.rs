//! The standard traits [`Pooled<T>`] forwards to `T`, so that a guard goes
//! where the value would: writers, readers, comparisons, hashing, `Borrow`,
//! `Extend` and iteration by reference.
//!
//! Invariant: every impl here behaves exactly as `T`'s own, on the object
//! the guard holds; comparisons and hashing agree with `T`'s, which is what
//! makes `Borrow<T>` sound for hashed and ordered collections.

use std::borrow::{Borrow, BorrowMut};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::io;

use crate::pool::guard::Pooled;
use crate::reset::Reset;

/// Impls of a trait whose methods take `&mut self`, each method `T`'s own:
/// not the trait's default built on another (`write_all` on `write`), which
/// `T` may do better.
macro_rules! forward_mut {
    ($($(#[$doc:meta])* impl $trait:path {
        $(fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*) $(-> $ret:ty)?;)*
    })*) => {$(
        $(#[$doc])*
        impl<T: Reset + Send + $trait + 'static> $trait for Pooled<T> {
            $(fn $name(&mut self $(, $arg: $ty)*) $(-> $ret)? {
                (**self).$name($($arg),*)
            })*
        }
    )*};
}

forward_mut! {
    /// Writes to the object: `write!` and `serde_json::to_writer` into a pooled
    /// buffer.
    ///
    /// ```
    /// use std::io::Write;
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let mut out = BUFFERS.acquire();
    /// write!(out, "{} + {} = {}", 1, 2, 1 + 2)?;
    /// assert_eq!(&out[..], b"1 + 2 = 3");
    ///
    /// let mut json = BUFFERS.acquire();
    /// serde_json::to_writer(&mut json, &[1, 2, 3])?;
    /// assert_eq!(&json[..], b"[1,2,3]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    impl io::Write {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize>;
        fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
        fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize>;
        fn flush(&mut self) -> io::Result<()>;
    }
    /// Reads from the object.
    ///
    /// ```
    /// use std::collections::VecDeque;
    /// use std::io::Read;
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static INPUTS: Pool<VecDeque<u8>> = Pool::new(VecDeque::new); }
    ///
    /// let mut input = INPUTS.acquire();
    /// input.extend(b"hello");
    /// let mut text = String::new();
    /// input.read_to_string(&mut text)?;
    /// assert_eq!(text, "hello");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    impl io::Read {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
        fn read_to_end(&mut self, buf: &mut Vec<u8>) -> io::Result<usize>;
        fn read_to_string(&mut self, buf: &mut String) -> io::Result<usize>;
        fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()>;
    }
    /// Reads lines from the object.
    ///
    /// ```
    /// use std::collections::VecDeque;
    /// use std::io::BufRead;
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static INPUTS: Pool<VecDeque<u8>> = Pool::new(VecDeque::new); }
    ///
    /// let mut input = INPUTS.acquire();
    /// input.extend(b"one\ntwo\n");
    /// let lines: Vec<String> = (&mut input).lines().collect::<Result<_, _>>()?;
    /// assert_eq!(lines, ["one", "two"]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    impl io::BufRead {
        fn fill_buf(&mut self) -> io::Result<&[u8]>;
        fn consume(&mut self, amount: usize);
    }
    /// Formats into the object: `write!` into a pooled `String`.
    ///
    /// ```
    /// use std::fmt::Write;
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static LINES: Pool<String> = Pool::new(String::new); }
    ///
    /// let mut line = LINES.acquire();
    /// write!(line, "{}-{}", "a", 1)?;
    /// assert_eq!(*line, "a-1");
    /// # Ok::<(), std::fmt::Error>(())
    /// ```
    impl fmt::Write {
        fn write_str(&mut self, s: &str) -> fmt::Result;
        fn write_char(&mut self, c: char) -> fmt::Result;
    }
}

/// Compares the objects two guards hold.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static NAMES: Pool<String> = Pool::new(String::new); }
///
/// let (mut a, mut b) = (NAMES.acquire(), NAMES.acquire());
/// a.push_str("ada");
/// b.push_str("ada");
/// assert_eq!(a, b);
/// b.push('!');
/// assert!(a < b);
/// ```
impl<T, U> PartialEq<Pooled<U>> for Pooled<T>
where
    T: Reset + Send + PartialEq<U> + 'static,
    U: Reset + Send + 'static,
{
    fn eq(&self, other: &Pooled<U>) -> bool {
        **self == **other
    }
}

impl<T: Reset + Send + Eq + 'static> Eq for Pooled<T> {}

impl<T, U> PartialOrd<Pooled<U>> for Pooled<T>
where
    T: Reset + Send + PartialOrd<U> + 'static,
    U: Reset + Send + 'static,
{
    fn partial_cmp(&self, other: &Pooled<U>) -> Option<Ordering> {
        (**self).partial_cmp(&**other)
    }
}

/// Orders guards by their objects, as `T` orders them.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static NUMBERS: Pool<Vec<u32>> = Pool::new(Vec::new); }
///
/// let mut guards: Vec<_> = [3, 1, 2]
///     .into_iter()
///     .map(|n| {
///         let mut v = NUMBERS.acquire();
///         v.push(n);
///         v
///     })
///     .collect();
/// guards.sort();
/// assert_eq!(guards.iter().map(|v| v[0]).collect::<Vec<_>>(), [1, 2, 3]);
/// ```
impl<T: Reset + Send + Ord + 'static> Ord for Pooled<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (**self).cmp(&**other)
    }
}

/// Compares a guard with a plain value of its type.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static NAMES: Pool<String> = Pool::new(String::new); }
///
/// let mut name = NAMES.acquire();
/// name.push_str("ada");
/// assert!(name == String::from("ada"));
/// assert!(name < String::from("bob"));
/// ```
impl<T: Reset + Send + PartialEq + 'static> PartialEq<T> for Pooled<T> {
    fn eq(&self, other: &T) -> bool {
        **self == *other
    }
}

impl<T: Reset + Send + PartialOrd + 'static> PartialOrd<T> for Pooled<T> {
    fn partial_cmp(&self, other: &T) -> Option<Ordering> {
        (**self).partial_cmp(other)
    }
}

/// Hashes the object, as `T` does: a guard and its object hash alike, so a
/// `HashSet<Pooled<T>>` can be looked up with a `&T` (see `Borrow`).
///
/// ```
/// use std::collections::HashSet;
/// use pool_core::{Pool, pool};
///
/// pool! { static WORDS: Pool<String> = Pool::new(String::new); }
///
/// let mut word = WORDS.acquire();
/// word.push_str("pool");
/// let mut seen = HashSet::new();
/// seen.insert(word);
/// assert!(seen.contains(&String::from("pool")));
/// ```
impl<T: Reset + Send + Hash + 'static> Hash for Pooled<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

/// Borrows the object. Sound for hashed and ordered collections because
/// `Pooled<T>`'s `Eq`, `Ord` and `Hash` are `T`'s.
///
/// ```
/// use std::borrow::Borrow;
/// use pool_core::{Pool, pool};
///
/// pool! { static NAMES: Pool<String> = Pool::new(String::new); }
///
/// fn len(name: impl Borrow<String>) -> usize {
///     name.borrow().len()
/// }
///
/// let mut name = NAMES.acquire();
/// name.push_str("ada");
/// assert_eq!(len(name), 3);
/// ```
impl<T: Reset + Send + 'static> Borrow<T> for Pooled<T> {
    fn borrow(&self) -> &T {
        self
    }
}

/// Borrows the object mutably.
///
/// ```
/// use std::borrow::BorrowMut;
/// use pool_core::{Pool, pool};
///
/// pool! { static NAMES: Pool<String> = Pool::new(String::new); }
///
/// let mut name = NAMES.acquire();
/// let inner: &mut String = name.borrow_mut();
/// inner.push_str("ada");
/// assert_eq!(*name, "ada");
/// ```
impl<T: Reset + Send + 'static> BorrowMut<T> for Pooled<T> {
    fn borrow_mut(&mut self) -> &mut T {
        self
    }
}

/// Extends the object.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
///
/// let mut ids = IDS.acquire();
/// ids.extend([1, 2, 3]);
/// assert_eq!(*ids, [1, 2, 3]);
/// ```
impl<T: Reset + Send + Extend<A> + 'static, A> Extend<A> for Pooled<T> {
    fn extend<I: IntoIterator<Item = A>>(&mut self, iter: I) {
        (**self).extend(iter);
    }
}

/// Iterates over the object by reference.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
///
/// let mut ids = IDS.acquire();
/// ids.extend([1, 2, 3]);
/// let mut sum = 0;
/// for id in &ids {
///     sum += id;
/// }
/// assert_eq!(sum, 6);
/// ```
impl<'a, T: Reset + Send + 'static> IntoIterator for &'a Pooled<T>
where
    &'a T: IntoIterator,
{
    type Item = <&'a T as IntoIterator>::Item;
    type IntoIter = <&'a T as IntoIterator>::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        (**self).into_iter()
    }
}

/// Iterates over the object by mutable reference.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! { static IDS: Pool<Vec<u64>> = Pool::new(Vec::new); }
///
/// let mut ids = IDS.acquire();
/// ids.extend([1, 2, 3]);
/// for id in &mut ids {
///     *id *= 10;
/// }
/// assert_eq!(*ids, [10, 20, 30]);
/// ```
impl<'a, T: Reset + Send + 'static> IntoIterator for &'a mut Pooled<T>
where
    &'a mut T: IntoIterator,
{
    type Item = <&'a mut T as IntoIterator>::Item;
    type IntoIter = <&'a mut T as IntoIterator>::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        (**self).into_iter()
    }
}
