//! The typed pools, on the engine: [`Pool`], the one pool type every kind
//! of pool is (a `pool!` static, a derived type's pool, a run-time pool
//! behind its handle, a generic struct's pool): its fast paths, their
//! steps past the user's code without the type, and what enters or leaves a pool other than
//! through a guard ([`Pool::prefill`], [`Pool::put`], [`Pool::clear`]).
//!
//! Invariants:
//! 1. A `Pool` is immutable. What changes as the pool runs lives in its
//!    state (`state`) and in its threads' caches, reached through
//!    [`Caches`]: for a static, a `thread_local!` and a `static` of their
//!    own, so the compiler treats the pool as a constant and folds the
//!    cache access into a direct thread-local access where the pool is
//!    named; for a run-time pool, its allocation (`runtime`).
//! 2. Erasure: every `Erased` here is an object of the pool whose cache or
//!    core is given, and every function handed with it (`make`, `reset`,
//!    `retains` of `config`, with the pool's `Create<T>` or `Retain<T>`)
//!    was made for that pool's `T` (`crate::pool::state`). Only the fast
//!    paths are generic over `T`, up to the user's `reset` and
//!    `heap_bytes`; the rest goes, erased, to the steps here (`taken`,
//!    `keep`, `offer`), the slow paths of `erased_paths` and
//!    `crate::engine::cache`, compiled once in pool-core.
//! 3. Every way in or out goes the way the guard paths go (the same reset,
//!    `retain` test, bounds and counters; rotation's handshake to reach
//!    other threads' caches), so the statistics stay exact and no user
//!    code runs under a lock.

pub(crate) mod config;
pub(crate) mod declare;
mod erased_paths;
pub(crate) mod guard;
pub(crate) mod runtime;
pub(crate) mod state;
pub(crate) mod template;

use std::fmt;
use std::ptr::NonNull;

use crate::engine::cache::{Bytes, RawCache, ThreadCache, put_shared};
use crate::engine::core::PoolCore;
use crate::engine::erased::{Boxed, Erased, boxed_with, untyped};
use crate::engine::slot::epoch;
use crate::engine::stats::Stats;
use crate::reset::Reset;
use crate::sync::{AtomicU64, LocalKey, Ordering};
use config::{ByteBounds, HeapFn, PoolConfig, ResetFn, ResetOn, RetainFn, ShrinkFn};
use erased_paths::{DiscardOnUnwind, keep_if, over_bound, take_missed};
use guard::{Abandoned, Home, Pooled, Released};
use runtime::threads::ShareHead;
use state::StateRef;

/// A pool of reusable `T`s: per-thread caches in front of a bounded shared
/// store with a victim tier (the [crate docs](crate#how-it-works) draw the
/// tiers).
///
/// A `Pool` lives in a `static` declared with [`pool!`](crate::pool!), which
/// also gives it its per-thread cache; types that derive
/// [`Poolable`](crate::Poolable) get one declared for them.
/// [`acquire`](Pool::acquire) hands out a [`Pooled`] guard; dropping the
/// guard resets the object and returns it (or, in a pool that
/// [resets on acquire](PoolConfig::reset_on_acquire), returns it as it is
/// and the next acquire resets it).
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
#[repr(C)]
pub struct Pool<T: Reset + Send + 'static> {
    /// Where the guards that hold nothing of a share go back: for a static,
    /// the pool itself; for a run-time pool, its allocation, on which such
    /// a guard holds a strong count. First, so that a pointer to it is a
    /// pointer to the pool ([`Home`]'s invariant).
    pub(crate) home: Home<T>,
    pub(crate) config: PoolConfig<T>,
    pub(crate) local: Caches<T>,
    pub(crate) state: StateRef<T>,
}

