//! Pools made at run time: [`PoolBuilder`] and [`PoolHandle`].
//!
//! A run-time pool is one allocation, an `Arc` of [`Inner`], that holds
//! everything a `pool!` declares as statics: the immutable [`Pool`], the
//! per-thread caches (a [`ThreadLocal`] instead of a `thread_local!`), the
//! state, and the builder's closures. The `Pool` points at its siblings, so
//! the whole tier algorithm (caches, shared store, rotation, the slot
//! handshake, statistics) is the static pools' code, unchanged.
//!
//! Invariant: the allocation lives while a handle, a guard, or a rotation
//! (or [`pools`](crate::pools) entry) visiting it does. Handles are
//! `Arc`s; each guard holds one strong count, taken by
//! [`PoolHandle::acquire`] and given back after its release (or discard,
//! or detach); the registry holds a `Weak`, so it keeps nothing alive and
//! forgets the pool once it is gone. Its fields drop in order: the `Pool`
//! (plain pointers), every thread's cache (each hands its objects to the
//! state's shared store, as a thread's exit does), then the state, whose
//! store drops every object, and the closures last, which nothing calls by
//! then.
//!
//! Why `ThreadLocal` (the `thread_local` crate) and not a cache of our own:
//! it is the well-kept crate made for per-object thread-local storage, with
//! a lock-free lookup by thread id, and dropping it drops every thread's
//! entry, which is what gives back the objects cached by threads that are
//! still alive. Its one difference from `thread_local!`: a thread's exit
//! does not drop the thread's entry (the next thread to get the same id
//! inherits it). So a run-time pool's objects cached by an exited thread
//! stay there until that id is reused, a rotation ages them (the cache is
//! idle, and the slot handshake reaches it), or the pool is dropped,
//! instead of moving to the shared store at the exit.

use std::any::{Any, TypeId};
use std::cell::Cell;
use std::fmt;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crate::config::{Closure, Create, DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, Retain};
use crate::epoch::Rotate;
use crate::guard::Pooled;
use crate::local::RawCache;
use crate::pool::{OwnedCaches, Pool};
use crate::reset::Reset;
use crate::state::{PoolState, StateRef};
use crate::stats::Stats;
use crate::sync::{Mutex, Owners, ThreadLocal, global, lock};
use crate::{__private::Released, PoolConfig};

/// The recipe for a pool made at run time, from [`Pool::builder`]: its
/// constructor, capacities, name and `retain` test, any of them from
/// run-time values. [`build`](PoolBuilder::build) makes the pool.
///
/// ```
/// use pool_core::Pool;
///
/// let size = 4096; // from a configuration file, say
/// let pool = Pool::builder(move || Vec::<u8>::with_capacity(size))
///     .capacity(64)
///     .thread_capacity(8)
///     .name("buffers")
///     .build();
/// assert!(pool.acquire().capacity() >= size);
/// ```
pub struct PoolBuilder<T: Reset + Send + 'static> {
    create: CreateFn<T>,
    capacity: usize,
    thread_capacity: usize,
    retain: Option<RetainFn<T>>,
    name: &'static str,
}

/// A run-time pool's constructor and `retain` test, as the pool keeps them.
type CreateFn<T> = Arc<dyn Fn() -> T + Send + Sync>;
type RetainFn<T> = Arc<dyn Fn(&T) -> bool + Send + Sync>;

impl<T: Reset + Send + 'static> Pool<T> {
    /// Starts a pool made at run time, which makes new objects with
    /// `create`, any `Fn() -> T` (a closure may capture configuration).
    /// [`PoolBuilder::build`] returns a [`PoolHandle`].
    ///
    /// The defaults are those of [`Pool::new`]:
    /// [`DEFAULT_CAPACITY`](crate::DEFAULT_CAPACITY) and
    /// [`DEFAULT_THREAD_CAPACITY`](crate::DEFAULT_THREAD_CAPACITY).
    ///
    /// ```
    /// use pool_core::Pool;
    ///
    /// let greeting = String::from("hello, ");
    /// let pool = Pool::builder(move || greeting.clone()).build();
    /// let mut s = pool.acquire();
    /// assert_eq!(*s, "hello, ");
    /// s.push_str("world");
    /// ```
    pub fn builder(create: impl Fn() -> T + Send + Sync + 'static) -> PoolBuilder<T> {
        PoolBuilder {
            create: Arc::new(create),
            capacity: DEFAULT_CAPACITY,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
            retain: None,
            name: std::any::type_name::<T>(),
        }
    }
}

