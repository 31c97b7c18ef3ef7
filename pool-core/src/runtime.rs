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
//! `Arc`s. A guard counts on its thread's [`Part`] of the pool (its entry
//! of the `ThreadLocal`), and each part that has lent a guard holds one
//! strong count until the pool is closed and its guards are back (`Part`
//! states the protocol); a guard acquired on a thread that has no part (it
//! is destroying its thread-locals) holds a strong count of its own. The
//! registry holds a `Weak`, so it keeps nothing alive and forgets the pool
//! once it is gone. Its fields drop in order: the `Pool` (plain pointers),
//! every thread's part and cache (each cache hands its objects to the
//! state's shared store, as a thread's exit does), then the state, whose
//! store drops every object, and the closures last, which nothing calls by
//! then.
//!
//! The threads find their parts through a memo of the last four run-time
//! pools each used (`sync::memo`), in front of the `ThreadLocal`'s lookup:
//! it took the round trip, one lookup each way, from 142 instructions to
//! 120 (`scripts/callgrind.sh`, 2026-12-01).
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

use crossbeam_utils::CachePadded;

use crate::config::{Closure, Create, DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, Retain};
use crate::epoch::{self, Rotate};
use crate::guard::Pooled;
use crate::local::{LocalCache, RawCache};
use crate::padded::Boxed;
use crate::pool::Pool;
use crate::reset::Reset;
use crate::state::{PoolState, StateRef};
use crate::stats::Stats;
use crate::sync::memo::{self, Memo};
use crate::sync::{AtomicUsize, Mutex, Ordering, Owners, ThreadLocal, global, lock, next_pool_id};
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
            // lives); the state is made by `with_home` below, and `id` is
            // this pool's own.
            let (state_ref, owned) = unsafe {
                (
                    StateRef::from_owned(NonNull::new_unchecked(state)),
                    OwnedCaches {
                        inner: NonNull::new_unchecked(base),
                        id,
                    },
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
                pool: Pool::owned(config, owned, state_ref, release, unref),
                caches: ThreadLocal::new(),
                state: PoolState::with_home(name, home),
                _create: create,
                _retain: retain,
                owners: Owners::new(),
                owned,
                handles: AtomicUsize::new(1),
                parts: Mutex::new(Vec::new()),
                part_slow: OwnedCaches::part_slow,
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

/// A run-time pool's allocation. `repr(C)` with `pool` first, so that the
/// pointer of a guard taken without a part (`acquire_counted`) is a
/// pointer to the `Inner`, which [`unref`] gives back to the `Arc`. Fields drop in declaration order
/// (module docs).
#[repr(C)]
struct Inner<T: Reset + Send + 'static> {
    pool: Pool<T>,
    /// Each thread's part: its cache, and its count of guards out.
    caches: ThreadLocal<CachePadded<Part<T>>>,
    state: PoolState<T>,
    /// What `pool.config` calls, if closures; held here so that it lives
    /// as long.
    _create: Option<CreateFn<T>>,
    _retain: Option<RetainFn<T>>,
    /// The strong count's happens-before, for loom.
    owners: Owners,
    /// How the threads find their parts (what `pool.local` holds too).
    owned: OwnedCaches<T>,
    /// Live handles: the last one to go closes every part (`close`).
    handles: AtomicUsize,
    /// Every part's count, for `close`.
    parts: Mutex<Vec<Lent<T>>>,
    /// [`OwnedCaches::part_slow`], called through this pointer: every
    /// `Pool<T>`'s fast paths name `OwnedCaches<T>` (the `Caches::Owned`
    /// arm, which a static's folds away only after it is compiled), and a
    /// direct call made each pooled type compile the run-time pool's whole
    /// set-up of a thread's part (the `ThreadLocal` insertion, the part's
    /// release, `Inner`'s drop): 2500 of the 4800 LLVM IR lines of a
    /// derived struct, static or not. Through a pointer set by
    /// `Inner::make`, only a type that makes a run-time pool compiles it.
    /// The call is on the memo's miss, so the hit costs the same.
    part_slow: fn(&OwnedCaches<T>) -> NonNull<Part<T>>,
}

/// A pointer to a part, in the pool's list, for its count of guards out.
struct Lent<T: Reset + Send + 'static>(NonNull<Part<T>>);

// SAFETY: a pointer to a part, of which only the atomics `lent` and `back`
// are reached through it; the part lives as long as the pool that lists it.
unsafe impl<T: Reset + Send + 'static> Send for Lent<T> {}

/// A thread's part of a run-time pool, its entry in the pool's
/// `ThreadLocal`: the thread's cache, and the counts of the guards acquired
/// on the thread and of those given back.
///
/// The counts are how a guard keeps its pool alive without writing a line
/// that every thread shares (a strong count per guard made two threads on
/// one pool slower than one). They are two, on two lines: `lent`, written
/// by the owner alone (a load and a store per acquire), and `back`, which
/// every release of one of the part's guards adds to, on whatever thread;
/// and `lent` is on a line apart from the `pool` fields those releases
/// read.
/// One count that both sides read-modify-write moved its line between the
/// two cores for every object handed from one thread to another (2.1× the
/// static pool's time per object cross-thread, docs/PERFORMANCE.md).
/// Invariant, with `lent` = `ONE` × guards acquired + `HELD`, and `back` =
/// `ONE` × guards given back (+ `CLOSED` − `ONE` × guards acquired, once
/// closed), all modulo `usize`:
/// - From its first acquire the part holds one strong count on the pool
///   (`HELD`), taken while that acquire's handle keeps the pool alive.
/// - When the last handle goes, `close` adds `CLOSED` − `ONE` × guards
///   acquired to `back` of every held part (no acquire can follow: it
///   needs a handle, and the handles' count orders every earlier acquire
///   before `close`). From then `back` is `CLOSED` exactly when every
///   guard is back, which before `close` it never is (`CLOSED` is its low
///   bit). The one read-modify-write of `back` that makes it `CLOSED`,
///   `close`'s or a release's (`give_back`), gives back the part's count.
/// - A release touches nothing of the pool after its addition to `back`,
///   unless it is the one that gives the count back.
#[repr(C)]
struct Part<T: Reset + Send + 'static> {
    /// A copy of the pool's `Pool`, released through `part_release`: what
    /// the guards acquired on this thread point to. First, so that a
    /// guard's pool pointer is a pointer to its part.
    pool: Pool<T>,
    /// Written by the owner only, read by `close`. On a line of its own:
    /// the owner writes it at every acquire, and the line it followed
    /// `pool` on holds `pool`'s `state` and `release` (offsets 80 and 88
    /// of 104), which every release of the part's guards reads, on
    /// whatever thread. Sharing that line, it moved between the two cores
    /// for every object handed across: cross-thread, the run-time pool took
    /// 1.3–2.3× the static pool's time per small object (2026-12-01).
    lent: CachePadded<AtomicUsize>,
    /// Added to by the releases of the part's guards, on any thread: on a
    /// line of its own, away from what the owner writes and reads.
    back: CachePadded<AtomicUsize>,
    /// The pool's allocation, with the provenance of all of it.
    inner: NonNull<Inner<T>>,
    /// The thread's cache, without its type (`LocalCache::from_raw`).
    cache: RawCache,
}