/// Where a pool's per-thread caches live.
pub(crate) enum Caches<T: Reset + Send + 'static> {
    /// The `thread_local!` that `pool!` declares, for a pool that is a
    /// `static` (`declare`'s invariant). A constant in a pool static, so
    /// the compiler folds the `match` on the fast paths away.
    Static(&'static LocalKey<ThreadCache>),
    /// A run-time pool's threads' shares.
    Runtime(Runtime<T>),
}

/// How a run-time pool's `Pool` reaches its threads' shares: its
/// allocation, erased, its id, and the table of the functions that know
/// its type. The run-time pools are built on this module (`runtime`), so
/// it names none of their types.
pub(crate) struct Runtime<T: Reset + Send + 'static> {
    /// The run-time pool's allocation, with the provenance of all of it,
    /// alive as long as the `Pool`, which is in it.
    pub(crate) inner: NonNull<()>,
    /// The pool's id, the key of the threads' memos (`runtime::threads`),
    /// and its entry in them.
    pub(crate) id: u64,
    pub(crate) at: runtime::threads::MemoEntry,
    /// The pool's functions, one table per pooled type.
    pub(crate) fns: &'static RuntimeFns<T>,
}

/// A run-time pool's functions past the memo, each called with the pool's
/// allocation (`Runtime::inner`): made once per `T`, a constant.
pub(crate) struct RuntimeFns<T: Reset + Send + 'static> {
    /// Acquires through the calling thread's share (a memo miss). Called
    /// with the pool in the allocation too.
    pub(crate) acquire: unsafe fn(NonNull<()>, &Pool<T>) -> Pooled<T>,
    /// Files an object given with [`Pool::put`] (counted, not yet reset)
    /// through the calling thread's share, as a release.
    pub(crate) put: unsafe fn(NonNull<()>, Boxed<T>),
    /// Empties the calling thread's share's cache, for [`Pool::clear`].
    pub(crate) clear: unsafe fn(NonNull<()>),
}

// SAFETY: a pointer to a run-time pool's allocation, which is `Sync` (its
// mutable shares are behind locks, atomics and the per-thread shares), kept
// alive by whatever holds the `Pool` this belongs to.
unsafe impl<T: Reset + Send + 'static> Send for Runtime<T> {}
// SAFETY: as above.
unsafe impl<T: Reset + Send + 'static> Sync for Runtime<T> {}