impl<T: Reset + Send + 'static> PoolBuilder<T> {
    /// Sets how many idle objects the shared tiers keep, as
    /// [`PoolConfig::capacity`] does for a static pool.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).capacity(16).build();
    /// assert_eq!(pool.prefill(100), 16);
    /// ```
    #[must_use]
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// Sets how many idle objects each thread's cache keeps, as
    /// [`PoolConfig::thread_capacity`] does for a static pool.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).thread_capacity(4).build();
    /// drop(pool.acquire());
    /// ```
    #[must_use]
    pub fn thread_capacity(mut self, thread_capacity: usize) -> Self {
        self.thread_capacity = thread_capacity;
        self
    }

    /// Sets the name [`pools`](crate::pools) lists the pool under (by
    /// default, the name of `T`). A name made at run time can be given
    /// with `String::leak`.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).name("lines").build();
    /// drop(pool.acquire());
    /// assert!(pool_core::pools().iter().any(|p| p.name() == "lines"));
    /// ```
    #[must_use]
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// Sets a test every released object must pass, after its reset, to
    /// stay in the pool, as [`PoolConfig::retain`] does for a static pool;
    /// here it may be any closure.
    ///
    /// ```
    /// let max = 1 << 20;
    /// let pool = pool_core::Pool::builder(Vec::<u8>::new)
    ///     .retain(move |buf: &Vec<u8>| buf.capacity() <= max)
    ///     .build();
    /// let mut buf = pool.acquire();
    /// buf.reserve(2 * max);
    /// drop(buf);
    /// assert_eq!(pool.stats().rejected, 1);
    /// ```
    #[must_use]
    pub fn retain(mut self, retain: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        self.retain = Some(Arc::new(retain));
        self
    }

    /// Makes the pool, and returns its first handle.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).build();
    /// let other = pool.clone(); // the same pool
    /// drop(other.acquire());
    /// assert_eq!(pool.stats().idle, 1);
    /// ```
    pub fn build(self) -> PoolHandle<T> {
        let PoolBuilder {
            create,
            capacity,
            thread_capacity,
            retain,
            name,
        } = self;
        let recipe = Recipe::Closures {
            create,
            capacity,
            thread_capacity,
            retain,
        };
        PoolHandle {
            inner: Inner::make(recipe, name, release::<T>, Some(unref::<T>)),
        }
    }
}

