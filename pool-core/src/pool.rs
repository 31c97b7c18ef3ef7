//! [`Pool`], the handle a pool `static` holds: its fast paths, its
//! statistics, and the [`pool!`](crate::pool!) macro that declares one.
//!
//! Invariant: a `Pool` is immutable. What changes as the pool runs lives in
//! its [`PoolState`] and in its threads' [`LocalCache`]s, each a static of
//! its own, so the compiler can treat a pool `static` as a constant and fold
//! the thread-cache access into a direct thread-local access at every call
//! site that names the pool.
//!
//! Only the fast paths here are generic over `T`; a miss or an overflow
//! goes, with the object erased (`crate::padded::Erased`), to the
//! non-generic slow paths of the pool's core (`PoolCore::take_slow`,
//! `PoolCore::put_slow`), compiled once in pool-core rather than once per
//! pooled type.

use std::fmt;
use std::ptr::NonNull;

use crate::config::{PoolConfig, Retain};
use crate::epoch;
use crate::guard::Pooled;
use crate::local::LocalCache;
use crate::padded::{Boxed, Erased, drop_boxed};
use crate::reset::Reset;
use crate::runtime::OwnedCaches;
use crate::state::{PoolState, StateRef};
use crate::stats::Stats;
use crate::sync::{AtomicU64, LocalKey, Ordering};

/// A pool of reusable `T`s: per-thread caches in front of a bounded shared
/// store with a victim tier (the [crate docs](crate#how-it-works) draw the
/// tiers).
///
/// A `Pool` lives in a `static` declared with [`pool!`](crate::pool!), which
/// also gives it its per-thread cache; types that derive
/// [`Poolable`](crate::Poolable) get one declared for them.
/// [`acquire`](Pool::acquire) hands out a [`Pooled`] guard; dropping the
/// guard resets the object and returns it.
///
/// Capacities bound the memory a pool can pin: at most `capacity` idle
/// objects in the shared tiers, plus `thread_capacity` in each thread's
/// cache. [`rotate`](crate::rotate) ages idle objects out. Each object is
/// allocated with 48 bytes of padding after it, so that objects moving
/// between threads never share a cache line.
///
/// # Example
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     /// Scratch buffers for formatting.
///     static BUFFERS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(4096))
///         .capacity(64)
///         .thread_capacity(8);
/// }
///
/// let mut buf = BUFFERS.acquire();
/// buf.extend_from_slice(b"hello");
/// let first = buf.as_ptr();
/// drop(buf); // cleared and cached, its allocation kept
///
/// let buf = BUFFERS.acquire();
/// assert!(buf.is_empty());
/// assert_eq!(buf.as_ptr(), first); // the same buffer, reused
/// ```
pub struct Pool<T: Reset + Send + 'static> {
    pub(crate) config: PoolConfig<T>,
    local: Caches<T>,
    pub(crate) state: StateRef<T>,
    /// Returns an object to this pool: for a static, with this pool and its
    /// thread-local named statically (see
    /// [`release`](crate::__private::release)); for a run-time pool, then
    /// gives back the guard's count on the pool.
    pub(crate) release: fn(NonNull<Pool<T>>, crate::__private::Released<T>),
    /// For a run-time pool: gives back the count on the pool a guard holds
    /// (`crate::runtime`). `None` for a static.
    unref: Option<unsafe fn(NonNull<Pool<T>>)>,
}