impl<T: Reset + Send + 'static> Clone for Runtime<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Reset + Send + 'static> Copy for Runtime<T> {}

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
    #[allow(clippy::new_ret_no_self)]
    pub const fn new(create: fn() -> T) -> PoolConfig<T> {
        PoolConfig::new(create)
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
    #[inline(always)]
    pub fn acquire(&self) -> Pooled<T> {
        match &self.local {
            Caches::Static(key) => {
                let value = self.take(&self.config, static_cache(key), epoch().now());
                // SAFETY: a pool with a `thread_local!` key is a static
                // (`declare`'s invariant), so its home lives for ever and
                // the guard needs no hold on it. The pointer is the pool's,
                // whose first field the home is (`repr(C)`), so that
                // `abandon_static` may reach the rest of the pool through it.
                unsafe { Pooled::new(value, NonNull::from(self).cast::<Home<T>>()) }
            }
            Caches::Runtime(runtime) => self.acquire_runtime(runtime),
        }
    }

    /// [`acquire`](Self::acquire) for the run-time pool whose shares are
    /// reached through `runtime`: through the calling thread's share, which
    /// the memo gives on the fast path.
    #[inline(always)]
    pub(crate) fn acquire_runtime(&self, runtime: &Runtime<T>) -> Pooled<T> {
        if let Some(share) = runtime::threads::get(runtime.id, runtime.at) {
            // SAFETY: recorded for this pool (ids are never reused), so
            // this thread's share of it (`runtime::threads`'s invariant),
            // alive as long as the pool, which `self` keeps alive; a share
            // begins with its head, and this thread owns it.
            let head = unsafe { share.cast::<ShareHead<T>>().as_ref() };
            // A share an acquire reaches holds the pool (`HELD`: `ThreadShare`'s
            // protocol, `crate::pool::runtime::share`).
            let value = self.take(&self.config, Some(head.cache.get()), epoch().now());
            head.lent.lend_held();
            // SAFETY: the guard is counted in the share's `lent`, and the
            // share holds the pool; its home is the share's first field.
            return unsafe { Pooled::new(value, share.cast::<Home<T>>()) };
        }
        // SAFETY: a run-time pool's own allocation and acquire, and the
        // pool is the one in it.
        unsafe { (runtime.fns.acquire)(runtime.inner, self) }
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

    /// Acquires with `cache` as this thread's cache: an idle object (reset
    /// here if the pool resets on acquire), or a new one. `config` is the
    /// pool's, or a generic derived struct's constant copy of it, so that
    /// its tests fold as in a `pool!` static.
    #[inline(always)]
    pub(crate) fn take(
        &self,
        config: &PoolConfig<T>,
        cache: Option<&RawCache>,
        now: u64,
    ) -> Boxed<T> {
        // One miss for both ways to find nothing: no cache, or an empty one.
        let found = match cache {
            Some(cache) => cache.pop(now),
            None => None,
        };
        let (Some(cache), Some(mut value)) = (cache, found) else {
            return self.miss(cache, now);
        };
        // Constants in a `pool!` static: a type that reports no bytes, in
        // a pool that resets on release, takes no more step.
        if const { T::HEAP.is_counted() } || config.reset_on == ResetOn::Acquire {
            let steps = Self::steps(config);
            // With a budget, the bytes are the pool's own counter's.
            let counter = match config.bytes.max_idle {
                Some(_) => None,
                None => Some(cache),
            };
            // SAFETY: the object is this pool's, the functions its `T`'s.
            value = unsafe { taken(&self.state.core, counter, value, steps) };
        }
        // SAFETY: the cache's objects are `Boxed<T>`s of this `T` (the
        // erasure invariant, `crate::pool::state`).
        unsafe { value.into_boxed() }
    }

    /// What an acquire does to an idle object that depends on `T` and on
    /// `config` (as for [`Pool::take`]), as erased functions: the reset,
    /// if the pool resets on acquire, and `heap_bytes`, if `T` counts its
    /// bytes. The rest of an acquire's steps are compiled once, in
    /// pool-core, not once per pooled type.
    #[inline(always)]
    fn steps(config: &PoolConfig<T>) -> Steps {
        let reset = match config.reset_on {
            ResetOn::Acquire => Some(config::reset::<T> as ResetFn),
            ResetOn::Release => None,
        };
        // A constant: a type that reports no bytes is never measured.
        let heap = match const { T::HEAP.is_counted() } {
            true => Some(config::heap::<T> as HeapFn),
            false => None,
        };
        (reset, heap)
    }

    /// An acquire that found nothing in the thread's cache: [`take_missed`]
    /// with this pool's constructor; an object it found in the shared
    /// tiers then takes [`taken`]'s steps, as a hit does.
    #[cold]
    #[inline(never)]
    fn miss(&self, cache: Option<&RawCache>, now: u64) -> Boxed<T> {
        let create = untyped(&raw const self.config.create as *const u8).cast();
        let core = &self.state.core;
        // SAFETY: the constructor and its function are this pool's.
        let value = match unsafe { take_missed(core, cache, now, (config::make::<T>, create)) } {
            // Idle in the shared tiers: its bytes are the pool's, counted
            // out there.
            // SAFETY: the object is this pool's, the functions its `T`'s.
            Ok(value) => unsafe { taken(core, None, value, Self::steps(&self.config)) },
            Err(made) => made,
        };
        // SAFETY: an object of this pool, so a `Boxed<T>` of this `T` (the
        // erasure invariant, `crate::pool::state`).
        unsafe { value.into_boxed() }
    }

    /// Returns `value`, released by a guard with no share (a static pool's,
    /// or a run-time pool's counted guard), to this thread's cache: the
    /// static's, or none (the shared store) for a run-time pool, whose
    /// guards with a share go back through it (`runtime::share`).
    #[inline(always)]
    pub(crate) fn release(&self, value: Boxed<T>) {
        let reset = self.config.reset_on == ResetOn::Release;
        let Some(value) = self.prepare(&self.config, value, reset, true) else {
            return;
        };
        let cache = match &self.local {
            Caches::Static(key) => static_cache(key),
            Caches::Runtime(_) => None,
        };
        self.give(&self.config, cache, value);
    }

    /// Resets a released object if `reset` says so (`false` where the
    /// pool resets on acquire, or the caller has reset it), holds it to the
    /// pool's bound in bytes, and runs the pool's `retain` test on it unless
    /// `check_retain` is `false` (only for a pool with no test): the object
    /// to keep, erased, or `None` if dropped. `config` as for [`Pool::take`].
    #[inline(always)]
    pub(crate) fn prepare(
        &self,
        config: &PoolConfig<T>,
        mut value: Boxed<T>,
        reset: bool,
        check_retain: bool,
    ) -> Option<Prepared> {
        // The user's `reset` and `heap_bytes` under one guard, as in
        // [`Pool::reset`].
        let on_unwind = CountOnUnwind(self.state.core.discarded());
        if reset {
            value.reset();
        }
        // A constant: a type that reports no bytes is never measured.
        let counted = const { T::HEAP.is_counted() };
        let held = if counted { value.heap_bytes() } else { 0 };
        std::mem::forget(on_unwind);
        // Erased from here on: nothing below unwinds with the object (the
        // cold paths hold it themselves), so no cleanup is compiled for it.
        let value = Erased::new(value);
        // A constant `None` for a `pool!` without `retain`.
        let retain = match (check_retain, &config.retain) {
            (true, Some((retain, retains))) => Some((
                *retains,
                untyped(retain as *const config::Retain<T> as *const u8).cast(),
            )),
            _ => None,
        };
        // Constants in a `pool!` static: a type that reports no bytes, in a
        // pool with no `retain`, is kept as it is.
        if !counted && retain.is_none() {
            return Some(Prepared { value, bytes: None });
        }
        let bytes = match counted {
            true => Some((held, Self::steps(config).0, config::shrink::<T> as ShrinkFn)),
            false => None,
        };
        // SAFETY: the object is this pool's, the functions its `T`'s.
        unsafe { keep(&self.state.core, config.bytes, value, bytes, retain) }
    }

    /// Runs `reset` (the user's [`Reset::reset`], or a generic derived
    /// struct's with its template at hand), counting the object as
    /// discarded if it panics (the unwind then drops it: a half-reset
    /// object is never reused). At release the panic goes on to the guard's
    /// drop; at acquire, to `acquire`'s caller, the object already counted
    /// as reused and now as discarded, so `in_use` does not count it.
    #[inline(always)]
    pub(crate) fn reset(&self, value: &mut T, reset: impl FnOnce(&mut T)) {
        let on_unwind = CountOnUnwind(self.state.core.discarded());
        reset(value);
        std::mem::forget(on_unwind);
    }

    /// Gives a prepared `value` to `cache` (this thread's), or past it (full,
    /// gone or disabled) to the shared store; `config` as for [`Pool::take`].
    #[inline(always)]
    pub(crate) fn give(&self, config: &PoolConfig<T>, cache: Option<&RawCache>, value: Prepared) {
        if let (Err(value), held) = self.offer(config, cache, value, epoch().now()) {
            put_shared(&self.state.core, cache, value, held);
        }
    }

    /// Keeps a prepared `value` in `cache`, or drops it past the idle
    /// budget: else the object, and its bytes, for the shared store.
    /// `config` as for [`Pool::take`].
    #[inline(always)]
    pub(crate) fn offer(
        &self,
        config: &PoolConfig<T>,
        cache: Option<&RawCache>,
        value: Prepared,
        now: u64,
    ) -> Offered {
        offer(&self.state.core, config.bytes.max_idle, cache, value, now)
    }
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Counts and drops an object that does not come back: `Some`,
    /// discarded; `None`, taken out of the pool for good (detached).
    #[inline]
    pub(crate) fn abandon(&self, value: Abandoned<T>) {
        self.state.core.abandon(value.erase());
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for Pool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `heap`: whether the pool can hold its objects to a bound in bytes
        // (`Heap::Unreported` says it cannot).
        f.debug_struct("Pool")
            .field("capacity", &self.config.capacity)
            .field("thread_capacity", &self.config.thread_capacity)
            .field("heap", &T::HEAP)
            .field("stats", &self.stats())
            .finish()
    }
}

/// The body of the release [`pool!`](crate::pool!) generates for each pool,
/// `|_, value| release(&POOL, value)`: there the pool is a named `static`,
/// a constant, so the release inlines with a direct `%fs:` access to the
/// thread cache, where one through the guard's home could not see which
/// thread-local it goes to (docs/PERFORMANCE.md, instructions).
#[inline(always)]
pub fn release<T: Reset + Send + 'static>(pool: &'static Pool<T>, value: Released<T>) {
    pool.release(value.0);
}