/// The unit of `Part::lent` and `Part::back`, and their flags (`HELD` of
/// `lent`, `CLOSED` of `back`).
const ONE: usize = 2;
const HELD: usize = 1;
const CLOSED: usize = 1;

// SAFETY: a part moves to another thread only as a `ThreadLocal` entry
// (`LocalCache`'s `Send` says how), and `inner` points to the pool, which
// is `Sync`.
unsafe impl<T: Reset + Send + 'static> Send for Part<T> {}

impl<T: Reset + Send + 'static> Part<T> {
    /// The thread's cache, typed.
    #[inline(always)]
    fn cache(&self) -> &LocalCache<T> {
        // SAFETY: the cache of a pool of `T`s, which holds only `T`s.
        unsafe { LocalCache::from_raw(&self.cache) }
    }

    /// Takes the part's strong count on the pool, at its first acquire.
    #[cold]
    #[inline(never)]
    fn hold(&self) {
        // SAFETY: `inner` has `Arc::as_ptr`'s provenance (`Inner::make`),
        // and the acquiring handle keeps the pool alive.
        unsafe { Arc::increment_strong_count(self.inner.as_ptr().cast_const()) };
        let lent = self.lent.load(Ordering::Relaxed);
        self.lent.store(lent | HELD, Ordering::Relaxed);
    }

    /// Counts a guard lent, on the owner's thread: a load and a store, as
    /// no other thread writes `lent`.
    #[inline(always)]
    fn lend(&self) {
        let lent = self.lent.load(Ordering::Relaxed);
        if lent & HELD == 0 {
            self.hold();
        }
        let lent = self.lent.load(Ordering::Relaxed);
        self.lent.store(lent.wrapping_add(ONE), Ordering::Relaxed);
    }
}

/// How a run-time pool's `Pool`s reach the threads' parts: the pool's
/// allocation, and its id, the key of the threads' memo.
pub(crate) struct OwnedCaches<T: Reset + Send + 'static> {
    inner: NonNull<Inner<T>>,
    id: u64,
}

// SAFETY: a pointer to the pool, which is `Sync`, kept alive by whatever
// holds the `Pool` this is part of.
unsafe impl<T: Reset + Send + 'static> Send for OwnedCaches<T> {}
// SAFETY: as above.
unsafe impl<T: Reset + Send + 'static> Sync for OwnedCaches<T> {}

