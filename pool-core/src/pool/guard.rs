//! [`Pooled`], the guard that returns an object to its pool, and
//! [`Home`], the one kind of thing a guard points to.
//!
//! Invariant: a guard's [`Home`] outlives the guard. The guard gives it up
//! with exactly one call, [`Home::release`] (the object goes back) or
//! [`Home::abandon`] (it does not); nothing of the pool is used after that
//! call returns. What keeps a home alive is the home's own business, stated
//! on [`Home`]: the guard holds no reference count and knows no pool type.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use crate::engine::erased::{Boxed, Erased};
use crate::reset::Reset;

/// Where a guard's object goes back: the one thing a [`Pooled`] points to.
///
/// A `Home` is the first field of a `#[repr(C)]` container whose type its
/// two functions know, and which they reach by casting the pointer they are
/// given:
/// - a static pool's [`Pool`](crate::Pool), which lives for ever;
/// - a run-time pool's [`Pool`](crate::Pool), first in the pool's
///   allocation, for a guard that holds a strong count on that allocation;
/// - a thread's share of a run-time pool, for a guard counted out by that
///   share (`crate::pool::runtime::share`).
///
/// Invariant: the container lives until the guard's one call to `release`
/// or `abandon` has returned; that call gives back whatever the guard held
/// to keep it alive.
#[doc(hidden)]
pub struct Home<T: Reset + Send + 'static> {
    /// Resets the object, runs the pool's `retain` test, caches or stores
    /// it, then gives back the guard's hold. The [`Released`] token is the
    /// proof that a guard is calling: only this module makes one.
    pub(crate) release: fn(NonNull<Home<T>>, Released<T>),
    /// Ends a guard whose object does not come back: `Some` is dropped,
    /// counted as discarded (a panic, [`Pooled::discard`]); `None` was
    /// taken out ([`Pooled::into_inner`]), counted as detached. Then gives
    /// back the guard's hold.
    pub(crate) abandon: fn(NonNull<Home<T>>, Abandoned<T>),
}

/// An object a guard gives back, as [`Home::release`] takes it.
#[doc(hidden)]
pub struct Released<T>(pub(crate) Boxed<T>);

/// What a guard that does not give its object back hands its home, as
/// [`Home::abandon`] takes it.
/// The object is erased already (a `Boxed<T>` of the home's `T`): every
/// pool gives it to the one `abandon` (`PoolCore::abandon`).
pub(crate) struct Abandoned<T>(Option<Erased>, PhantomData<fn() -> T>);

impl<T> Abandoned<T> {
    /// The object, erased, for the pools' one `abandon`
    /// (`PoolCore::abandon`).
    #[inline]
    pub(crate) fn erase(self) -> Option<Erased> {
        self.0
    }
}

impl<T> fmt::Debug for Released<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Released")
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for Home<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Home")
    }
}

impl<T: Reset + Send + 'static> Clone for Home<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Reset + Send + 'static> Copy for Home<T> {}

/// An object on loan from a [`Pool`](crate::Pool). Dereferences to the object; when
/// dropped, resets it and returns it to the pool (a pool that
/// [resets on acquire](crate::PoolConfig::reset_on_acquire) returns it as
/// it is, and resets it when it is next acquired).
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
    /// Where the object goes back, valid until the guard's one call to
    /// its `release` or `abandon` ([`Home`]'s invariant).
    home: NonNull<Home<T>>,
}

// SAFETY: the guard owns a `T: Send` and points to a home, which is
// reached only through `Sync` pools; its hold on a run-time pool may be
// given back from any thread.
unsafe impl<T: Reset + Send + 'static> Send for Pooled<T> {}
// SAFETY: `&Pooled<T>` gives only `&T` (and `T: Sync`) and nothing of the
// home.
unsafe impl<T: Reset + Send + Sync + 'static> Sync for Pooled<T> {}

impl<T: Reset + Send + 'static> Pooled<T> {
    /// # Safety
    ///
    /// `home` must satisfy [`Home`]'s invariant for this guard: it stays
    /// valid until the guard's call to its `release` or `abandon`, and the
    /// caller has taken whatever hold that call gives back.
    #[inline]
    pub(crate) unsafe fn new(value: Boxed<T>, home: NonNull<Home<T>>) -> Self {
        Pooled {
            value: ManuallyDrop::new(value),
            home,
        }
    }

    /// Gives the guard up through its home's `abandon`.
    #[inline]
    fn abandon(home: NonNull<Home<T>>, value: Option<Erased>) {
        // SAFETY: valid until this call (`Home`'s invariant); the function
        // pointer is copied out before the call.
        let abandon = unsafe { home.as_ref() }.abandon;
        abandon(home, Abandoned(value, PhantomData));
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
        // SAFETY: `this.value` is initialized (it is only taken here and in
        // `drop`), and `this` is wrapped in `ManuallyDrop`, so `drop` will
        // not run and take it a second time, and nothing reads it after.
        let value = unsafe { ManuallyDrop::take(&mut this.value) };
        Self::abandon(this.home, None);
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
        Self::abandon(this.home, Some(Erased::new(value)));
    }
}

impl<T: Reset + Send + 'static> Drop for Pooled<T> {
    #[inline]
    fn drop(&mut self) {
        // Asked before the object is taken out, so that no cleanup of it is
        // compiled for the call (one per pooled type).
        let panicking = std::thread::panicking();
        // SAFETY: `self.value` is initialized (only `into_inner` takes it
        // otherwise, and it suppresses this destructor), and `drop` runs at
        // most once, so nothing reads the field after this.
        let value = unsafe { ManuallyDrop::take(&mut self.value) };
        if panicking {
            Self::abandon(self.home, Some(Erased::new(value)));
        } else {
            // SAFETY: valid until this call (`Home`'s invariant); the
            // function pointer is copied out before the call.
            let release = unsafe { self.home.as_ref() }.release;
            release(self.home, Released(value));
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
