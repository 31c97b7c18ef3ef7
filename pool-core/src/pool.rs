//! [`Pool`], the [`Poolable`] trait, and the [`pool!`](crate::pool!) macro.

use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

use crate::epoch::{self, Rotate};
#[cfg(not(loom))]
use crate::guard::Pooled;
use crate::local::{Local, LocalCache};
use crate::reset::Reset;
use crate::shared::{Locked, Shared};
use crate::stats::{Counters, Stats, ThreadHandle, bump};
use crate::sync::{AtomicBool, Ordering};

/// Idle objects a pool keeps in its shared tiers unless told otherwise.
///
/// ```
/// use pool_core::{DEFAULT_CAPACITY, Pool, pool};
///
/// pool! { static POOL: Pool<String> = Pool::new(String::new); }
///
/// assert_eq!(DEFAULT_CAPACITY, 1024);
/// assert!(format!("{POOL:?}").contains("capacity: 1024"));
/// ```
pub const DEFAULT_CAPACITY: usize = 1024;
/// Idle objects each thread's cache keeps unless told otherwise.
///
/// ```
/// use pool_core::{DEFAULT_THREAD_CAPACITY, Pool, pool};
///
/// pool! { static POOL: Pool<String> = Pool::new(String::new); }
///
/// assert_eq!(DEFAULT_THREAD_CAPACITY, 32);
/// assert!(format!("{POOL:?}").contains("thread_capacity: 32"));
/// ```
pub const DEFAULT_THREAD_CAPACITY: usize = 32;

/// How the pool holds an object: boxed, so that moving it between the guard,
/// the caches and the tiers moves one pointer whatever the size of `T`, and
/// padded (see [`Padded`]).
pub(crate) type Boxed<T> = Box<Padded<T>>;

/// Bytes of padding after each pooled object: one cache line on the
/// machines this crate targets.
const GAP: usize = 64;

/// An object followed by [`GAP`] bytes that nothing reads or writes.
///
/// Objects migrate between threads: released on one, acquired on another
/// (at thread exit, in cross-thread return, under a work-stealing runtime).
/// Objects made one after another are often neighbours in memory, and
/// without a gap two threads can end up writing to one cache line through
/// two different objects: the two-thread round-trip bench ran at 0.45–1.14×
/// the throughput of one thread when that happened. With at least a line's
/// worth of untouched bytes after every object (and `repr(C)` keeps them
/// after it), the next allocation's bytes cannot share a line with this
/// object's value. Padding rather than 128-byte alignment: an over-aligned
/// allocation takes the system allocator's slow `memalign` path on every
/// object made or dropped.
#[repr(C)]
pub(crate) struct Padded<T> {
    value: T,
    _gap: MaybeUninit<[u8; GAP]>,
}

impl<T> Padded<T> {
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        Padded {
            value,
            _gap: MaybeUninit::uninit(),
        }
    }

    #[cfg(not(loom))] // only the guard, which loom builds leave out, unwraps
    pub(crate) fn into_inner(self) -> T {
        self.value
    }
}

impl<T> Deref for Padded<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Padded<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

/// A pool of reusable `T`s: per-thread caches in front of a bounded shared
/// store with a victim tier.
///
/// A `Pool` lives in a `static` declared with [`pool!`](crate::pool!), which
/// also gives it its per-thread cache; types that derive [`Poolable`] get
/// one declared for them. [`acquire`](Pool::acquire) hands out a [`Pooled`]
/// guard; dropping the guard resets the object and returns it.
///
/// ```text
/// acquire:  thread cache ──▶ shared primary ──▶ shared victim ──▶ constructor
/// release:  reset ──▶ thread cache ──(full: spill half)──▶ shared ──(full)──▶ drop
/// ```
///
/// Capacities bound the memory a pool can pin: at most `capacity` idle
/// objects in the shared tiers, plus `thread_capacity` in each thread's
/// cache. [`rotate`](crate::rotate) ages idle objects out. Each object is
/// allocated with 64 bytes of padding after it, so that objects moving
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
    // A `Pool` holds no interior mutability: what changes lives in `state`,
    // a separate static. The compiler can then treat a pool `static` as a
    // constant, and fold `local` into a direct thread-local access at every
    // call site that names the pool.
    config: PoolConfig<T>,
    #[cfg_attr(loom, allow(dead_code))] // loom models pass their caches explicitly
    local: Option<&'static LocalKey<LocalCache<T>>>,
    state: &'static PoolState<T>,
    /// Returns an object to this pool, with this pool and its thread-local
    /// named statically (see [`pool!`](crate::pool!)).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) release: fn(Released<T>),
}

