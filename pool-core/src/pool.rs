//! [`Pool`], the [`Poolable`] trait, and the [`pool!`](crate::pool!) macro.

use std::fmt;
use std::thread::LocalKey;

use crate::epoch::{self, Rotate};
#[cfg(not(loom))]
use crate::guard::Pooled;
use crate::local::{Local, LocalCache};
use crate::reset::Reset;
use crate::shared::Shared;
use crate::stats::{Counters, Stats, ThreadHandle, bump};
use crate::sync::{AtomicBool, Ordering};

/// Idle objects a pool keeps in its shared tiers unless told otherwise.
pub const DEFAULT_CAPACITY: usize = 1024;
/// Idle objects each thread's cache keeps unless told otherwise.
pub const DEFAULT_THREAD_CAPACITY: usize = 32;

/// A pool of reusable `T`s: per-thread caches in front of a bounded shared
/// store with a victim tier.
///
/// A `Pool` lives in a `static`, declared with [`pool!`](crate::pool!),
/// which also gives it its per-thread cache; types that derive
/// [`Poolable`] get one declared for them. [`acquire`](Pool::acquire) hands
/// out a [`Pooled`] guard; dropping the guard resets the object and returns
/// it.
///
/// ```text
/// acquire:  thread cache ──▶ shared primary ──▶ shared victim ──▶ constructor
/// release:  reset ──▶ thread cache ──(full: spill half)──▶ shared ──(full)──▶ drop
/// ```
///
/// Capacities bound the memory a pool can pin: at most `capacity` idle
/// objects in the shared tiers, plus `thread_capacity` in each thread's
/// cache. [`rotate`](crate::rotate) ages idle objects out.
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
///
/// A `Pool` made without [`pool!`](crate::pool!) (with `Box::leak`, say, for
/// a pool created at run time) has no per-thread cache: it works, but every
/// acquire and release takes the shared store's lock.
pub struct Pool<T: Reset + Send + 'static> {
    shared: Shared<Box<T>>,
    create: fn() -> T,
    thread_capacity: usize,
    local: Option<&'static LocalKey<LocalCache<T>>>,
    counters: Counters,
    /// Whether [`rotate`](crate::rotate) knows this pool.
    registered: AtomicBool,
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// A pool that makes new objects with `create` when it has no idle one,
    /// with [`DEFAULT_CAPACITY`] and [`DEFAULT_THREAD_CAPACITY`].
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static LINES: Pool<String> = Pool::new(String::new); }
    ///
    /// let line = LINES.acquire();
    /// assert!(line.is_empty());
    /// ```
    #[cfg(not(loom))]
    pub const fn new(create: fn() -> T) -> Self {
        Pool {
            shared: Shared::new(DEFAULT_CAPACITY),
            create,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
            local: None,
            counters: Counters::new(),
            registered: AtomicBool::new(false),
        }
    }

    /// `loom` cannot build its primitives in a `const fn`.
    #[cfg(loom)]
    pub fn new(create: fn() -> T) -> Self {
        Pool {
            shared: Shared::new(DEFAULT_CAPACITY),
            create,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
            local: None,
            counters: Counters::new(),
            registered: AtomicBool::new(false),
        }
    }

    /// Sets how many idle objects the shared tiers (primary and victim
    /// together) keep. Returns past this bound are dropped. `0` disables the
    /// shared store: objects then live only in thread caches.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(16); }
    /// # drop(POOL.acquire());
    /// ```
    #[must_use]
    pub const fn capacity(mut self, capacity: usize) -> Self {
        self.shared.set_capacity(capacity);
        self
    }

    /// Sets how many idle objects each thread's cache keeps. When a cache is
    /// full, half of it moves to the shared store in one batch. `0` sends
    /// every release to the shared store.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static POOL: Pool<Vec<u8>> = Pool::new(Vec::new).thread_capacity(4); }
    /// # drop(POOL.acquire());
    /// ```
    #[must_use]
    pub const fn thread_capacity(mut self, thread_capacity: usize) -> Self {
        self.thread_capacity = thread_capacity;
        self
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
    #[cfg(not(loom))]
    #[inline]
    pub fn acquire(&'static self) -> Pooled<T> {
        let now = epoch::epoch().now();
        let value = match self.local {
            Some(key) => match key.try_with(|cache| self.take(Some(cache), now)) {
                Ok(value) => value,
                // This thread's cache is gone (we are in a thread-local
                // destructor): go without it.
                Err(_) => self.take(None, now),
            },
            None => self.take(None, now),
        };
        Pooled::new(value, self)
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
        let shared = self.shared.counts();
        let (hits_local, returned_local) = self.counters.thread_totals();
        let load = |counter: &crate::sync::AtomicU64| counter.load(Ordering::Relaxed);
        let mut stats = Stats {
            created: load(&self.counters.created),
            hits_local,
            hits_primary: shared.hits_primary,
            hits_victim: shared.hits_victim,
            returned: returned_local + load(&self.counters.returned),
            dropped_capacity: shared.dropped_capacity,
            dropped_rotation: shared.dropped_rotation,
            discarded: load(&self.counters.discarded),
            detached: load(&self.counters.detached),
            idle: 0,
        };
        // Every returned object is, from then on, either idle, reused, or
        // dropped by the store; thread caches hold the rest of the idle ones.
        stats.idle = stats
            .returned
            .saturating_sub(stats.reused() + stats.dropped_capacity + stats.dropped_rotation);
        stats
    }

    /// Acquires with `cache` as this thread's cache.
    #[inline]
    pub(crate) fn take(&'static self, cache: Option<&LocalCache<T>>, now: u64) -> Box<T> {
        if let Some(value) = cache.and_then(|cache| cache.pop(now)) {
            return value;
        }
        self.take_slow(cache, now)
    }

    #[cold]
    #[inline(never)]
    fn take_slow(&'static self, cache: Option<&LocalCache<T>>, now: u64) -> Box<T> {
        let found = match cache.and_then(|cache| cache.cell.try_borrow_mut().ok()) {
            Some(mut local) => {
                let mut shared = self.shared.lock(now);
                self.turn_over(&mut local, &mut shared, now);
                let found = shared.take();
                if found.is_some() {
                    // Refill half the cache in the same critical section, so
                    // the next acquires on this thread are lock-free again.
                    let room = local.items.capacity() - local.items.len();
                    shared.take_batch(&mut local.items, room.min(self.thread_capacity / 2));
                }
                // Release the borrow before `shared` drops: its graveyard
                // runs destructors, which may use this pool.
                drop(local);
                found
            }
            None => self.shared.lock(now).take(),
        };
        match found {
            Some((value, _tier)) => value,
            None => {
                let value = Box::new((self.create)());
                self.counters.created.fetch_add(1, Ordering::Relaxed);
                value
            }
        }
    }

    /// Resets `value` and returns it to the pool.
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn put(&'static self, mut value: Box<T>) {
        self.reset(&mut value);
        let now = epoch::epoch().now();
        let Some(key) = self.local else {
            return self.put_slow(None, value, now);
        };
        let mut value = Some(value);
        let cached = key.try_with(|cache| {
            if let Some(value) = value.take() {
                self.give(Some(cache), value, now);
            }
        });
        if let (Err(_), Some(value)) = (cached, value) {
            // This thread's cache is gone: straight to the shared store.
            self.put_slow(None, value, now);
        }
    }

    /// Runs the user's `reset`, counting the object as discarded if it
    /// panics (the unwind then drops it: a half-reset object is never
    /// reused).
    #[inline]
    pub(crate) fn reset(&self, value: &mut T) {
        struct DiscardOnUnwind<'a>(&'a crate::sync::AtomicU64);
        impl Drop for DiscardOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let on_unwind = DiscardOnUnwind(&self.counters.discarded);
        value.reset();
        std::mem::forget(on_unwind);
    }

    /// Returns an already reset `value` with `cache` as this thread's cache.
    #[inline]
    pub(crate) fn give(&'static self, cache: Option<&LocalCache<T>>, value: Box<T>, now: u64) {
        match cache {
            Some(cache) => {
                if let Err(value) = cache.push(value, now) {
                    self.put_slow(Some(cache), value, now);
                }
            }
            None => self.put_slow(None, value, now),
        }
    }

    #[cold]
    #[inline(never)]
    fn put_slow(&'static self, cache: Option<&LocalCache<T>>, value: Box<T>, now: u64) {
        let stored = match cache.and_then(|cache| cache.cell.try_borrow_mut().ok()) {
            Some(mut local) if self.thread_capacity > 0 => {
                let mut shared = self.shared.lock(now);
                let mut stored = self.turn_over(&mut local, &mut shared, now);
                if local.is_full() {
                    // Spill the older half in one batch; keep the recently
                    // used (cache-warm) top.
                    let half = local.items.len().div_ceil(2);
                    stored |= shared.put_from(&mut local.items, ..half, now);
                }
                local.items.push(value);
                bump(&local.counters.returned);
                // Release the borrow before `shared` drops its graveyard.
                drop(local);
                stored
            }
            _ => {
                self.counters.returned.fetch_add(1, Ordering::Relaxed);
                self.shared.lock(now).put_one(value)
            }
        };
        if stored {
            self.register();
        }
    }

    /// Registers a thread's cache; returns its counters.
    pub(crate) fn join_thread(&self) -> ThreadHandle {
        self.counters.join()
    }

    pub(crate) const fn thread_capacity_value(&self) -> usize {
        self.thread_capacity
    }

    /// Ages this thread's cache to epoch `now`: objects cached in an earlier
    /// epoch go to the shared store, which files them as victims or expires
    /// them. Returns whether the store kept any.
    fn turn_over(
        &self,
        local: &mut Local<T>,
        shared: &mut crate::shared::Locked<'_, Box<T>>,
        now: u64,
    ) -> bool {
        let stored = if local.epoch != now {
            let len = local.items.len();
            shared.put_from(&mut local.items, ..len, local.epoch)
        } else {
            false
        };
        local.epoch = now;
        stored
    }

    /// Called when a thread's cache is destroyed: its objects go to the
    /// shared store, its counters to the pool's totals.
    pub(crate) fn retire(&'static self, local: &mut Local<T>) {
        let now = epoch::epoch().now();
        let len = local.items.len();
        let stored = self
            .shared
            .lock(now)
            .put_from(&mut local.items, ..len, local.epoch);
        self.counters.leave(&local.counters);
        if stored {
            self.register();
        }
    }

    /// Makes sure [`rotate`](crate::rotate) ages this pool's shared store.
    fn register(&'static self) {
        if !self.registered.load(Ordering::Relaxed) && !self.registered.swap(true, Ordering::AcqRel)
        {
            epoch::register(self);
        }
    }

    /// Counts an object dropped by its guard during a panic.
    #[cfg(not(loom))]
    pub(crate) fn discard(&self, value: Box<T>) {
        self.counters.discarded.fetch_add(1, Ordering::Relaxed);
        drop(value);
    }

    /// Counts an object taken out of the pool for good.
    #[cfg(not(loom))]
    pub(crate) fn detach(&self) {
        self.counters.detached.fetch_add(1, Ordering::Relaxed);
    }
}

