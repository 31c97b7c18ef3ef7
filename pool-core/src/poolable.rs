//! [`Poolable`]: a type with its own pool, so that `T::acquire()` works.
//!
//! Invariant: `T::acquire()` is exactly `T::pool().acquire()`; the trait adds
//! a name for the pool, not a second way to reach it.

use crate::Pool;
use crate::pool::guard::Pooled;
use crate::reset::Reset;

/// A type with its own static pool, so that `T::acquire()` hands out a
/// pooled `T`.
///
/// Derive it with `#[derive(Poolable)]`, which also derives [`Reset`]
/// field by field. To implement it by hand (for a type whose reset the
/// derive cannot express, or a concrete instance of a generic type), declare
/// the pool with [`pool!`](crate::pool!) inside `pool`:
///
/// ```
/// use pool_core::{Pool, Poolable, Reset, pool};
///
/// struct Scratch {
///     bytes: Vec<u8>,
/// }
///
/// impl Reset for Scratch {
///     fn reset(&mut self) {
///         self.bytes.clear();
///     }
/// }
///
/// impl Poolable for Scratch {
///     fn create() -> Self {
///         Scratch { bytes: Vec::with_capacity(1024) }
///     }
///
///     fn pool() -> &'static Pool<Self> {
///         pool! {
///             static POOL: Pool<Scratch> = Pool::new(Scratch::create).capacity(64);
///         }
///         &POOL
///     }
/// }
///
/// let mut scratch = Scratch::acquire();
/// scratch.bytes.push(1);
/// ```
///
/// A foreign type such as `Vec<u8>` cannot implement `Poolable` outside this
/// crate (Rust's orphan rule); declare a named pool for it with
/// [`pool!`](crate::pool!) instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no pool of its own, so it cannot be acquired or decoded by its type",
    label = "`{Self}` does not implement `Poolable`",
    note = "derive `Poolable` for your own types; for a pool declared with `pool!`, acquire from the pool (`POOL.acquire()`), or decode with the pool as a seed: `(&POOL).deserialize(deserializer)` (serde's `DeserializeSeed`)"
)]
pub trait Poolable: Reset + Sized + Send + 'static {
    /// Makes a new object, for when the pool has no idle one. The pool calls
    /// it; users call [`acquire`](Poolable::acquire).
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// struct Frame {
    ///     bytes: Vec<u8>,
    /// }
    ///
    /// impl Reset for Frame {
    ///     fn reset(&mut self) {
    ///         self.bytes.clear();
    ///     }
    /// }
    ///
    /// impl Poolable for Frame {
    ///     fn create() -> Self {
    ///         Frame { bytes: Vec::with_capacity(4096) } // sized once, kept by reset
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Frame> = Pool::new(Frame::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// let frame = Frame::acquire(); // the pool is empty: made by `create`
    /// assert!(frame.bytes.capacity() >= 4096);
    /// ```
    fn create() -> Self;

    /// The type's pool. Implementations return a reference to a `static`
    /// declared with [`pool!`](crate::pool!).
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// #[derive(Default)]
    /// struct Line(String);
    ///
    /// impl Reset for Line {
    ///     fn reset(&mut self) {
    ///         self.0.clear();
    ///     }
    /// }
    ///
    /// impl Poolable for Line {
    ///     fn create() -> Self {
    ///         Line::default()
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Line> = Pool::new(Line::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// drop(Line::acquire());
    /// let stats = Line::pool().stats(); // the pool's own counters
    /// assert_eq!((stats.created, stats.idle), (1, 1));
    /// ```
    fn pool() -> &'static Pool<Self>;

    /// Takes an object from the type's pool (or makes one) and returns it in
    /// a guard that resets and returns it when dropped.
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// #[derive(Default)]
    /// struct Counter(u32);
    ///
    /// impl Reset for Counter {
    ///     fn reset(&mut self) {
    ///         self.0 = 0;
    ///     }
    /// }
    ///
    /// impl Poolable for Counter {
    ///     fn create() -> Self {
    ///         Counter::default()
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Counter> = Pool::new(Counter::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// let mut c = Counter::acquire();
    /// c.0 += 1;
    /// drop(c);
    /// assert_eq!(Counter::acquire().0, 0); // reset on return
    /// ```
    #[inline]
    fn acquire() -> Pooled<Self> {
        Self::pool().acquire()
    }
}
