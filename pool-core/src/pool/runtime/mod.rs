//! Pools made at run time: [`PoolBuilder`], which makes one, and
//! [`PoolHandle`], a handle that dereferences to the [`Pool`].
//!
//! A run-time pool is one allocation, an `Arc` of `Inner` (`share`), that
//! holds everything a `pool!` declares as statics: the immutable [`Pool`],
//! the list of its threads' shares (each a thread's cache and its count of
//! guards out, where a static pool has a `thread_local!`), the state, and
//! the builder's closures. The `Pool` points at its siblings, so the whole
//! tier algorithm (caches, shared store, rotation, the slot handshake,
//! statistics) is the static pools' code, unchanged.
//!
//! Invariant: the allocation lives while a handle, a guard, or a rotation
//! (or [`pools`](crate::pools) entry) visiting it does. Handles are
//! `Arc`s. A guard counts on the share it was acquired through, and each
//! share that has lent a guard holds one strong count until the pool is
//! closed and its guards are back (`ThreadShare` states the protocol); a guard
//! acquired on a thread that has no share (it is destroying its
//! thread-locals) holds a strong count of its own. The registry and the
//! threads' lists hold `Weak`s, so they keep nothing alive. Its fields
//! drop in order: the `Pool` (plain pointers), then, in `Inner`'s drop,
//! every share and its cache (each cache hands its objects to the state's
//! shared store, as a thread's exit does), then the state, whose store
//! drops every object, and the closures last, which nothing calls by
//! then.
//!
//! A thread finds its share through a memo of the last four run-time pools
//! it used (`threads`), then its own list of its shares, keyed by pool
//! (`threads`), and otherwise takes one from the pool (`share`). So a
//! thread's share of a pool costs the same whatever other threads exist,
//! and needs no thread id. At the thread's exit its list hands each share
//! back: the cache goes to the shared store, as a static pool's does, and
//! the share waits on the pool's free list for the next thread, so a pool
//! keeps as many shares as it ever had threads at once.
//!
//! [`PoolHandle`], a run-time pool's handle, and the home of the guards
//! that hold a strong count on the pool's allocation.
//!
//! Invariant: the allocation lives while a handle, a guard, or a rotation
//! visiting it does (the module docs of `crate::pool::runtime`). Handles
//! count themselves in `handles`: the last one to go closes every share
//! (`close`), after which only guards keep the allocation alive. A guard
//! acquired on a thread with no share holds a strong count of its own,
//! given back by [`release_counted`] or [`abandon_counted`]. The
//! allocation's drop, the protocol's last step, is here too.
//!
//! The pools of generic derived structs (`Frame::<u8>::pool()`): a
//! `static` cannot be generic, so each instantiation gets a run-time pool,
//! made on first use and never freed, found by its type.
//!
//! Invariant: a pool listed here is leaked (its `Arc`'s count is never
//! given back), so a pointer to it, or to one of its shares, stays valid
//! for the life of the process. Otherwise it is a run-time pool like a
//! built one, except that its guards hold no count on their shares (they
//! need not keep it alive), and its releases reset with the template in
//! its state (`generic`).
//!
//! The default name of a pool made at run time or for a generic derived
//! struct: its item type as `std::any::type_name` gives it, with every path
//! in it cut to its last segment (`Frame<String>`, not
//! `app::Frame<alloc::string::String>`), the name a non-generic derived
//! struct's pool has too (`Job`). The crate docs state the rule for every
//! kind of pool.
//!
//! Invariant: each type's short name is made and leaked once, however many
//! pools of it are built, so a process that builds pools in a loop does not
//! grow.