/// An object on its way back to its pool: what the guard hands to the
/// pool's `release` function. Opaque outside the crate, so generated code
/// can pass it along but never make one.
#[doc(hidden)]
pub struct Released<T>(#[cfg_attr(loom, allow(dead_code))] pub(crate) Boxed<T>);

impl<T> fmt::Debug for Released<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Released")
    }
}

/// The body of the `release` function [`pool!`](crate::pool!) generates for
/// each pool: `|value| release(&POOL, value)`.
///
/// The guard holds its pool as a `&'static Pool<T>`, a run-time value, so
/// a release written as `self.pool.put(value)` cannot see which
/// thread-local it goes to, and reaches it through `LocalKey`'s indirect
/// accessor call. In the generated closure the pool is a named `static`,
/// which the compiler treats as a constant: `put` inlines into it with a
/// direct `%fs:` access to the thread cache, as on the acquire side. The
/// guard makes one call through `release`; the round trip drops from 105
/// to 87 instructions (`scripts/callgrind.sh`; the `thread_local!` free
/// list takes 82).
#[doc(hidden)]
#[cfg(not(loom))]
#[inline(always)]
pub fn release<T: Reset + Send + 'static>(pool: &'static Pool<T>, value: Released<T>) {
    pool.put(value.0);
}

/// The recipe for a [`Pool`]: its constructor and capacities. Made by
/// [`Pool::new`], turned into a pool by [`pool!`](crate::pool!).
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     static POOL: Pool<String> = Pool::new(String::new) // a `PoolConfig`
///         .capacity(128)
///         .thread_capacity(16);
/// }
/// # drop(POOL.acquire());
/// ```
pub struct PoolConfig<T> {
    create: fn() -> T,
    capacity: usize,
    thread_capacity: usize,
}

