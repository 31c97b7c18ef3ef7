//! Generic derived structs' pools (`Frame::<u8>::pool()`): a `static`
//! cannot be generic, so each instantiation gets a run-time pool on first
//! use, leaked, listed by its `TypeId` and found through a per-thread memo
//! of the last few.
//!
//! Invariant: each instantiation has one pool, made under the list's lock,
//! never freed, so a pointer remembered in a thread's memo stays valid for
//! the life of the process; the list (and the names table, which making a
//! pool takes under it) is never held by another thread across a fork.

use std::any::TypeId;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::Arc;

use super::{GENERIC_POOLS, Inner, Recipe, type_label, watch_forks};
use crate::pool::Pool;
use crate::pool::config::PoolConfig;
use crate::reset::Reset;
use crate::sync::lock;

/// The pool of one instantiation of a generic derived struct
/// (`Frame::<u8>::pool()`), made on first use from `config` and never
/// freed: a `static` cannot be generic, so each instantiation gets a
/// run-time pool, leaked, found by its type.
///
/// The lookup is a per-thread memo of the last [`RECENT`] instantiations
/// this thread took from the list (a `TypeId` compare each, so code that
/// alternates instantiations finds each without the lock), in front of a
/// locked list of every instantiation. Sound because these pools are never
/// freed: a remembered pointer stays valid for the life of the process.
#[inline]
pub(crate) fn generic_pool<T: Reset + Send + 'static>(
    name: Option<&'static str>,
    config: impl FnOnce() -> PoolConfig<T>,
) -> &'static Pool<T> {
    let id = TypeId::of::<T>();
    let found = RECENT_GENERIC.with(|recent| {
        recent
            .entries
            .iter()
            .find_map(|entry| entry.get().filter(|&(known, _)| known == id))
    });
    if let Some((_, pool)) = found {
        // SAFETY: remembered for this `TypeId`, so a `Pool<T>`, leaked,
        // valid for ever.
        return unsafe { pool.cast::<Pool<T>>().as_ref() };
    }
    generic_pool_slow(id, name, config)
}

/// A generic pool a thread remembers: its type, and its `&'static Pool<T>`.
type Recent = (TypeId, NonNull<()>);

/// How many generic pools a thread's memo remembers.
const RECENT: usize = 4;

/// A thread's memo of its last generic pools, replaced in turn (`next`).
struct RecentGeneric {
    entries: [Cell<Option<Recent>>; RECENT],
    next: Cell<usize>,
}

std::thread_local! {
    /// No destructor, so the memo is there during thread-local
    /// destruction too.
    static RECENT_GENERIC: RecentGeneric = const {
        RecentGeneric {
            entries: [const { Cell::new(None) }; RECENT],
            next: Cell::new(0),
        }
    };
}

/// The pool of `T` (whose type is `id`) when the thread's memo has none:
/// from the list of every generic pool (made if new), then remembered in
/// place of the memo's oldest entry.
#[cold]
#[inline(never)]
fn generic_pool_slow<T: Reset + Send + 'static>(
    id: TypeId,
    name: Option<&'static str>,
    config: impl FnOnce() -> PoolConfig<T>,
) -> &'static Pool<T> {
    let pool = generic_pool_listed(id, name, config);
    RECENT_GENERIC.with(|recent| {
        let next = recent.next.get();
        recent.entries[next].set(Some((id, NonNull::from(pool).cast())));
        recent.next.set((next + 1) % RECENT);
    });
    pool
}

/// The pool of `T` from the list of every generic pool, made on first use.
fn generic_pool_listed<T: Reset + Send + 'static>(
    id: TypeId,
    name: Option<&'static str>,
    config: impl FnOnce() -> PoolConfig<T>,
) -> &'static Pool<T> {
    watch_forks();
    let mut pools = lock(&GENERIC_POOLS);
    let found = pools
        .iter()
        .find(|(known, _)| *known == id)
        .map(|&(_, pool)| pool);
    match found {
        Some(pool) => pool.downcast_ref().expect("listed under its own TypeId"),
        None => {
            // Made under the lock, so each instantiation gets one pool.
            // No user code runs: `config` only names the constructor.
            let config = config();
            let name = name.unwrap_or_else(type_label::<T>);
            let inner = Inner::make(Recipe::Config(config), name);
            // SAFETY: the count `into_raw` keeps is never
            // given back, so the allocation is never freed.
            let inner: &'static Inner<T> = unsafe { &*Arc::into_raw(inner) };
            pools.push((id, &inner.pool));
            &inner.pool
        }
    }
}