pub(crate) mod generic;
mod share;
pub(crate) mod threads;

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crate::engine::fork::{self, ForkHold};
use crate::engine::registry::Rotate;
use crate::engine::rotation;
use crate::engine::stats::Stats;
use crate::pool::config::{
    self, ByteBounds, Closure, Create, DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, PoolConfig,
    ResetOn, Retain, setters,
};
use crate::pool::guard::{Abandoned, Home, Pooled, Released};
use crate::pool::state::{PoolState, StateRef};
use crate::pool::{Caches, Pool, Runtime, RuntimeFns};
use crate::reset::Reset;
use crate::sync::{AtomicUsize, Mutex, Ordering, Owners, global, lock};
use share::{
    CreateClosure, Inner, Lent, OPEN, RetainClosure, ShareList, acquire_erased, clear_erased,
    let_go, put_erased,
};
use threads::HELD;

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
    /// The pool's configuration, its closures pointing into `closures`.
    config: PoolConfig<T>,
    /// The constructor and the `retain` test, which [`build`](Self::build)
    /// moves, with `config`, into the pool's allocation.
    closures: (Option<CreateClosure<T>>, Option<RetainClosure<T>>),
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
        let create: CreateClosure<T> = Arc::new(create);
        let config = PoolConfig {
            // SAFETY: the closure is the `Arc` that `build` moves into the
            // pool's allocation, dropped after its `Pool` (module docs).
            create: Create::Closure(unsafe { Closure::new(&*create) }),
            capacity: DEFAULT_CAPACITY,
            thread_capacity: DEFAULT_THREAD_CAPACITY,
            retain: None,
            reset_on: ResetOn::Release,
            bytes: ByteBounds::DEFAULT,
        };
        PoolBuilder {
            config,
            closures: (Some(create), None),
            name: with_tables(|tables| tables.label(type_name::<T>())),
        }
    }
}