/// This thread's cache of a static pool, through one non-generic
/// function, so that `LocalKey::try_with` is compiled once for every pool,
/// not once per pooled type. (Always `Some` outside loom: the
/// thread-local has no destructor to have run.) A hint, not
/// `inline(always)`: a debug build calls it, and an optimised one inlines
/// it where the key is a constant, for a direct thread-local access.
#[inline]
pub(crate) fn static_cache(key: &'static LocalKey<ThreadCache>) -> Option<&'static RawCache> {
    let cache = key.try_with(|cache| NonNull::from(cache.raw())).ok()?;
    // SAFETY: the thread-local is never dropped (`ThreadCache`), so its
    // value lives until the thread ends, and the reference cannot outlive
    // the thread: `RawCache` is not `Sync`, so `&RawCache` stays on it.
    Some(unsafe { cache.as_ref() })
}

/// The steps of an acquire past finding `value` idle, erased (compiled
/// once, not per pooled type): its bytes (`heap`, if its type counts them)
/// counted out of the idle ones, in `cache`'s count (a hit in a pool with
/// no budget) or else in the pool's, then the reset on acquire (`reset`,
/// if the pool resets then). A `heap_bytes` or a reset that panics
/// discards the object, its bytes counted as idle until they are counted
/// out.
///
/// # Safety
///
/// `value` is an object of the pool whose core is `core`, and `reset` and
/// `heap` are that pool's `T`'s (the module's invariant).
#[inline]
unsafe fn taken(
    core: &PoolCore,
    cache: Option<&RawCache>,
    value: Erased,
    (reset, heap): Steps,
) -> Erased {
    if let Some(heap) = heap {
        // SAFETY: forgotten below; an unwind leaves `value` to it.
        let on_unwind = unsafe { DiscardOnUnwind::new(core, &value, true) };
        // SAFETY: the caller's promise; the object is this call's alone.
        let bytes = unsafe { heap(value.as_ptr()) };
        std::mem::forget(on_unwind);
        match cache {
            Some(cache) => cache.count_out(bytes),
            None => core.count_idle_out(bytes),
        }
    }
    if let Some(reset) = reset {
        // Its bytes are counted out: no longer idle.
        // SAFETY: as above.
        let on_unwind = unsafe { DiscardOnUnwind::new(core, &value, false) };
        // SAFETY: the caller's promise; the object is this call's alone.
        unsafe { reset(value.as_ptr()) };
        std::mem::forget(on_unwind);
    }
    value
}

/// A released object, prepared past the user's `reset` and `heap_bytes`,
/// erased (compiled once, not per pooled type): held to the pool's bounds
/// in bytes, `bounds`, if its type counts them (`bytes`: what it holds,
/// and the reset on acquire and the shrink of [`over_bound`]), then tested
/// with the pool's `retain` (with its data), if any: the object to keep,
/// or `None` if dropped.
///
/// # Safety
///
/// `value` is an object of the pool whose core is `core`, and the
/// functions are that pool's `T`'s (the module's invariant).
#[inline]
unsafe fn keep(
    core: &PoolCore,
    bounds: ByteBounds,
    mut value: Erased,
    bytes: Option<(usize, Option<ResetFn>, ShrinkFn)>,
    retain: Option<(RetainFn, NonNull<()>)>,
) -> Option<Prepared> {
    let mut counted = None;
    if let Some((held, reset, shrink)) = bytes {
        counted = Some(if held > bounds.bound(core) {
            // SAFETY: the caller's promise.
            let (shrunk, kept) = unsafe { over_bound(core, bounds, value, held, reset, shrink) }?;
            value = shrunk;
            Bytes {
                held: kept,
                sample: false,
            }
        } else {
            Bytes {
                held,
                sample: bounds.learns(),
            }
        });
    }
    if let Some(retain) = retain {
        // SAFETY: the caller's promise.
        value = unsafe { keep_if(core, value, retain) }?;
    }
    Some(Prepared {
        value,
        bytes: counted,
    })
}

/// Keeps a prepared `value` of the pool whose core is `core` in `cache`,
/// or drops it past the idle budget, `max_idle`: else the object, and its
/// bytes, for the shared store. Erased, as [`keep`] is.
#[inline]
fn offer(
    core: &PoolCore,
    max_idle: Option<usize>,
    cache: Option<&RawCache>,
    value: Prepared,
    now: u64,
) -> Offered {
    let Prepared { value, mut bytes } = value;
    // A constant `None` in a `pool!` static without a budget.
    if let (Some(budget), Some(counted)) = (max_idle, bytes.as_mut()) {
        if !core.reserve_idle(counted.held, budget) {
            core.count_oversize();
            core.shared.destroy(value, false);
            return (Ok(()), 0);
        }
        // Counted in the pool's counter: the cache counts nothing more.
        counted.held = 0;
    }
    let held = match bytes {
        Some(bytes) => bytes.held,
        None => 0,
    };
    let kept = match cache {
        Some(cache) => cache.push(value, now, bytes),
        None => Err(value),
    };
    (kept, held)
}

/// What [`Pool::offer`] did not keep, and its bytes.
type Offered = (Result<(), Erased>, usize);

/// An acquire's steps that depend on the pooled type (`Pool::steps`): the
/// reset on acquire, and `heap_bytes`.
type Steps = (Option<ResetFn>, Option<HeapFn>);

/// A released object ready to be kept ([`Pool::prepare`]), erased, and the
/// bytes it holds if its type counts them. Only the pool that prepared it
/// files it (the erasure invariant).
pub(crate) struct Prepared {
    pub(crate) value: Erased,
    pub(crate) bytes: Option<Bytes>,
}

/// Counts an object as discarded if dropped: forgotten once the user code
/// it guards has returned, so it costs nothing unless that code panics.
struct CountOnUnwind<'a>(&'a AtomicU64);

