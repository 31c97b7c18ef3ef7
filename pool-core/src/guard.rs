//! [`Pooled`], the guard that returns an object to its pool.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::Pool;
use crate::padded::Boxed;
use crate::pool::Unref;
use crate::reset::Reset;

/// An object on loan from a [`Pool`]. Dereferences to the object; when
/// dropped, resets it and returns it to the pool.
///
/// If the guard is dropped while its thread is panicking, the object is
/// dropped instead of returned: a panic may have left it half-updated, and
/// the pool never hands out an object in an unknown state. The same holds
/// if `reset` itself panics.
///
/// The guard's own operations are associated functions
/// ([`Pooled::into_inner`], [`Pooled::discard`]), not methods, so they
/// never hide a method of `T`.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, Pooled, pool};
///
/// pool! { static POOL: Pool<Vec<u32>> = Pool::new(Vec::new); }
///
/// let mut v: Pooled<Vec<u32>> = POOL.acquire();
/// v.push(7); // `Vec` methods through `DerefMut`
/// assert_eq!(v.len(), 1);
/// ```
pub struct Pooled<T: Reset + Send + 'static> {
    /// Always initialized, except inside `drop` and `into_inner`, which take
    /// it exactly once and then never touch the guard again.
    value: ManuallyDrop<Boxed<T>>,
    /// A static pool, or a run-time pool on which the guard holds a count
    /// (given back by the pool's `release`, or by [`Pool::unref`]), so the
    /// pool lives at least as long as the guard.
    pool: NonNull<Pool<T>>,
}

// SAFETY: the guard owns a `T: Send` and points to a pool, which is `Sync`;
// its count on a run-time pool may be given back from any thread.
unsafe impl<T: Reset + Send + 'static> Send for Pooled<T> {}
// SAFETY: `&Pooled<T>` gives only `&T` (and `T: Sync`) and nothing of the
// pool but what `&Pool<T>` gives, which is `Sync`.
unsafe impl<T: Reset + Send + Sync + 'static> Sync for Pooled<T> {}

impl<T: Reset + Send + 'static> Pooled<T> {
    /// # Safety
    ///
    /// `pool` must stay valid until the guard gives it up: a static pool,
    /// or a run-time pool on which the caller has taken a count for the
    /// guard.
    #[inline]
    pub(crate) unsafe fn new(value: Boxed<T>, pool: NonNull<Pool<T>>) -> Self {
        Pooled {
            value: ManuallyDrop::new(value),
            pool,
        }
    }

    /// The guard's pool.
    #[inline(always)]
    fn pool(&self) -> &Pool<T> {
        // SAFETY: valid while the guard holds it (`Pooled::new`).
        unsafe { self.pool.as_ref() }
    }

    /// Takes the object out of the pool for good: it will not be reset or
    /// returned. The pool counts it as detached.
    ///
    /// ```
    /// use pool_core::{Pool, Pooled, pool};
    ///
    /// pool! { static POOL: Pool<String> = Pool::new(String::new); }
    ///
    /// let mut s = POOL.acquire();
    /// s.push_str("kept");
    /// let owned: String = Pooled::into_inner(s);
    /// assert_eq!(owned, "kept");
    /// assert_eq!(POOL.stats().detached, 1);
    /// ```
    pub fn into_inner(this: Self) -> T {
        let mut this = ManuallyDrop::new(this);
        this.pool().detach();
        // SAFETY: `this.value` is initialized (it is only taken here and in
        // `drop`), and `this` is wrapped in `ManuallyDrop`, so `drop` will
        // not run and take it a second time, and nothing reads it after.
        let value = unsafe { ManuallyDrop::take(&mut this.value) };
        // SAFETY: the guard is done with its pool.
        unsafe { Pool::unref(this.pool) };
        value.into_inner()
    }

    /// Drops the object instead of returning it: for an object its user
    /// knows is broken (a parser left mid-state, a buffer that grew too
    /// big). Its `reset` does not run. The pool counts it as
    /// [`discarded`](crate::Stats::discarded), as it counts an object whose
    /// guard is dropped during a panic.
    ///
    /// ```
    /// use pool_core::{Pool, Pooled, pool};
    ///
    /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let buf = POOL.acquire();
    /// Pooled::discard(buf);
    /// let stats = POOL.stats();
    /// assert_eq!((stats.discarded, stats.idle, stats.in_use()), (1, 0, 0));
    /// ```
    pub fn discard(this: Self) {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: as in `into_inner`: initialized, taken once, and `drop`
        // is suppressed by the `ManuallyDrop`.
        let value = unsafe { ManuallyDrop::take(&mut this.value) };
        // SAFETY: the guard is done with its pool once this is dropped.
        let _unref = unsafe { Unref::new(this.pool) };
        this.pool().discard(value);
    }
}

impl<T: Reset + Send + 'static> Drop for Pooled<T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `self.value` is initialized (only `into_inner` takes it
        // otherwise, and it suppresses this destructor), and `drop` runs at
        // most once, so nothing reads the field after this.
        let value = unsafe { ManuallyDrop::take(&mut self.value) };
        if std::thread::panicking() {
            // SAFETY: the guard is done with its pool once this is dropped.
            let _unref = unsafe { Unref::new(self.pool) };
            self.pool().discard(value);
        } else {
            // The release gives back a run-time pool's count itself.
            let release = self.pool().release;
            release(self.pool, crate::__private::Released(value));
        }
    }
}

impl<T: Reset + Send + 'static> Deref for Pooled<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Reset + Send + 'static> DerefMut for Pooled<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: Reset + Send + 'static> AsRef<T> for Pooled<T> {
    fn as_ref(&self) -> &T {
        &self.value
    }
}

impl<T: Reset + Send + 'static> AsMut<T> for Pooled<T> {
    fn as_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: Reset + Send + fmt::Debug + 'static> fmt::Debug for Pooled<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: Reset + Send + fmt::Display + 'static> fmt::Display for Pooled<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