impl<T: Reset + Send + 'static> PoolBuilder<T> {
    setters! {
        pub;
        /// Sets how many idle objects the shared tiers keep, as
        /// [`PoolConfig::capacity`] does for a static pool.
        ///
        /// ```
        /// let pool = pool_core::Pool::builder(String::new).capacity(16).build();
        /// assert_eq!(pool.prefill(100), 16);
        /// ```
        fn capacity(capacity: usize) { config.capacity = capacity; }

        /// Sets how many idle objects each thread's cache keeps, as
        /// [`PoolConfig::thread_capacity`] does for a static pool.
        ///
        /// ```
        /// let pool = pool_core::Pool::builder(String::new).thread_capacity(4).build();
        /// drop(pool.acquire());
        /// ```
        fn thread_capacity(thread_capacity: usize) { config.thread_capacity = thread_capacity; }

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
        fn name(name: &'static str) { name = name; }

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
        fn reset_on_acquire() { config.reset_on = ResetOn::Acquire; }

        /// Sets the bound in bytes on a kept object, as [`PoolConfig::max_bytes`].
        ///
        /// ```
        /// let pool = pool_core::Pool::builder(Vec::<u8>::new).max_bytes(4096).build();
        /// pool.acquire().reserve(1 << 20); // released: shrunk to 4 KiB
        /// assert_eq!(pool.stats().shrunk, 1);
        /// ```
        fn max_bytes(max_bytes: usize) { config.bytes.max = Some(max_bytes); }

        /// Whether the pool learns its bound in bytes, as [`PoolConfig::calibrate`].
        ///
        /// ```
        /// let pool = pool_core::Pool::builder(Vec::<u8>::new).calibrate(false).build();
        /// pool.acquire().reserve(1 << 20); // over the cold cap: shrunk
        /// assert!(pool.acquire().capacity() <= pool_core::DEFAULT_MAX_BYTES);
        /// ```
        fn calibrate(calibrate: bool) { config.bytes.calibrate = calibrate; }

        /// Sets a budget for what idle objects hold, as [`PoolConfig::max_idle_bytes`].
        ///
        /// ```
        /// let pool = pool_core::Pool::builder(Vec::<u8>::new).max_idle_bytes(0).build();
        /// pool.acquire().reserve(64); // released: past the budget, dropped
        /// assert_eq!(pool.stats().dropped_oversize, 1);
        /// ```
        fn max_idle_bytes(max_idle_bytes: usize) { config.bytes.max_idle = Some(max_idle_bytes); }
    }

    /// Sets a test every released object must pass, after its reset, to
    /// stay in the pool, as [`PoolConfig::retain`] does for a static pool;
    /// here it may be any closure.
    ///
    /// ```
    /// let max = 4096;
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
        let retain: RetainClosure<T> = Arc::new(retain);
        // SAFETY: as for `create` (`Pool::builder`).
        let test = Retain::Closure(unsafe { Closure::new(&*retain) });
        self.config.retain = Some((test, config::retains::<T> as config::RetainFn));
        self.closures.1 = Some(retain);
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
        let share_home = share::home(self.config.reset_on, self.closures.1.is_some());
        PoolHandle {
            inner: Inner::make(self.config, share_home, self.name, self.closures),
        }
    }
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// The pool's functions past the memo, one table per `T`
    /// (`crate::pool::RuntimeFns`).
    const FNS: RuntimeFns<T> = RuntimeFns {
        acquire: acquire_erased::<T>,
        put: put_erased::<T>,
        clear: clear_erased::<T>,
    };

    /// Makes a run-time pool's allocation, its `Pool` pointing at its
    /// siblings: from `config`, with `share_home` the home of the guards
    /// lent through its shares, and the closures `config` calls, if any,
    /// kept as long as the `Pool`.
    ///
    /// The `Pool`'s home is for the guards that hold no share (they hold a
    /// strong count instead).
    pub(super) fn make(
        config: PoolConfig<T>,
        share_home: Home<T>,
        name: &'static str,
        (create, retain): (Option<CreateClosure<T>>, Option<RetainClosure<T>>),
    ) -> Arc<Self> {
        let home = Home {
            release: release_counted::<T>,
            abandon: abandon_counted::<T>,
        };
        // A unique id, never reused: the key of the threads' memos and
        // lists (`threads`). Only uniqueness matters, so no model needs it.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
            // lives); the state is made below, its owner set, and `id` is
            // this pool's own.
            let (state_ref, erased) = unsafe {
                (
                    StateRef::from_owned(NonNull::new_unchecked(state)),
                    Runtime {
                        inner: NonNull::new_unchecked(base).cast(),
                        id,
                        at: threads::memo_entry(id),
                        fns: &Inner::<T>::FNS,
                    },
                )
            };
            let mut state = PoolState::new(name, &config);
            state.core.set_owner(weak.clone());
            Inner {
                pool: Pool {
                    home,
                    config,
                    local: Caches::Runtime(erased),
                    state: state_ref,
                },
                erased,
                state,
                _create: create,
                _retain: retain,
                owners: Owners::new(),
                share_home,
                handles: AtomicUsize::new(1),
                shares: Mutex::new(ShareList {
                    all: Vec::new(),
                    free: Vec::new(),
                }),
            }
        })
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBuilder")
            .field("name", &self.name)
            .field("capacity", &self.config.capacity)
            .field("thread_capacity", &self.config.thread_capacity)
            .field("retain", &self.config.retain.is_some())
            .field("reset_on", &self.config.reset_on)
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

impl<T: Reset + Send + 'static> PoolHandle<T> {
    /// Takes an idle object, or makes one: [`Pool::acquire`], reached
    /// directly where the handle is at hand.
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
        self.inner.pool.acquire_runtime(&self.inner.erased)
    }
}

impl<T: Reset + Send + 'static> Deref for PoolHandle<T> {
    type Target = Pool<T>;

    /// The pool: every [`Pool`] method, [`acquire`](Pool::acquire) first,
    /// is called through the handle, and `&handle` is a `&Pool<T>` where
    /// one is expected.
    #[inline]
    fn deref(&self) -> &Pool<T> {
        &self.inner.pool
    }
}