/// Where a pool's per-thread caches live.
pub(crate) enum Caches<T: Reset + Send + 'static> {
    /// No thread cache (the loom models pass caches by hand).
    None,
    /// The `thread_local!` that `pool!` declares. A constant in a pool
    /// static, so the compiler folds the `match` on the fast paths away.
    Static(&'static LocalKey<LocalCache<T>>),
    /// A run-time pool's own per-object thread-locals.
    Owned(OwnedCaches<T>),
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Starts the declaration of a pool that makes new objects with `create`
    /// when it has no idle one, with [`DEFAULT_CAPACITY`](crate::DEFAULT_CAPACITY)
    /// and [`DEFAULT_THREAD_CAPACITY`](crate::DEFAULT_THREAD_CAPACITY).
    /// [`pool!`](crate::pool!) turns the returned [`PoolConfig`] into the
    /// pool, with its per-thread cache.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static LINES: Pool<String> = Pool::new(String::new); }
    ///
    /// let line = LINES.acquire();
    /// assert!(line.is_empty());
    /// ```
    ///
    /// A pool needs the statics that `pool!` declares, so a `static` of type
    /// `Pool` written without the macro is a type error, not a pool that
    /// silently runs without its thread cache:
    ///
    /// ```compile_fail,E0308
    /// use pool_core::Pool;
    ///
    /// static LINES: Pool<String> = Pool::new(String::new); // expected `Pool`, found `PoolConfig`
    /// ```
    // Not `Self`: a pool needs statics that only `pool!` can declare, so a
    // `static` of type `Pool` written without the macro fails to compile
    // rather than silently running without its thread cache.
    #[allow(clippy::new_ret_no_self)]
    pub const fn new(create: fn() -> T) -> PoolConfig<T> {
        PoolConfig::new(create)
    }

    /// Builds the pool [`pool!`](crate::pool!) declares, from its recipe and
    /// its statics.
    pub(crate) const fn from_parts(
        config: PoolConfig<T>,
        local: Option<&'static LocalKey<LocalCache<T>>>,
        state: &'static PoolState<T>,
        release: fn(NonNull<Pool<T>>, crate::__private::Released<T>),
    ) -> Self {
        Pool {
            config,
            local: match local {
                Some(key) => Caches::Static(key),
                None => Caches::None,
            },
            state: StateRef::from_static(state),
            release,
            unref: None,
        }
    }

    /// Builds a run-time pool's `Pool`, from pointers into its allocation.
    pub(crate) fn owned(
        config: PoolConfig<T>,
        caches: OwnedCaches<T>,
        state: StateRef<T>,
        release: fn(NonNull<Pool<T>>, crate::__private::Released<T>),
        unref: Option<unsafe fn(NonNull<Pool<T>>)>,
    ) -> Self {
        Pool {
            config,
            local: Caches::Owned(caches),
            state,
            release,
            unref,
        }
    }

    /// A copy of this pool whose guards are released through `release` and
    /// `unref`: what each thread's part of a run-time pool holds
    /// (`crate::runtime`).
    pub(crate) fn with_release(
        &self,
        release: fn(NonNull<Pool<T>>, crate::__private::Released<T>),
        unref: Option<unsafe fn(NonNull<Pool<T>>)>,
    ) -> Self {
        Pool {
            config: self.config.duplicate(),
            local: match &self.local {
                Caches::None => Caches::None,
                Caches::Static(key) => Caches::Static(key),
                Caches::Owned(caches) => Caches::Owned(*caches),
            },
            state: self.state,
            release,
            unref,
        }
    }

    /// Takes an idle object, or makes one, and returns it in a guard that
    /// gives it back when dropped.
    ///
    /// Looks in this thread's cache, then the shared primary tier, then the
    /// shared victim tier; only if all are empty does it call the
    /// constructor.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static POOL: Pool<String> = Pool::new(String::new); }
    ///
    /// let mut s = POOL.acquire();
    /// s.push_str("hello");
    /// assert_eq!(*s, "hello");
    /// ```
    #[inline]
    pub fn acquire(&'static self) -> Pooled<T> {
        let value = self.take_here();
        // SAFETY: `self` is `'static`, so it outlives the guard. A pool
        // reached as `&'static` is a static or a generic struct's leaked
        // pool, neither of which has an `unref` (a run-time pool's `Pool`
        // is only reached through its handle, `PoolHandle::acquire`), so
        // the guard has no count to give back.
        unsafe { Pooled::new(value, NonNull::from(self)) }
    }

    /// Acquires through the calling thread's cache.
    #[inline(always)]
    pub(crate) fn take_here(&self) -> Boxed<T> {
        let now = epoch::epoch().now();
        match &self.local {
            Caches::Static(key) => match key.try_with(|cache| self.take(Some(cache), now)) {
                Ok(value) => value,
                // This thread's cache is gone (we are in a thread-local
                // destructor): go without it.
                Err(_) => self.take(None, now),
            },
            Caches::Owned(caches) => self.take(caches.cache(), now),
            Caches::None => self.take(None, now),
        }
    }

    /// Makes objects until the shared store holds `n` idle ones (at most
    /// [`capacity`](PoolConfig::capacity)), so that a burst on any thread
    /// is served without calling the constructor. Returns how many it made.
    ///
    /// The objects wait in the shared primary tier, where every thread's
    /// first acquires find them (a thread's first miss also refills half
    /// its cache from them). They are counted as
    /// [`created`](Stats::created) and [`returned`](Stats::returned), so
    /// [`idle`](Stats::idle) includes them. Like every idle object they
    /// age: unused across two [rotations](crate::rotate), they are dropped.
    /// The constructor runs on the calling thread, with no lock held.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! {
    ///     static BUFFERS: Pool<Vec<u8>> = Pool::new(|| Vec::with_capacity(4096)).capacity(16);
    /// }
    ///
    /// assert_eq!(BUFFERS.prefill(32), 16); // bounded by `capacity`
    /// assert_eq!(BUFFERS.prefill(8), 0); // the store already holds 8
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.created, stats.idle), (16, 16));
    ///
    /// let buf = BUFFERS.acquire(); // no constructor call
    /// assert!(buf.capacity() >= 4096);
    /// assert_eq!(BUFFERS.stats().created, 16);
    /// ```
    pub fn prefill(&self, n: usize) -> usize {
        self.state
            .prefill(n, self.config.capacity, || self.config.create.call())
    }

    /// A snapshot of this pool's counters. See [`Stats`].
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let a = POOL.acquire();
    /// assert_eq!(POOL.stats().created, 1);
    /// drop(a);
    /// assert_eq!(POOL.stats().idle, 1);
    /// ```
    pub fn stats(&self) -> Stats {
        self.state.stats()
    }

    /// Acquires with `cache` as this thread's cache.
    #[inline]
    pub(crate) fn take(&self, cache: Option<&LocalCache<T>>, now: u64) -> Boxed<T> {
        if let Some(value) = cache.and_then(|cache| cache.pop(now)) {
            return value;
        }
        self.take_slow(cache, now)
    }

    #[cold]
    #[inline(never)]
    fn take_slow(&self, cache: Option<&LocalCache<T>>, now: u64) -> Boxed<T> {
        let (thread_capacity, capacity) = (self.config.thread_capacity, self.config.capacity);
        let cache = cache.map(LocalCache::raw);
        match self
            .state
            .core
            .take_slow(cache, now, thread_capacity, capacity)
        {
            // SAFETY: the pool's objects are `Boxed<T>`s of this `T` (the
            // erasure invariant, `crate::state::PoolCore`).
            Some(value) => unsafe { value.into_boxed() },
            None => self.state.create(cache, || self.config.create.call()),
        }
    }

    /// Resets `value` and returns it to the pool.
    #[inline(always)]
    pub(crate) fn put(&self, value: Boxed<T>) {
        let Some(value) = self.prepare(value) else {
            return;
        };
        let key = match &self.local {
            Caches::Static(key) => key,
            Caches::Owned(caches) => {
                let now = epoch::epoch().now();
                return self.give(caches.cache(), value, now);
            }
            Caches::None => return self.put_slow(None, value),
        };
        let now = epoch::epoch().now();
        let mut value = Some(value);
        let cached = key.try_with(|cache| {
            if let Some(value) = value.take() {
                self.give(Some(cache), value, now);
            }
        });
        if let (Err(_), Some(value)) = (cached, value) {
            // This thread's cache is gone: straight to the shared store.
            self.put_slow(None, value);
        }
    }

    /// Resets a released object and runs the pool's `retain` test on it:
    /// the object to keep, or `None` if the test dropped it.
    #[inline(always)]
    pub(crate) fn prepare(&self, mut value: Boxed<T>) -> Option<Boxed<T>> {
        self.reset(&mut value);
        // A constant `None` for a `pool!` without `retain`, which the
        // compiler folds away in the release `pool!` generates.
        if let Some(retain) = &self.config.retain {
            if !self.retains(retain, &value) {
                self.reject(value);
                return None;
            }
        }
        Some(value)
    }

    /// Runs the user's `reset`, counting the object as discarded if it
    /// panics (the unwind then drops it: a half-reset object is never
    /// reused).
    #[inline(always)]
    pub(crate) fn reset(&self, value: &mut T) {
        let on_unwind = DiscardOnUnwind(self.state.discarded());
        value.reset();
        std::mem::forget(on_unwind);
    }

    /// Runs the pool's `retain` predicate on a reset object. A predicate
    /// that panics drops the object with the unwind, counted as discarded,
    /// as a panicking `reset` does.
    #[inline(never)]
    fn retains(&self, retain: &Retain<T>, value: &T) -> bool {
        let on_unwind = DiscardOnUnwind(self.state.discarded());
        let keep = retain.call(value);
        std::mem::forget(on_unwind);
        keep
    }

    /// Drops an object the `retain` predicate refused, counted as
    /// rejected. No lock is held: its destructor is user code.
    #[cold]
    #[inline(never)]
    fn reject(&self, value: Boxed<T>) {
        self.state.reject();
        drop_boxed(value);
    }

    /// Returns an already reset `value` with `cache` as this thread's cache.
    #[inline(always)]
    pub(crate) fn give(&self, cache: Option<&LocalCache<T>>, value: Boxed<T>, now: u64) {
        match cache {
            Some(cache) => {
                if let Err(value) = cache.push(value, now) {
                    self.put_slow(Some(cache), value);
                }
            }
            None => self.put_slow(None, value),
        }
    }

    /// Files `value` when the thread cache is full, gone or disabled.
    #[cold]
    #[inline(never)]
    fn put_slow(&self, cache: Option<&LocalCache<T>>, value: Boxed<T>) {
        let (thread_capacity, capacity) = (self.config.thread_capacity, self.config.capacity);
        let cache = cache.map(LocalCache::raw);
        (self.state.core).put_slow(cache, Erased::new(value), thread_capacity, capacity);
    }

    /// Counts an object dropped by its guard during a panic, or by
    /// [`Pooled::discard`], and drops it.
    pub(crate) fn discard(&self, value: Boxed<T>) {
        self.state.core.discard(Erased::new(value));
    }

    /// Counts an object taken out of the pool for good.
    pub(crate) fn detach(&self) {
        self.state.detach();
    }

    /// Gives back the count a guard holds on a run-time pool; nothing for
    /// a static.
    ///
    /// # Safety
    ///
    /// `pool` is a guard's pool, and the guard is done with it: no
    /// reference to the pool may be used after this call.
    pub(crate) unsafe fn unref(pool: NonNull<Pool<T>>) {
        // SAFETY: the guard's count keeps the pool alive up to here. The
        // field is copied out, so no reference to the pool is live when
        // `unref` may free it.
        let unref = unsafe { (*pool.as_ptr()).unref };
        if let Some(unref) = unref {
            // SAFETY: the caller gives up its count, as `unref` asks.
            unsafe { unref(pool) };
        }
    }
}

