//! Pools made at run time: [`PoolBuilder`], which makes one, and
//! [`PoolHandle`], a handle that dereferences to the [`Pool`].
//!
//! A run-time pool is one allocation, an `Arc` of `Inner` (`part`), that
//! holds everything a `pool!` declares as statics: the immutable [`Pool`],
//! the list of its threads' parts (each a thread's cache and its count of
//! guards out, where a static pool has a `thread_local!`), the state, and
//! the builder's closures. The `Pool` points at its siblings, so the whole
//! tier algorithm (caches, shared store, rotation, the slot handshake,
//! statistics) is the static pools' code, unchanged.
//!
//! Invariant: the allocation lives while a handle, a guard, or a rotation
//! (or [`pools`](crate::pools) entry) visiting it does. Handles are
//! `Arc`s. A guard counts on the part it was acquired through, and each
//! part that has lent a guard holds one strong count until the pool is
//! closed and its guards are back (`Part` states the protocol); a guard
//! acquired on a thread that has no part (it is destroying its
//! thread-locals) holds a strong count of its own. The registry and the
//! threads' lists hold `Weak`s, so they keep nothing alive. Its fields
//! drop in order: the `Pool` (plain pointers), then, in `Inner`'s drop,
//! every part and its cache (each cache hands its objects to the state's
//! shared store, as a thread's exit does), then the state, whose store
//! drops every object, and the closures last, which nothing calls by
//! then.
//!
//! A thread finds its part through a memo of the last four run-time pools
//! it used (`crate::pool::owned`), then its own list of its parts, keyed by pool
//! (`thread`), and otherwise takes one from the pool (`lookup`). So a
//! thread's part of a pool costs the same whatever other threads exist,
//! and needs no thread id. At the thread's exit its list hands each part
//! back: the cache goes to the shared store, as a static pool's does, and
//! the part waits on the pool's free list for the next thread, so a pool
//! keeps as many parts as it ever had threads at once.

pub(crate) mod generic;
mod handle;
mod lookup;
mod name;
mod part;
mod release;
pub(crate) mod thread;

use std::fmt;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crate::engine::registry::Rotate;
use crate::pool::config::{
    Closure, Create, DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, PoolConfig, ResetOn, Retain,
};
use crate::pool::guard::Home;
use crate::pool::state::{PoolState, StateRef};
use crate::pool::{Caches, Owned, Pool, config};
use crate::reset::Reset;
use crate::sync::{AtomicUsize, Mutex, Owners};
use handle::{abandon_counted, release_counted};
use lookup::{clear_erased, part_slow, put_erased};
use part::acquire_erased;
use part::{CreateFn, Inner, Parts, RetainFn};

pub use handle::PoolHandle;

/// The recipe for a pool made at run time, from [`Pool::builder`]: its
/// constructor, capacities, name, `retain` test and where it resets, any
/// of them from run-time values. [`build`](PoolBuilder::build) makes the pool.
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
    reset_on: ResetOn,
    name: &'static str,
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Starts a pool made at run time, which makes new objects with
    /// `create`, any `Fn() -> T` (a closure may capture configuration).
    /// [`PoolBuilder::build`] returns a [`PoolHandle`], which dereferences
    /// to the `Pool`.
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
            reset_on: ResetOn::Release,
            name: name::type_label::<T>(),
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
    /// default, the name of `T` without module paths, `String` or
    /// `Frame<u8>`: [the rule for every pool](crate#pool-names)). A name
    /// made at run time can be given with `String::leak`.
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

    /// Resets objects when they are acquired, on the acquiring thread,
    /// instead of when they are released, as
    /// [`PoolConfig::reset_on_acquire`] does for a static pool (which says
    /// when to choose it, and what it gives up). Here the choice is read
    /// from the pool on each acquire and release.
    ///
    /// ```
    /// let pool = pool_core::Pool::builder(Vec::<u8>::new)
    ///     .reset_on_acquire()
    ///     .build();
    /// let mut buf = pool.acquire();
    /// buf.extend_from_slice(b"payload");
    /// drop(buf); // idle as it is, not yet cleared
    /// assert!(pool.acquire().is_empty()); // cleared when acquired
    /// ```
    #[must_use]
    pub fn reset_on_acquire(mut self) -> Self {
        self.reset_on = ResetOn::Acquire;
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
            reset_on,
            name,
        } = self;
        let recipe = Recipe::Closures {
            create,
            capacity,
            thread_capacity,
            retain,
            reset_on,
        };
        PoolHandle::new(Inner::make(recipe, name))
    }
}

