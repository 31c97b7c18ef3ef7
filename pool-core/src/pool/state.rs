//! A typed pool's state: [`PoolState<T>`], the engine's [`PoolCore`] with
//! the pool's `T`.
//!
//! Invariant (erasure): these are the only ways objects enter or leave a
//! core typed. [`PoolState::new`] makes the core's dispose function for
//! `T`, and every object filed in that core, in its store or a cache of it,
//! was erased from a `Boxed<T>` of the same `T`, here or by the pool's fast
//! paths (`crate::pool`).
//!
//! A static pool's state is a `static` of its own, apart from the immutable
//! [`Pool`](crate::Pool) static, reached by the pool through a
//! [`StateRef`] and by each thread's cache through a [`CoreRef`]; a
//! run-time pool's is a field of its allocation (`crate::pool::runtime`).

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::engine::cache::policy::Bounds;
use crate::engine::core::{CoreRef, PoolCore};
use crate::engine::erased::{Erased, Padded, boxed_with};
use crate::engine::registry::Rotate;
use crate::engine::stats::Stats;
use crate::pool::config::PoolConfig;
use crate::pool::template::Template;
use crate::reset::Reset;
use crate::sync::const_fn;

/// What a pool changes as it runs: its shared store and its counters.
/// Declared by [`pool!`](crate::pool!) as a `static` of its own.
#[doc(hidden)]
pub struct PoolState<T: Reset + Send + 'static> {
    /// The store, the caches and the counters, on erased objects: every
    /// object filed in it is a `Boxed<T>` of this `T`.
    pub(crate) core: PoolCore,
    /// The constructor's values, for the reset of a generic derived struct,
    /// whose template cannot be a `static` of its own (`crate::pool::template`).
    pub(crate) template: Template,
    /// The objects' type, which the core's `dispose` was made for.
    _type: PhantomData<fn(T) -> T>,
}

/// A pointer to a pool's state, for the pool: a `&'static` for a `pool!`
/// static, or a pointer into the allocation of a run-time pool
/// (`crate::pool::runtime`), which drops its caches and its `Pool` before its
/// state.
pub(crate) struct StateRef<T: Reset + Send + 'static>(NonNull<PoolState<T>>);

impl<T: Reset + Send + 'static> StateRef<T> {
    /// A pool static's state.
    pub(crate) const fn from_static(state: &'static PoolState<T>) -> Self {
        // `NonNull::from_ref` would say this safely, but it is const only
        // from Rust 1.89 and the crate supports 1.85.
        // SAFETY: a reference is never null.
        StateRef(unsafe { NonNull::new_unchecked(std::ptr::from_ref(state).cast_mut()) })
    }

    /// A run-time pool's state.
    ///
    /// # Safety
    ///
    /// `state` must outlive the returned pointer and its copies, and must
    /// be a run-time pool's, its core's owner set (`PoolCore::set_owner`).
    pub(crate) unsafe fn from_owned(state: NonNull<PoolState<T>>) -> Self {
        StateRef(state)
    }

    /// The state's core, for as long as the state lives.
    #[inline]
    pub(crate) fn core(self) -> CoreRef {
        // SAFETY: `self.0` points to a live state (`StateRef`'s promise);
        // the field's address is taken without making a reference, so the
        // pointer keeps the provenance `self.0` has.
        // The core lives as long as its state, which outlives every holder
        // of a `StateRef` (and so of the caches made from it).
        unsafe { CoreRef::new(NonNull::new_unchecked(&raw mut (*self.0.as_ptr()).core)) }
    }
}

impl<T: Reset + Send + 'static> Clone for StateRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Reset + Send + 'static> Copy for StateRef<T> {}