impl<T: Reset + Send + 'static> Clone for PoolHandle<T> {
    fn clone(&self) -> Self {
        self.inner.handles.fetch_add(1, Ordering::Relaxed);
        PoolHandle {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.inner.pool.config;
        f.debug_struct("PoolHandle")
            .field("name", &self.inner.state.core.name())
            .field("capacity", &config.capacity)
            .field("thread_capacity", &config.thread_capacity)
            .field("stats", &self.inner.state.stats())
            .finish()
    }
}
impl<T: Reset + Send + 'static> Drop for PoolHandle<T> {
    fn drop(&mut self) {
        if self.inner.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.inner.close();
        }
        self.inner.owners.leave();
    }
}

impl<T: Reset + Send + 'static> Rotate for Inner<T> {
    fn leave(&self) {
        self.owners.leave();
    }

    fn hold_for_fork(&self, held: &mut ForkHold) {
        // The shares first: a thread's first use of the pool takes a share
        // under this lock, then registers its cache apart from it.
        // SAFETY: the pool is kept alive by the registry's visit, kept (and
        // released) after this lock (`registry::hold_for_fork`).
        unsafe { held.keep(lock(&self.shares)) };
        self.state.core.hold_for_fork(held);
    }

    fn rotate_to(&self, now: u64) -> bool {
        self.state.core.rotate_to(now)
    }

    fn name(&self) -> &'static str {
        self.state.core.name()
    }

    fn stats(&self) -> Stats {
        self.state.stats()
    }
}

/// Gives back a counted guard's strong count when dropped, also when the
/// reset, the `retain` test or a destructor on the way panics.
struct Counted<T: Reset + Send + 'static>(NonNull<Inner<T>>);

impl<T: Reset + Send + 'static> Drop for Counted<T> {
    fn drop(&mut self) {
        // SAFETY: the guard's count, given back once, here; the pointer has
        // `Arc::as_ptr`'s provenance (the home is the allocation's first
        // byte, `Inner::acquire_counted`); nothing uses the pool after.
        unsafe { let_go(self.0) };
    }
}

/// The `release` of a guard taken without a share ([`Home`]): returns the
/// object through the pool, then gives back the guard's strong count.
fn release_counted<T: Reset + Send + 'static>(home: NonNull<Home<T>>, value: Released<T>) {
    let inner = home.cast::<Inner<T>>();
    let _counted = Counted(inner);
    // SAFETY: alive by the guard's count until `_counted` drops; the home
    // is the first field of the `Inner`'s first field (both `repr(C)`).
    unsafe { inner.as_ref() }.put(value.0);
}

/// The `abandon` of a guard taken without a share ([`Home`]).
fn abandon_counted<T: Reset + Send + 'static>(home: NonNull<Home<T>>, value: Abandoned<T>) {
    let inner = home.cast::<Inner<T>>();
    let _counted = Counted(inner);
    // SAFETY: as in `release_counted`.
    unsafe { inner.as_ref() }.pool.abandon(value);
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// The last handle is gone: closes every share, and gives back the
    /// count of each that has no guard out (`ThreadShare`'s invariant); the
    /// caller's handle still holds the pool.
    fn close(&self) {
        let shares = lock(&self.shares);
        for share in &shares.all {
            let share = share.0;
            // SAFETY: a share of this pool, alive as long as the pool; only
            // its atomics are reached, as its owner may be using the rest.
            let (lent, back) = unsafe { (&(*share.as_ptr()).head.lent, &(*share.as_ptr()).back) };
            // No acquire follows: the handles' count ordered every one
            // before this `close`, and this is the last handle.
            let lent = lent.get();
            if lent & HELD == 0 {
                continue; // lent nothing, holds nothing
            }
            let closing = (lent - HELD).wrapping_sub(OPEN);
            if back
                .fetch_add(closing, Ordering::AcqRel)
                .wrapping_add(closing)
                == 0
            {
                // SAFETY: the share's count, given back once (only this
                // addition made `back` 0: every guard was back);
                // not the last count, as the caller's handle holds one.
                unsafe { let_go(self.this()) };
            }
        }
    }
}