impl<T: Reset + Send + 'static> Clone for OwnedCaches<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Reset + Send + 'static> Copy for OwnedCaches<T> {}

impl<T: Reset + Send + 'static> OwnedCaches<T> {
    /// The calling thread's cache, made (and registered) on first use;
    /// `None` once the thread is destroying its thread-locals.
    #[inline(always)]
    pub(crate) fn cache(&self) -> Option<&LocalCache<T>> {
        // SAFETY: a part lives as long as its pool, which outlives `self`'s
        // use (what holds `self` keeps the pool alive).
        self.part().map(|part| unsafe { (*part.as_ptr()).cache() })
    }

    /// The calling thread's part: from the thread's [`memo`], or through
    /// the `ThreadLocal`, then recorded in the memo. `None` once the thread
    /// is destroying its thread-locals (see [`Memo::Off`]).
    #[inline(always)]
    fn part(&self) -> Option<NonNull<Part<T>>> {
        match memo::get(self.id) {
            // Recorded by `part_slow`, on this thread, for the pool whose
            // id this is (ids are never reused), which is alive: `self` is
            // its. So it is this thread's entry of the pool's `ThreadLocal`,
            // which stays where it is until the pool is dropped, and which
            // no other thread is handed while the memo is on (`memo`'s
            // invariant).
            Memo::Hit(part) => Some(part.cast()),
            // SAFETY: the pool, alive while `self` is used.
            Memo::Miss => Some((unsafe { self.inner.as_ref() }.part_slow)(self)),
            Memo::Off => None,
        }
    }

    #[cold]
    #[inline(never)]
    fn part_slow(&self) -> NonNull<Part<T>> {
        // SAFETY: the pool, alive while `self` is used.
        let inner = unsafe { self.inner.as_ref() };
        let mut made = false;
        let entry = inner.caches.get_or(|| {
            made = true;
            CachePadded::new(Part {
                pool: inner
                    .pool
                    .with_release(part_release::<T>, Some(part_unref::<T>)),
                lent: CachePadded::new(AtomicUsize::new(0)),
                back: CachePadded::new(AtomicUsize::new(0)),
                inner: self.inner,
                cache: RawCache::new(inner.pool.state.core()),
            })
        });
        // The pointer kept (by the memo, the list and guards) is derived
        // from `get`, not from what `get_or` returned: a new entry is
        // returned through the crate's `&mut` to it, which the next
        // thread's `get` (a thread that inherits the entry) would
        // invalidate, under Stacked Borrows, along with every pointer
        // derived from it.
        let entry = inner.caches.get().unwrap_or(entry);
        let part = NonNull::from(&**entry);
        if made {
            // The pointer the memo holds too: every access to the part
            // derives from this one.
            lock(&inner.parts).push(Lent(part));
        }
        memo::set(self.id, part.cast());
        part
    }
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
        let Some(part) = self.inner.owned.part() else {
            return self.acquire_counted();
        };
        // SAFETY: this thread's part, alive as long as the pool (which
        // this handle keeps alive); other threads touch only its `back`.
        let here = unsafe { part.as_ref() };
        let now = epoch::epoch().now();
        let value = self.inner.pool.take(Some(here.cache()), now);
        here.lend();
        // SAFETY: the guard's count on the part, which holds the pool
        // (`Part`'s invariant), given back by `part_release` or
        // `part_unref`; the part's `pool` is its first field (`repr(C)`).
        unsafe { Pooled::new(value, part.cast::<Pool<T>>()) }
    }

    /// An acquire on a thread that is destroying its thread-locals, which
    /// has no part: without a cache, the guard holding a strong count.
    #[cold]
    #[inline(never)]
    fn acquire_counted(&self) -> Pooled<T> {
        let value = self.inner.pool.take(None, epoch::epoch().now());
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
            .field("name", &self.inner.state.name())
            .field("capacity", &config.capacity)
            .field("thread_capacity", &config.thread_capacity)
            .field("stats", &self.stats())
            .finish()
    }
}