/// What a run-time pool is made from: the builder's closures, or the
/// `PoolConfig` of a generic derived struct's pool (plain functions).
enum Recipe<T: Reset + Send + 'static> {
    Closures {
        create: CreateFn<T>,
        capacity: usize,
        thread_capacity: usize,
        retain: Option<RetainFn<T>>,
    },
    Config(PoolConfig<T>),
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// Makes a run-time pool's allocation, its `Pool` pointing at its
    /// siblings, and its guards released through `release`.
    fn make(
        recipe: Recipe<T>,
        name: &'static str,
        release: fn(NonNull<Pool<T>>, Released<T>),
        unref: Option<unsafe fn(NonNull<Pool<T>>)>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|weak: &Weak<Inner<T>>| {
            let base = weak.as_ptr().cast_mut();
            // SAFETY: `base` points into the allocation being made, whose
            // fields are written when this closure returns; taking a
            // field's address reads nothing.
            let (state, caches) = unsafe { (&raw mut (*base).state, &raw mut (*base).caches) };
            // SAFETY: both point into the allocation, which outlives the
            // `Pool` that holds them (module docs: the `Pool` is dropped
            // first, and only used while the allocation lives); the state
            // is made by `with_home` below.
            let (state_ref, caches_ref) = unsafe {
                (
                    StateRef::from_owned(NonNull::new_unchecked(state)),
                    OwnedCaches::new(NonNull::new_unchecked(caches)),
                )
            };
            let (config, create, retain) = match recipe {
                Recipe::Closures {
                    create,
                    capacity,
                    thread_capacity,
                    retain,
                } => {
                    // SAFETY: the closures are the `Arc`s moved into the
                    // allocation below, dropped after the `Pool` (module
                    // docs).
                    let config = PoolConfig {
                        create: Create::Closure(unsafe { Closure::new(&*create) }),
                        capacity,
                        thread_capacity,
                        retain: retain
                            .as_deref()
                            .map(|retain| Retain::Closure(unsafe { Closure::new(retain) })),
                    };
                    (config, Some(create), retain)
                }
                Recipe::Config(config) => (config, None, None),
            };
            let home: Weak<dyn Rotate> = weak.clone();
            Inner {
                pool: Pool::owned(config, caches_ref, state_ref, release, unref),
                caches: ThreadLocal::new(),
                state: PoolState::with_home(name, home),
                _create: create,
                _retain: retain,
                owners: Owners::new(),
            }
        })
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBuilder")
            .field("name", &self.name)
            .field("capacity", &self.capacity)
            .field("thread_capacity", &self.thread_capacity)
            .field("retain", &self.retain.is_some())
            .finish_non_exhaustive()
    }
}

/// A pool made at run time with [`Pool::builder`]: a handle to it.
///
/// Cloning a handle is cheap (a reference count) and every clone is the
/// same pool, with one set of statistics; `PoolHandle` is `Send` and
/// `Sync`, so clones go to other threads or into shared state. The pool
/// has the tiers, bounds, reset, rotation and panic behaviour of a static
/// pool (see the [crate docs](crate#which-kind-of-pool) for when to use
/// which) and hands out the same [`Pooled<T>`] guard, so code that takes a
/// `Pooled<T>` works with both.
///
/// A guard keeps its pool alive, even past the last handle. When the last
/// handle and the last guard are gone, every idle object is dropped,
/// including those cached by threads that are still running, and
/// [`rotate`](crate::rotate) and [`pools`](crate::pools) forget the pool.
///
/// ```
/// use pool_core::{Pool, Pooled};
///
/// let pool = Pool::builder(|| Vec::<u8>::with_capacity(1024)).build();
///
/// fn fill(mut buf: Pooled<Vec<u8>>) -> usize {
///     buf.extend_from_slice(b"request");
///     buf.len()
/// }
///
/// let worker = {
///     let pool = pool.clone();
///     std::thread::spawn(move || fill(pool.acquire()))
/// };
/// assert_eq!(worker.join().unwrap(), 7);
/// assert_eq!(fill(pool.acquire()), 7);
/// assert_eq!(pool.stats().acquired(), 2);
/// ```
pub struct PoolHandle<T: Reset + Send + 'static> {
    inner: Arc<Inner<T>>,
}

/// A run-time pool's allocation. `repr(C)` with `pool` first, so that a
/// guard's pointer to the `Pool` is a pointer to the `Inner`, which
/// [`unref`] gives back to the `Arc`. Fields drop in declaration order
/// (module docs).
#[repr(C)]
struct Inner<T: Reset + Send + 'static> {
    pool: Pool<T>,
    caches: ThreadLocal<RawCache>,
    state: PoolState<T>,
    /// What `pool.config` calls, if closures; held here so that it lives
    /// as long.
    _create: Option<CreateFn<T>>,
    _retain: Option<RetainFn<T>>,
    /// The strong count's happens-before, for loom.
    owners: Owners,
}