/// What a pool changes as it runs: its shared store and its counters.
/// Declared by [`pool!`](crate::pool!) as a `static` of its own.
#[doc(hidden)]
pub struct PoolState<T: Reset + Send + 'static> {
    shared: Shared<Boxed<T>>,
    counters: Counters,
    /// Whether [`rotate`](crate::rotate) knows this pool.
    registered: AtomicBool,
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Starts the declaration of a pool that makes new objects with `create`
    /// when it has no idle one, with [`DEFAULT_CAPACITY`] and
    /// [`DEFAULT_THREAD_CAPACITY`]. [`pool!`](crate::pool!) turns the
    /// returned [`PoolConfig`] into the pool, with its per-thread cache.
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
        PoolConfig {
            create,
            capacity: DEFAULT_CAPACITY,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
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
        let state = self.state;
        let shared = state.shared.counts();
        let (hits_local, returned_local) = state.counters.thread_totals();
        let load = |counter: &crate::sync::AtomicU64| counter.load(Ordering::Relaxed);
        let mut stats = Stats {
            created: load(&state.counters.created),
            hits_local,
            hits_primary: shared.hits_primary,
            hits_victim: shared.hits_victim,
            returned: returned_local + load(&state.counters.returned),
            dropped_capacity: shared.dropped_capacity,
            dropped_rotation: shared.dropped_rotation,
            discarded: load(&state.counters.discarded),
            detached: load(&state.counters.detached),
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
    pub(crate) fn take(&'static self, cache: Option<&LocalCache<T>>, now: u64) -> Boxed<T> {
        if let Some(value) = cache.and_then(|cache| cache.pop(now)) {
            return value;
        }
        self.take_slow(cache, now)
    }

    #[cold]
    #[inline(never)]
    fn take_slow(&'static self, cache: Option<&LocalCache<T>>, now: u64) -> Boxed<T> {
        let shared = &self.state.shared;
        let found = match cache.and_then(|cache| cache.cell.try_borrow_mut().ok()) {
            // Nothing to age here and nothing to take there: skip the lock.
            // Under a burst larger than the pool, every miss lands here.
            Some(mut local) if local.items.is_empty() && shared.looks_empty() => {
                local.epoch = now;
                local.missed();
                None
            }
            None if shared.looks_empty() => None,
            Some(mut local) => {
                // The cache's old objects may go to the shared store, which
                // `rotate` must then age even if this pool is never touched
                // again.
                let now = self.register();
                let mut shared = shared.lock(now);
                self.turn_over(&mut local, &mut shared, now);
                let found = shared.take();
                let batch = local.missed();
                if found.is_some() {
                    // Refill the cache in the same critical section, so the
                    // next acquires on this thread are lock-free again.
                    shared.take_batch(&mut local.items, batch);
                }
                // Release the borrow before `shared` drops: its graveyard
                // runs destructors, which may use this pool.
                drop(local);
                found
            }
            None => shared.lock(now).take(),
        };
        match found {
            Some((value, _tier)) => value,
            None => {
                let value = Box::new(Padded::new((self.config.create)()));
                self.state.counters.created.fetch_add(1, Ordering::Relaxed);
                value
            }
        }
    }

    /// Resets `value` and returns it to the pool.
    #[cfg(not(loom))]
    #[inline(always)]
    pub(crate) fn put(&'static self, mut value: Boxed<T>) {
        self.reset(&mut value);
        let Some(key) = self.local else {
            return self.put_slow(None, value);
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

    /// Runs the user's `reset`, counting the object as discarded if it
    /// panics (the unwind then drops it: a half-reset object is never
    /// reused).
    #[inline(always)]
    pub(crate) fn reset(&self, value: &mut T) {
        struct DiscardOnUnwind<'a>(&'a crate::sync::AtomicU64);
        impl Drop for DiscardOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let on_unwind = DiscardOnUnwind(&self.state.counters.discarded);
        value.reset();
        std::mem::forget(on_unwind);
    }

    /// Returns an already reset `value` with `cache` as this thread's cache.
    #[inline(always)]
    pub(crate) fn give(&'static self, cache: Option<&LocalCache<T>>, value: Boxed<T>, now: u64) {
        match cache {
            Some(cache) => {
                if let Err(value) = cache.push(value, now) {
                    self.put_slow(Some(cache), value);
                }
            }
            None => self.put_slow(None, value),
        }
    }

    /// Files `value` when the thread cache is full, gone or disabled. It
    /// reads the epoch itself, after registering the pool (see `register`),
    /// rather than trusting the fast path's earlier read.
    #[cold]
    #[inline(never)]
    fn put_slow(&'static self, cache: Option<&LocalCache<T>>, value: Boxed<T>) {
        let now = self.register();
        let shared = &self.state.shared;
        let capacity = self.config.capacity;
        match cache.and_then(|cache| cache.cell.try_borrow_mut().ok()) {
            Some(mut local) if local.items.capacity() > 0 => {
                let mut shared = shared.lock(now);
                self.turn_over(&mut local, &mut shared, now);
                if local.is_full() {
                    // Spill in one batch from the bottom, keeping the
                    // recently used (cache-warm) top unless this thread
                    // only releases.
                    let spill = local.overflowed();
                    shared.put_from(&mut local.items, ..spill, now, capacity);
                }
                local.items.push(value);
                bump(&local.counters.returned);
                // Release the borrow before `shared` drops its graveyard.
                drop(local);
            }
            _ => {
                let counters = &self.state.counters;
                counters.returned.fetch_add(1, Ordering::Relaxed);
                shared.lock(now).put_one(value, capacity);
            }
        }
    }

    /// The configured size of each thread's cache.
    pub(crate) const fn thread_capacity(&self) -> usize {
        self.config.thread_capacity
    }

    /// Registers a thread's cache; returns its counters.
    pub(crate) fn join_thread(&self) -> ThreadHandle {
        self.state.counters.join()
    }

    /// Ages this thread's cache to epoch `now`: objects cached in an earlier
    /// epoch go to the shared store, which files them as victims or expires
    /// them.
    fn turn_over(&self, local: &mut Local<T>, shared: &mut Locked<'_, Boxed<T>>, now: u64) {
        if local.epoch != now {
            let len = local.items.len();
            shared.put_from(&mut local.items, ..len, local.epoch, self.config.capacity);
        }
        local.epoch = now;
    }

    /// Called when a thread's cache is destroyed: its objects go to the
    /// shared store, its counters to the pool's totals.
    pub(crate) fn retire(&'static self, local: &mut Local<T>) {
        let now = self.register();
        let len = local.items.len();
        let mut shared = self.state.shared.lock(now);
        shared.put_from(&mut local.items, ..len, local.epoch, self.config.capacity);
        let dead = shared.unlock();
        self.state.counters.leave(&local.counters);
        // This runs in a thread-local's destructor, where a panic aborts the
        // process. The objects the store refused are destroyed one at a
        // time, and a destructor's panic (already reported by the panic
        // hook) goes no further.
        for object in dead {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(object)));
        }
    }

    /// Makes sure [`rotate`](crate::rotate) ages this pool's shared store,
    /// and returns the epoch to file objects under. Called by every slow
    /// path before it stores objects: registered first, then the epoch
    /// read, so that any rotation past the epoch read sees this pool (see
    /// `Epoch::latest`).
    fn register(&'static self) -> u64 {
        let registered = &self.state.registered;
        if !registered.load(Ordering::Acquire) {
            epoch::register(self.state, registered);
        }
        epoch::epoch().latest()
    }

    /// Counts an object dropped by its guard during a panic.
    #[cfg(not(loom))]
    pub(crate) fn discard(&self, value: Boxed<T>) {
        self.state
            .counters
            .discarded
            .fetch_add(1, Ordering::Relaxed);
        drop(value);
    }

    /// Counts an object taken out of the pool for good.
    #[cfg(not(loom))]
    pub(crate) fn detach(&self) {
        self.state.counters.detached.fetch_add(1, Ordering::Relaxed);
    }

    /// A pool with no thread cache, for the loom models, which cannot use
    /// `static`s or real thread-locals.
    #[cfg(loom)]
    pub(crate) fn leaked(config: PoolConfig<T>) -> &'static Self {
        let state = Box::leak(Box::new(PoolState::new()));
        // loom builds have no guards (guard.rs is not compiled), so nothing
        // calls `release`.
        Box::leak(Box::new(finish(config, None, state, |_| {})))
    }
}