/// What a run-time pool is made from: the builder's closures, or the
/// `PoolConfig` of a generic derived struct's pool (plain functions).
pub(super) enum Recipe<T: Reset + Send + 'static> {
    Closures {
        create: CreateFn<T>,
        capacity: usize,
        thread_capacity: usize,
        retain: Option<RetainFn<T>>,
        reset_on: ResetOn,
    },
    Config(PoolConfig<T>),
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// Makes a run-time pool's allocation, its `Pool` pointing at its
    /// siblings.
    ///
    /// The `Pool`'s home is for the guards that hold no part (they hold a
    /// strong count instead).
    pub(super) fn make(recipe: Recipe<T>, name: &'static str) -> Arc<Self> {
        let home = Home {
            release: release_counted::<T>,
            abandon: abandon_counted::<T>,
        };
        let id = next_pool_id();
        Arc::new_cyclic(|weak: &Weak<Inner<T>>| {
            let base = weak.as_ptr().cast_mut();
            // SAFETY: `base` points into the allocation being made, whose
            // fields are written when this closure returns; taking a
            // field's address reads nothing.
            let state = unsafe { &raw mut (*base).state };
            // SAFETY: both point into the allocation (`base` with the
            // provenance of all of it, `Arc`'s counts included), which
            // outlives the `Pool`s that hold them (module docs: the `Pool`s
            // are dropped first, and only used while the allocation
            // lives); the state is made by `with_owner` below, and `id` is
            // this pool's own.
            let (state_ref, erased) = unsafe {
                (
                    StateRef::from_owned(NonNull::new_unchecked(state)),
                    Owned {
                        inner: NonNull::new_unchecked(base).cast(),
                        id,
                        acquire: acquire_erased::<T>,
                        put: put_erased::<T>,
                        clear: clear_erased::<T>,
                        #[cfg(debug_assertions)]
                        acquire_owned: Pool::<T>::acquire_owned,
                    },
                )
            };
            let (config, create, retain) = match recipe {
                Recipe::Closures {
                    create,
                    capacity,
                    thread_capacity,
                    retain,
                    reset_on,
                } => {
                    // SAFETY: the closure is the `Arc` moved into the
                    // allocation below, dropped after the `Pool` (module
                    // docs).
                    let create_ref = unsafe { Closure::new(&*create) };
                    let config = PoolConfig {
                        create: Create::Closure(create_ref),
                        capacity,
                        thread_capacity,
                        retain: retain.as_deref().map(|retain| {
                            // SAFETY: as for `create`.
                            let retain = Retain::Closure(unsafe { Closure::new(retain) });
                            (retain, config::retains::<T> as config::RetainFn)
                        }),
                        reset_on,
                    };
                    (config, Some(create), retain)
                }
                Recipe::Config(config) => (config, None, None),
            };
            let owner: Weak<dyn Rotate> = weak.clone();
            let state = PoolState::with_owner(name, &config, owner);
            Inner {
                pool: Pool {
                    home,
                    config,
                    local: Caches::Owned(erased),
                    state: state_ref,
                },
                erased,
                state,
                _create: create,
                _retain: retain,
                owners: Owners::new(),
                handles: AtomicUsize::new(1),
                parts: Mutex::new(Parts {
                    all: Vec::new(),
                    free: Vec::new(),
                }),
                part_slow: part_slow::<T>,
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
            .field("reset_on", &self.reset_on)
            .finish_non_exhaustive()
    }
}

/// A unique id for a run-time pool, never reused: the key of the calling
/// thread's memo (`crate::pool::owned`). Only uniqueness matters, so no model needs it.
fn next_pool_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