impl Drop for CountOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Makes objects until the shared store holds `n` idle ones (at most
    /// [`capacity`](crate::PoolConfig::capacity)), so that a burst on any thread
    /// is served without calling the constructor. Returns how many it made.
    /// Any `n` is accepted: only what the store can take is made, a batch
    /// at a time, and if the constructor panics the objects made so far
    /// are kept, idle, before the panic goes on.
    ///
    /// The objects wait in the shared primary tier, where every thread's
    /// first acquires find them (a thread's first miss also refills half
    /// its cache from them). They are counted as
    /// [`created`](crate::Stats::created) and [`returned`](crate::Stats::returned), so
    /// [`idle`](crate::Stats::idle) includes them. Like every idle object they
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
        self.state.prefill(n, || self.config.create.call())
    }

    /// Resets `value`, an object made elsewhere, and keeps it in the pool
    /// as an idle object, as if a guard of it had been dropped: the next
    /// acquire may return it.
    ///
    /// It goes where a release goes, after the same `reset` (none, in a
    /// pool that resets on acquire: the next acquire resets it) and the
    /// same [`retain`](crate::PoolConfig::retain) test: into the calling thread's cache
    /// (or the shared store when that is full), on every kind of pool. Past
    /// the bounds it is dropped and counted as `dropped_capacity`, as a
    /// release is.
    ///
    /// In [`Stats`](crate::Stats) it counts in [`put`](crate::Stats::put), never in
    /// [`created`](crate::Stats::created), and then as a release does: in
    /// `returned` (and `idle`) if kept, in `rejected` or `discarded` if its
    /// `retain` test or `reset` refused it; [`in_use`](crate::Stats::in_use) is
    /// unchanged.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new); }
    ///
    /// let mut made_elsewhere = Vec::with_capacity(1024);
    /// made_elsewhere.extend_from_slice(b"old data");
    /// BUFFERS.put(made_elsewhere);
    ///
    /// let buf = BUFFERS.acquire(); // the same buffer, reset
    /// assert!(buf.is_empty() && buf.capacity() >= 1024);
    /// let stats = BUFFERS.stats();
    /// assert_eq!((stats.created, stats.put, stats.in_use()), (0, 1, 1));
    /// ```
    pub fn put(&self, value: T) {
        self.state.core.count_put();
        let value = boxed_with(|| value);
        match &self.local {
            Caches::Static(_) => self.release(value),
            // SAFETY: a run-time pool's own allocation and `put`, alive
            // while `self`, which is in it, is.
            Caches::Runtime(runtime) => unsafe { (runtime.fns.put)(runtime.inner, value) },
        }
    }

    /// Drops every idle object of this pool now: its shared store and its
    /// threads' caches, the calling thread's included. Objects held in
    /// guards are not touched, and go back to the pool as usual.
    ///
    /// A thread cache is reached as [`rotate`](crate::rotate) reaches it:
    /// a cache whose owner is in the middle of an acquire or a release on
    /// this pool is passed over (it stays as it is, to age as usual), and
    /// on platforms without a process-wide memory barrier (other than
    /// Linux and Windows) only the shared store and the calling thread's
    /// own cache are emptied. The
    /// objects are counted as [`dropped_rotation`](crate::Stats::dropped_rotation),
    /// and destroyed on the calling thread once the pool's locks are
    /// released. The global epoch does not move: other pools are not aged.
    ///
    /// ```
    /// use pool_core::{Pool, pool};
    ///
    /// pool! { static LINES: Pool<String> = Pool::new(String::new); }
    ///
    /// let held: Vec<_> = (0..4).map(|_| LINES.acquire()).collect();
    /// drop(held); // four idle strings in this thread's cache
    /// assert_eq!(LINES.stats().idle, 4);
    ///
    /// LINES.clear();
    /// let stats = LINES.stats();
    /// assert_eq!((stats.idle, stats.dropped_rotation), (0, 4));
    /// ```
    pub fn clear(&self) {
        // This thread's cache first, through its own slow entry: the one
        // cache reachable without a process-wide barrier. Gone (in a
        // thread-local destructor), it has handed its objects over.
        match &self.local {
            Caches::Static(key) => {
                if let Some(cache) = crate::pool::static_cache(key) {
                    cache.clear();
                }
            }
            // SAFETY: a run-time pool's own allocation and `clear`, alive
            // while `self`, which is in it, is.
            Caches::Runtime(runtime) => unsafe { (runtime.fns.clear)(runtime.inner) },
        }
        self.state.core.clear();
    }
}
