//! [`PoolConfig`], the recipe for a pool, and the default capacities.
//!
//! Invariant: a configuration is plain data, fixed when the pool is
//! declared; nothing reads it mutably afterwards, so a pool `static` holds no
//! interior mutability because of it.

use std::fmt;

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

/// The recipe for a [`Pool`](crate::Pool): its constructor and capacities.
/// Made by [`Pool::new`](crate::Pool::new), turned into a pool by
/// [`pool!`](crate::pool!).
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
    pub(crate) create: fn() -> T,
    pub(crate) capacity: usize,
    pub(crate) thread_capacity: usize,
}

impl<T> PoolConfig<T> {
    /// A recipe with the default capacities.
    pub(crate) const fn new(create: fn() -> T) -> Self {
        PoolConfig {
            create,
            capacity: DEFAULT_CAPACITY,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
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

impl<T> PoolConfig<T> {
    /// Not a method: a `PoolConfig` is a recipe, and calling `acquire` on
    /// one is a compile error that says how to get a pool. Its bound holds
    /// for no type.
    #[doc(hidden)]
    pub fn acquire(&self) -> crate::__private::Unpoolable<T>
    where
        Self: crate::__private::NotAPool,
    {
        unreachable!("`NotAPool` is implemented for no `PoolConfig`")
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
