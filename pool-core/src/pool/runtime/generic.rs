//! The pools of generic derived structs (`Frame::<u8>::pool()`): a
//! `static` cannot be generic, so each instantiation gets a run-time pool,
//! made on first use and never freed, found by its type.
//!
//! Invariant: a pool listed here is leaked (its `Arc`'s count is never
//! given back), so a pointer to it stays valid for the life of the process.
//! Otherwise it is a run-time pool like a built one: its guards are
//! counted out by the threads' parts, which only ever keeps it alive
//! longer.

use std::any::{Any, TypeId};
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::Arc;

use super::Recipe;
use super::name::type_label;
use super::part::Inner;
use crate::pool::Pool;
use crate::pool::config::PoolConfig;
use crate::reset::Reset;
use crate::sync::{Mutex, global, lock};

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
    name: Option<&'static str>,
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
    generic_pool_slow(id, name, config)
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
    name: Option<&'static str>,
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
            let config = config();
            let name = name.unwrap_or_else(type_label::<T>);
            let inner = Inner::make(Recipe::Config(config), name);
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