impl<T: Reset + Send + 'static> PoolHandle<T> {
    /// Takes an idle object, or makes one, as [`Pool::acquire`] does, and
    /// returns it in a guard that gives it back when dropped.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).build();
    /// let mut s = pool.acquire();
    /// s.push_str("hello");
    /// drop(s);
    /// assert!(pool.acquire().is_empty()); // reset on return
    /// ```
    #[inline]
    pub fn acquire(&self) -> Pooled<T> {
        let value = self.inner.pool.take_here();
        let inner = Arc::as_ptr(&self.inner);
        // SAFETY: the guard's count, given back by `release` or `unref`.
        unsafe { Arc::increment_strong_count(inner) };
        // `Inner` is `repr(C)` with `pool` first; the pointer keeps the
        // provenance of the whole allocation, which `unref` needs.
        let pool = inner.cast::<Pool<T>>().cast_mut();
        // SAFETY: the guard holds the count taken above; `Arc::as_ptr` is
        // never null.
        unsafe { Pooled::new(value, NonNull::new_unchecked(pool)) }
    }

    /// A snapshot of this pool's counters. See [`Stats`].
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(String::new).build();
    /// drop(pool.acquire());
    /// let stats = pool.stats();
    /// assert_eq!((stats.created, stats.idle), (1, 1));
    /// ```
    pub fn stats(&self) -> Stats {
        self.inner.state.stats()
    }

    /// Makes objects until the shared store holds `n` idle ones, as
    /// [`Pool::prefill`] does. Returns how many it made.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(|| vec![0u8; 512]).capacity(8).build();
    /// assert_eq!(pool.prefill(32), 8);
    /// drop(pool.acquire());
    /// assert_eq!(pool.stats().created, 8);
    /// ```
    pub fn prefill(&self, n: usize) -> usize {
        self.inner.pool.prefill(n)
    }
}

impl<T: Reset + Send + 'static> Clone for PoolHandle<T> {
    fn clone(&self) -> Self {
        PoolHandle {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.inner.pool.config;
        f.debug_struct("PoolHandle")
            .field("name", &self.inner.state.name())
            .field("capacity", &config.capacity)
            .field("thread_capacity", &config.thread_capacity)
            .field("stats", &self.stats())
            .finish()
    }
}

impl<T: Reset + Send + 'static> Drop for Inner<T> {
    fn drop(&mut self) {
        self.owners.last();
        // The caches dropped next hand their objects to the state through
        // the pointer they were made with. While the allocation is dropped,
        // `self` is the only way in (a `&mut` that Stacked Borrows
        // protects), so point them at the state through `self` first.
        let state = NonNull::from(&self.state);
        for cache in self.caches.iter_mut() {
            // SAFETY: `state` is a field of this allocation, dropped after
            // the caches, and was made by `with_home`.
            cache.set_core(unsafe { StateRef::from_owned(state) }.core());
        }
    }
}

impl<T: Reset + Send + 'static> Drop for PoolHandle<T> {
    fn drop(&mut self) {
        self.inner.owners.leave();
    }
}

impl<T: Reset + Send + 'static> Rotate for Inner<T> {
    fn leave(&self) {
        self.owners.leave();
    }

    fn rotate_to(&self, now: u64) {
        self.state.rotate_to(now);
    }

    fn name(&self) -> &'static str {
        self.state.name()
    }

    fn stats(&self) -> Stats {
        self.state.stats()
    }
}

/// A run-time pool's `release`: returns the object through the pool, then
/// gives back the guard's count (also if the reset or the `retain` test
/// panics).
fn release<T: Reset + Send + 'static>(pool: NonNull<Pool<T>>, value: Released<T>) {
    /// [`Unref`] for a pool known to be a run-time one: a direct call.
    struct Owned<T: Reset + Send + 'static>(NonNull<Pool<T>>);
    impl<T: Reset + Send + 'static> Drop for Owned<T> {
        fn drop(&mut self) {
            // SAFETY: the guard's pointer and count, given up by `release`.
            unsafe { unref(self.0) };
        }
    }
    // The guard gives its count up with this call; nothing uses the pool
    // after `_unref` is dropped.
    let _unref = Owned(pool);
    // SAFETY: the guard's count keeps the pool alive until `_unref` drops.
    unsafe { pool.as_ref() }.put(value.0);
}