impl<T> PoolConfig<T> {
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
        self.capacity = capacity;
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
}

impl<T: Reset + Send + 'static> PoolState<T> {
    /// An empty state, for [`pool!`](crate::pool!).
    #[cfg(not(loom))]
    #[allow(clippy::new_without_default)] // only ever built in a `static`
    pub const fn new() -> Self {
        PoolState {
            shared: Shared::new(),
            counters: Counters::new(),
            registered: AtomicBool::new(false),
        }
    }

    /// `loom` cannot build its primitives in a `const fn`.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        PoolState {
            shared: Shared::new(),
            counters: Counters::new(),
            registered: AtomicBool::new(false),
        }
    }
}

impl<T: Reset + Send + 'static> Rotate for PoolState<T> {
    fn rotate_to(&self, now: u64) {
        // Aging happens on lock; the expired objects are destroyed when the
        // guard drops, after the lock is released.
        drop(self.shared.lock(now));
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

impl<T> fmt::Debug for PoolConfig<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolConfig")
            .field("capacity", &self.capacity)
            .field("thread_capacity", &self.thread_capacity)
            .finish_non_exhaustive()
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolState").finish_non_exhaustive()
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
/// The initializer is a constant expression of type [`PoolConfig<T>`], usually
/// [`Pool::new`] followed by [`capacity`](PoolConfig::capacity) and
/// [`thread_capacity`](PoolConfig::thread_capacity). `T` must implement
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
            type __PoolCoreItem = <$ty as $crate::__private::PoolType>::Item;
            static __POOL_CORE_STATE: $crate::__private::PoolState<__PoolCoreItem> =
                $crate::__private::PoolState::new();
            ::std::thread_local! {
                static __POOL_CORE_LOCAL: $crate::__private::LocalCache<__PoolCoreItem> =
                    $crate::__private::LocalCache::new(&$name);
            }
            $crate::__private::finish(
                $init,
                ::core::option::Option::Some(&__POOL_CORE_LOCAL),
                &__POOL_CORE_STATE,
                |value| $crate::__private::release(&$name, value),
            )
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

/// Builds the pool [`pool!`] declares, from its recipe and its statics.
#[doc(hidden)]
pub const fn finish<T: Reset + Send + 'static>(
    config: PoolConfig<T>,
    #[cfg_attr(loom, allow(dead_code))] // loom models pass their caches explicitly
    local: Option<&'static LocalKey<LocalCache<T>>>,
    state: &'static PoolState<T>,
    release: fn(Released<T>),
) -> Pool<T> {
    Pool {
        config,
        local,
        state,
        release,
    }
}