impl<T: Reset + Send + 'static> Drop for Inner<T> {
    fn drop(&mut self) {
        self.owners.last();
        // The caches dropped here hand their objects to the state through
        // the pointer they were made with. While the allocation is dropped,
        // `self` is the only way in (a `&mut` that Stacked Borrows
        // protects), so point them at the state through `self` first.
        let state = NonNull::from(&self.state);
        let shares = std::mem::take(&mut lock(&self.shares).all);
        for Lent(share) in shares {
            // SAFETY: made by `Box::into_raw` (`share`), freed only here;
            // every thread's use of the pool is over.
            let share = unsafe { Box::from_raw(share.as_ptr()) };
            // SAFETY: `state` is a field of this allocation, dropped after
            // the shares, its owner set as it was made (`Inner::make`).
            share
                .head
                .cache
                .get()
                .core
                .set(unsafe { StateRef::from_owned(state) }.core());
        }
    }
}

/// The run-time pools' tables: every generic derived struct's pool made so
/// far, by type, and every short name made so far, by the full name it was
/// made from. One lock, taken only inside a section that a fork waits for
/// ([`with_tables`]), so that the child does not inherit it held by a
/// thread it lacks.
pub(super) struct Tables {
    pub(super) generic: Vec<(TypeId, &'static (dyn Any + Send + Sync))>,
    names: Vec<(&'static str, &'static str)>,
}

global! {
    static TABLES: Mutex<Tables> = Mutex::new(Tables {
        generic: Vec::new(),
        names: Vec::new(),
    });
}

/// Runs `f` on the tables, locked inside a section that a fork waits for
/// (`crate::engine::fork::excluded`), the fork handlers installed first
/// (not under the lock: a fork may be running them). The lock is released
/// before the section ends.
pub(super) fn with_tables<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    fork::watch(rotation::hold_for_fork);
    let _fork = fork::excluded();
    f(&mut lock(&TABLES))
}

impl Tables {
    /// The short name of the type whose full name is `full`, made once.
    pub(super) fn label(&mut self, full: &'static str) -> &'static str {
        if let Some(&(_, short)) = self.names.iter().find(|(known, _)| *known == full) {
            return short;
        }
        let short: &'static str = Box::leak(shorten(full).into_boxed_str());
        self.names.push((full, short));
        short
    }
}

/// `full` with every path cut to its last segment: `a::b::C<d::E, [f::G; 2]>`
/// becomes `C<E, [G; 2]>`.
fn shorten(full: &str) -> String {
    let mut short = String::with_capacity(full.len());
    let mut path = String::new();
    let flush = |path: &mut String, short: &mut String| {
        let last = path.rsplit("::").next().unwrap_or_default();
        short.push_str(last);
        path.clear();
    };
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else {
            flush(&mut path, &mut short);
            short.push(c);
        }
    }
    flush(&mut path, &mut short);
    short
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn every_path_is_cut_to_its_last_segment() {
        let cases = [
            ("app::Job", "Job"),
            ("d_derive::Frame<alloc::string::String>", "Frame<String>"),
            ("alloc::vec::Vec<u8>", "Vec<u8>"),
            (
                "core::option::Option<alloc::boxed::Box<[u8]>>",
                "Option<Box<[u8]>>",
            ),
            ("(u8, app::m::Pair<app::X, 4>)", "(u8, Pair<X, 4>)"),
            ("[app::X; 2]", "[X; 2]"),
            ("String", "String"),
        ];
        for (full, short) in cases {
            assert_eq!(shorten(full), short, "{full}");
        }
    }
}