/// Gives back a guard's count on its run-time pool.
///
/// # Safety
///
/// `pool` is a guard's pool pointer, made by [`PoolHandle::acquire`], and
/// the guard gives its count up.
unsafe fn unref<T: Reset + Send + 'static>(pool: NonNull<Pool<T>>) {
    let inner = pool.as_ptr().cast_const().cast::<Inner<T>>();
    // SAFETY: made from `Arc::as_ptr` of the `Inner` (`pool` is its first
    // field, `repr(C)`), alive by the guard's count, which the caller
    // gives up just after.
    unsafe { (*inner).owners.leave() };
    // SAFETY: as above.
    unsafe { Arc::decrement_strong_count(inner) };
}

/// The pool of one instantiation of a generic derived struct
/// (`Frame::<u8>::pool()`), made on first use from `config` and never
/// freed: a `static` cannot be generic, so each instantiation gets a
/// run-time pool, leaked, found by its type.
///
/// The lookup is a per-thread one-entry cache of the last instantiation
/// this thread used (a `TypeId` compare), in front of a locked list of
/// every instantiation. Sound because these pools are never freed: a
/// cached pointer stays valid for the life of the process.
#[inline]
pub(crate) fn generic_pool<T: Reset + Send + 'static>(
    config: impl FnOnce() -> PoolConfig<T>,
) -> &'static Pool<T> {
    let id = TypeId::of::<T>();
    if let Some((last, pool)) = LAST_GENERIC.get() {
        if last == id {
            // SAFETY: stored by `generic_pool_slow` for this `TypeId`, so a
            // `Pool<T>`, leaked, valid for ever.
            return unsafe { pool.cast::<Pool<T>>().as_ref() };
        }
    }
    generic_pool_slow(id, config)
}

std::thread_local! {
    /// This thread's last generic pool: its type and its `&'static Pool<T>`.
    /// No destructor, so it is there during thread-local destruction too.
    static LAST_GENERIC: Cell<Option<(TypeId, NonNull<()>)>> = const { Cell::new(None) };
}

/// Every generic derived struct's pool made so far, by type.
type GenericPools = Mutex<Vec<(TypeId, &'static (dyn Any + Send + Sync))>>;

global! {
    static GENERIC_POOLS: GenericPools = GenericPools::new(Vec::new());
}

#[cold]
#[inline(never)]
fn generic_pool_slow<T: Reset + Send + 'static>(
    id: TypeId,
    config: impl FnOnce() -> PoolConfig<T>,
) -> &'static Pool<T> {
    let mut pools = lock(&GENERIC_POOLS);
    let found = pools
        .iter()
        .find(|(known, _)| *known == id)
        .map(|&(_, pool)| pool);
    let pool: &'static Pool<T> = match found {
        Some(pool) => pool.downcast_ref().expect("listed under its own TypeId"),
        None => {
            // Made under the lock, so each instantiation gets one pool.
            // No user code runs: `config` only names the constructor.
            let inner = Inner::make(
                Recipe::Config(config()),
                std::any::type_name::<T>(),
                leaked_release::<T>,
                None,
            );
            // SAFETY: the count `into_raw` keeps is never
            // given back, so the allocation is never freed.
            let inner: &'static Inner<T> = unsafe { &*Arc::into_raw(inner) };
            pools.push((id, &inner.pool));
            &inner.pool
        }
    };
    drop(pools);
    LAST_GENERIC.set(Some((id, NonNull::from(pool).cast())));
    pool
}

/// The `release` of a leaked generic pool: its guards hold no count.
fn leaked_release<T: Reset + Send + 'static>(pool: NonNull<Pool<T>>, value: Released<T>) {
    // SAFETY: a leaked pool, valid for ever.
    unsafe { pool.as_ref() }.put(value.0);
}