impl<T: Reset + Send + 'static> std::ops::Deref for StateRef<T> {
    type Target = PoolState<T>;

    #[inline]
    fn deref(&self) -> &PoolState<T> {
        // SAFETY: a static, or a run-time pool's state, which outlives
        // every holder of a `StateRef` to it (`StateRef::from_owned`).
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: a `StateRef` is a shared reference to a `PoolState`, which is
// `Sync` (its mutable parts are behind locks and atomics) when `T: Send`.
unsafe impl<T: Reset + Send + 'static> Send for StateRef<T> {}
// SAFETY: as above.
unsafe impl<T: Reset + Send + 'static> Sync for StateRef<T> {}
impl<T: Reset + Send + 'static> PoolState<T> {
    const_fn! {
        /// An empty state named `name`, within `config`'s bounds, for
        /// [`pool!`](crate::pool!).
        pub fn new(name: &'static str, config: &PoolConfig<T>) -> Self {
            let bounds = Bounds {
                thread_capacity: config.thread_capacity,
                capacity: config.capacity,
            };
            PoolState {
                // SAFETY: objects enter the core only erased from a
                // `Boxed<T>` of this `T` (the methods below and the
                // pool's fast paths), which `dispose::<T>` accepts.
                core: unsafe {
                    PoolCore::new(name, bounds, dispose::<T>, size_of::<Padded<T>>())
                },
                template: Template::new(),
                _type: PhantomData,
            }
        }
    }

    /// Makes objects with `create` until the shared store holds `target`
    /// (at most the pool's capacity), and returns how many it made. They are counted
    /// as created and as returned, so that `in_use` stays exact and `idle`
    /// includes them.
    ///
    /// The objects are made outside the store's lock (a constructor is user
    /// code), in batches of at most [`PREFILL_BATCH`], each filed as soon
    /// as it is made: memory for the objects in flight is bounded by the
    /// batch, whatever `target` is (`usize::MAX` included), and only what
    /// the store can take is made at all. A constructor that panics files
    /// the objects its batch made so far before the panic goes on, so
    /// nothing leaks and the counts stay exact. Threads releasing into the
    /// store meanwhile may fill it first; what no longer fits then is
    /// dropped and counted as `dropped_capacity`, as any release past the
    /// bound is.
    pub(crate) fn prefill(&self, target: usize, create: impl Fn() -> T) -> usize {
        let missing = self.core.missing(target);
        let mut made = 0;
        while made < missing {
            let n = (missing - made).min(PREFILL_BATCH);
            let mut batch = Made {
                core: &self.core,
                objects: Vec::with_capacity(n),
            };
            for _ in 0..n {
                let mut object = boxed_with(&create);
                // Idle from now on: its bytes count in the pool's idle ones.
                if T::HEAP.is_counted() {
                    self.core.count_idle_in(object.heap_bytes());
                }
                batch.objects.push(Erased::new(object));
            }
            made += n;
            // Filed by `Made`'s drop, as on an unwind.
        }
        missing
    }
    /// A snapshot of the pool's counters. See [`Stats`].
    #[inline]
    pub(crate) fn stats(&self) -> Stats {
        self.core.stats()
    }
}

/// The [`Dispose`](crate::engine::erased::Dispose) of a pool of `T`s:
/// drops the object, frees its box, and returns the heap bytes it held
/// ([`Reset::heap_bytes`]; `0` for a type that does not count them), which
/// the store counts out of the pool's idle bytes.
///
/// # Safety
///
/// `object` must have been made from a `Boxed<T>` of this `T`.
unsafe fn dispose<T: Reset>(object: Erased) -> usize {
    // SAFETY: the caller's promise.
    let mut object = unsafe { object.into_boxed::<T>() };
    if T::HEAP.is_counted() {
        object.heap_bytes()
    } else {
        0
    }
}

/// The most objects [`PoolState::prefill`] makes before filing them: a
/// bound on the memory it holds outside the store, and on what a
/// constructor's panic leaves to file.
pub(crate) const PREFILL_BATCH: usize = 64;

/// A batch of objects `prefill` made and has not filed yet: filed when
/// dropped, on an unwind from the constructor too, so that none leaks.
struct Made<'a> {
    core: &'a PoolCore,
    objects: Vec<Erased>,
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        let objects = std::mem::take(&mut self.objects);
        if !objects.is_empty() {
            self.core.file_made(objects);
        }
    }
}

impl<T: Reset + Send + 'static> fmt::Debug for PoolState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolState").finish_non_exhaustive()
    }
}