impl<T: Reset + Send + 'static> Inner<T> {
    /// The calling thread's cache, made (and registered) on first use;
    /// `None` once the thread is destroying its thread-locals.
    #[inline(always)]
    fn cache(&self) -> Option<&LocalCache<T>> {
        self.owned.cache()
    }

    /// The last handle is gone: closes every part, and gives back the
    /// count of each that has no guard out (`Part`'s invariant). `this` is
    /// the pool, from `Arc::as_ptr`; the caller's handle still holds it.
    fn close(&self, this: *const Inner<T>) {
        let parts = lock(&self.parts);
        for part in parts.iter() {
            let part = part.0;
            // SAFETY: a part of this pool, alive as long as the pool; only
            // its atomics are reached, as its owner may be using the rest.
            let (lent, back) = unsafe { (&(*part.as_ptr()).lent, &(*part.as_ptr()).back) };
            // No acquire follows: the handles' count ordered every one
            // before this `close`, and this is the last handle.
            let lent = lent.load(Ordering::Relaxed);
            if lent & HELD == 0 {
                continue; // lent nothing, holds nothing
            }
            let closing = CLOSED.wrapping_sub(lent - HELD);
            if back
                .fetch_add(closing, Ordering::AcqRel)
                .wrapping_add(closing)
                == CLOSED
            {
                self.owners.leave();
                // SAFETY: the part's count, given back once (only this
                // addition made `back` `CLOSED`: every guard was back);
                // not the last count, as the caller's handle holds one.
                unsafe { Arc::decrement_strong_count(this) };
            }
        }
    }

    /// [`Pool::put`], knowing where the caches are.
    #[inline(always)]
    fn put(&self, value: Boxed<T>) {
        if let Some(value) = self.pool.prepare(value) {
            let now = epoch::epoch().now();
            self.pool.give(self.cache(), value, now);
        }
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
        for part in self.caches.iter_mut() {
            // SAFETY: `state` is a field of this allocation, dropped after
            // the caches, and was made by `with_home`.
            part.cache
                .set_core(unsafe { StateRef::from_owned(state) }.core());
        }
    }
}

impl<T: Reset + Send + 'static> Drop for PoolHandle<T> {
    fn drop(&mut self) {
        if self.inner.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.inner.close(Arc::as_ptr(&self.inner));
        }
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

/// The release of a run-time pool's guard taken without a part
/// (`acquire_counted`): returns the object through the pool, then gives
/// back the guard's strong count (also if the reset or the `retain` test
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
    // SAFETY: the guard's count keeps the pool alive until `_unref` drops;
    // the pointer is to the `Inner`'s first field, `repr(C)`, with the
    // provenance of the whole allocation (`PoolHandle::acquire_counted`).
    unsafe { pool.cast::<Inner<T>>().as_ref() }.put(value.0);
}

/// Gives back a guard's count on its run-time pool.
///
/// # Safety
///
/// `pool` is a guard's pool pointer, made by `PoolHandle::acquire_counted`, and
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

/// The release of a guard acquired through a thread's part: returns the
/// object through the pool, then gives back the guard's count on the part
/// (also if the reset or the `retain` test panics).
fn part_release<T: Reset + Send + 'static>(pool: NonNull<Pool<T>>, value: Released<T>) {
    /// Gives the guard's count back when dropped.
    struct GiveBack<T: Reset + Send + 'static>(NonNull<Part<T>>);
    impl<T: Reset + Send + 'static> Drop for GiveBack<T> {
        fn drop(&mut self) {
            // SAFETY: the guard's part and count, given up by the release.
            unsafe { give_back(self.0) };
        }
    }
    let part = pool.cast::<Part<T>>();
    let _give_back = GiveBack(part);
    // SAFETY: the guard's count keeps the part's hold, and so the pool,
    // alive until `_give_back` drops; `inner` is never written after the
    // part is made.
    let inner = unsafe { (*part.as_ptr()).inner };
    // SAFETY: as above.
    unsafe { inner.as_ref() }.put(value.0);
}

/// [`Pool::unref`] for a guard acquired through a thread's part.
///
/// # Safety
///
/// As [`give_back`].
unsafe fn part_unref<T: Reset + Send + 'static>(pool: NonNull<Pool<T>>) {
    // SAFETY: the caller's promise; a part's pool is its first field.
    unsafe { give_back(pool.cast::<Part<T>>()) };
}

/// Gives back a guard's count on the part it was acquired through, and the
/// part's count on the pool if that was the closed part's last guard
/// (`Part`'s invariant).
///
/// # Safety
///
/// `part` is a guard's part, and the guard gives its count up: nothing of
/// the pool may be used by the caller after this call.
unsafe fn give_back<T: Reset + Send + 'static>(part: NonNull<Part<T>>) {
    // Read before the addition: once it is done the part may be gone.
    // SAFETY: alive by the guard's count; `back` is only reached as an
    // atomic, `inner` is never written after the part is made.
    let (back, inner) = unsafe { (&(*part.as_ptr()).back, (*part.as_ptr()).inner) };
    if back.fetch_add(ONE, Ordering::AcqRel).wrapping_add(ONE) == CLOSED {
        // SAFETY: the part's count on the pool, which only this release
        // gives back; `inner` has `Arc::as_ptr`'s provenance.
        unsafe {
            (*inner.as_ptr()).owners.leave();
            Arc::decrement_strong_count(inner.as_ptr().cast_const());
        }
    }
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