impl<T: Reset + Send + 'static> Rotate for Pool<T> {
    fn rotate_to(&self, now: u64) {
        // Aging happens on lock; the expired objects are destroyed when the
        // guard drops, after the lock is released.
        drop(self.shared.lock(now));
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("capacity", &self.shared.capacity())
            .field("thread_capacity", &self.thread_capacity)
            .field("thread_cache", &self.local.is_some())
            .field("stats", &self.stats())
            .finish()
    }
}

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
pub trait Poolable: Reset + Sized + Send + 'static {
    /// Makes a new object, for when the pool has no idle one.
    fn create() -> Self;

    /// The type's pool. Implementations return a reference to a `static`
    /// declared with [`pool!`](crate::pool!).
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
    #[cfg(not(loom))]
    #[inline]
    fn acquire() -> Pooled<Self> {
        Self::pool().acquire()
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
/// The initializer is any constant expression of type `Pool<T>`, usually
/// [`Pool::new`] followed by [`capacity`](Pool::capacity) and
/// [`thread_capacity`](Pool::thread_capacity). `T` must implement
/// [`Reset`] and `Send`.
///
/// A `static` cannot be generic, so neither can a pool; declare one pool
/// per concrete type.
#[macro_export]
macro_rules! pool {
    ($(
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    )+) => {$(
        $(#[$attr])*
        $vis static $name: $ty = {
            ::std::thread_local! {
                static __POOL_CORE_LOCAL: $crate::__private::LocalCache<
                    <$ty as $crate::__private::PoolType>::Item,
                > = $crate::__private::LocalCache::new(&$name);
            }
            $crate::__private::with_local($init, &__POOL_CORE_LOCAL)
        };
    )+};
}

/// Names the item type of a `Pool<T>`, so that [`pool!`] can accept the
/// pool's type however the user spells it.
#[doc(hidden)]
pub trait PoolType {
    type Item;
}

impl<T: Reset + Send + 'static> PoolType for Pool<T> {
    type Item = T;
}

/// Gives `pool` its per-thread cache. Used by [`pool!`].
#[doc(hidden)]
pub const fn with_local<T: Reset + Send + 'static>(
    mut pool: Pool<T>,
    local: &'static LocalKey<LocalCache<T>>,
) -> Pool<T> {
    pool.local = Some(local);
    pool
}