/// Gives back a guard's count on its pool when dropped, so that a panic in
/// a destructor, a `reset` or a `retain` test on the way cannot keep a
/// run-time pool alive for ever.
pub(crate) struct Unref<T: Reset + Send + 'static>(NonNull<Pool<T>>);

impl<T: Reset + Send + 'static> Unref<T> {
    /// # Safety
    ///
    /// As for [`Pool::unref`], from the moment this is dropped.
    pub(crate) unsafe fn new(pool: NonNull<Pool<T>>) -> Self {
        Unref(pool)
    }
}

impl<T: Reset + Send + 'static> Drop for Unref<T> {
    fn drop(&mut self) {
        // SAFETY: the promise made to `Unref::new`.
        unsafe { Pool::unref(self.0) };
    }
}

/// Counts an object as discarded if dropped: forgotten once the user code
/// it guards has returned, so it costs nothing unless that code panics.
struct DiscardOnUnwind<'a>(&'a AtomicU64);

impl Drop for DiscardOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("capacity", &self.config.capacity)
            .field("thread_capacity", &self.config.thread_capacity)
            .field("stats", &self.stats())
            .finish()
    }
}

/// Declares `static` pools, each with its own per-thread cache.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     /// Buffers for building responses.
///     pub static RESPONSES: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(256);
///     static NAMES: Pool<String> = Pool::new(String::new);
/// }
///
/// let mut body = RESPONSES.acquire();
/// body.extend_from_slice(b"200 OK");
/// ```
///
/// The initializer is a constant expression of type [`PoolConfig<T>`], usually
/// [`Pool::new`] followed by [`capacity`](PoolConfig::capacity) and
/// [`thread_capacity`](PoolConfig::thread_capacity). `T` must implement
/// [`Reset`] and `Send`.
///
/// A `static` cannot be generic, so neither can a pool declared here;
/// declare one pool per concrete type, derive `Poolable` on a generic
/// struct (each instantiation gets a pool of its own), or make pools at run
/// time with [`Pool::builder`].
///
/// The initializer is evaluated at compile time, so it cannot use run-time
/// values. A `move` closure as the constructor gets
/// ``error: a `pool!` static is made at compile time, so its constructor
/// cannot capture variables ...``, which names the way out: a pool made at
/// run time with [`Pool::builder`]. Other run-time values reach rustc's own
/// errors first, whose suggestions do not fit a pool: `E0435` ("attempt to
/// use a non-constant value in a constant", "consider using `let`") for a
/// closure that borrows a local, and `E0015` ("cannot call non-const
/// function", "consider wrapping this expression in `LazyLock`") for a
/// capacity computed by a function. Both mean the same: make that pool at
/// run time with `Pool::builder`.
// Hygiene: the expansion must not break whatever the user names a static,
// a type or a module. So it declares no type (`$ty` is resolved where only
// the expansion's statics, in the value namespace, are in scope), and the
// two statics it declares live in an inner block that refers to nothing of
// the user's but `$ty`: `$init` and `$name` are used outside that block,
// where the statics are not in scope. Every path is absolute (`$crate`,
// `::core`), and std is reached through `$crate` for `#![no_std]` crates.
#[macro_export]
macro_rules! pool {
    // A `move` closure as the constructor means it captures, which a
    // `static`'s constructor cannot: rustc's own error for that suggests
    // `let`, which does not apply here.
    (
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $($new:ident)::+ (move $($closure:tt)*) $($rest:tt)*
    ) => {
        ::core::compile_error!(
            "a `pool!` static is made at compile time, so its constructor cannot capture \
             variables: for a pool whose constructor or capacities come from run-time values, \
             use `Pool::builder(move || ...).capacity(..).build()`; a static's constructor is \
             a `fn` or a closure that captures nothing (it may read `const`s and `static`s)"
        );
        // So that the program's uses of the pool add no errors of their own.
        $(#[$attr])*
        $vis static $name: $crate::__private::NoPool<<$ty as $crate::__private::PoolType>::Item> =
            $crate::__private::NoPool::new();
    };
    ($(
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    )+) => {$(
        $crate::pool! {
            @named ::core::stringify!($name) =>
            $(#[$attr])*
            $vis static $name: $ty = $init;
        }
    )+};
    // The derive's form, not part of the API: the pool is listed by
    // `pools()` under the type's name rather than the static's.
    (
        @named $pool_name:expr =>
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    ) => {
        $(#[$attr])*
        $vis static $name: $ty = $crate::__private::finish(
            $init,
            {
                static __POOL_CORE_STATE: $crate::__private::PoolState<
                    <$ty as $crate::__private::PoolType>::Item,
                > = $crate::__private::PoolState::new($pool_name);
                $crate::__private::thread_local! {
                    static __POOL_CORE_LOCAL: $crate::__private::LocalCache<
                        <$ty as $crate::__private::PoolType>::Item,
                    > = $crate::__private::LocalCache::new(&__POOL_CORE_STATE);
                }
                (&__POOL_CORE_LOCAL, &__POOL_CORE_STATE)
            },
            {
                // A named `fn` rather than a closure, so that it can be
                // `inline(always)`: a derived struct's release, with the
                // template's check in its reset, was otherwise called, not
                // inlined (94 instructions per round trip instead of 89).
                #[allow(clippy::inline_always)]
                #[inline(always)]
                fn __pool_core_release(
                    _: ::core::ptr::NonNull<$ty>,
                    value: $crate::__private::Released<<$ty as $crate::__private::PoolType>::Item>,
                ) {
                    $crate::__private::release(&$name, value)
                }
                __pool_core_release
            },
        );
    };
}
