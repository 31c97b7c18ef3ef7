//! Generic derived structs' pools (`Frame::<u8>::pool()`): a `static`
//! cannot be generic, so each instantiation gets a run-time pool on first
//! use, leaked, listed by its `TypeId`, and found through the thread's
//! memo, which gives the thread's share of it (`threads::typed`): what
//! `Frame::<u8>::acquire()` takes from, in one lookup, and what the
//! struct's pool is reached through.
//!
//! Invariant: each instantiation has one pool, made under the list's lock,
//! never freed, so its shares (freed with it) live for the life of the
//! process, and its guards need no count on them ([`Templated`]); the list
//! (and the names table, which making a pool takes under it) is never held
//! by another thread across a fork.

use std::any::TypeId;
use std::sync::Arc;

use super::share::{Guards, Inner, ThreadShare, home};
use super::{GENERIC_POOLS, Recipe, threads, type_label, watch_forks};
use crate::engine::slot::epoch;
use crate::pool::Pool;
use crate::pool::config::PoolConfig;
use crate::pool::guard::{Home, Pooled};
use crate::pool::template::Template;
use crate::reset::Reset;
use crate::sync::lock;

/// A generic derived struct, as its pool knows it: its pool's
/// configuration, a constant, so that the round trip's tests fold as in a
/// `pool!` static; and its reset with its template at hand, which the
/// pool's release passes from the pool's state (`Reset::reset` looks the
/// template up through the struct's pool).
pub trait Generic: Reset + Sized + Send + 'static {
    /// The configuration the derive's attributes give.
    const CONFIG: PoolConfig<Self>;

    /// Resets `self` as `Reset::reset` does, with the struct's template.
    fn reset_with(&mut self, template: &'static Template);
}

/// The guards of a generic derived struct's pool ([`Guards`]): they count
/// nothing, as the pool is never freed, and reset with its template.
struct Templated;

impl<T: Generic> Guards<T> for Templated {
    const COUNTED: bool = false;

    #[inline(always)]
    fn reset(inner: &Inner<T>, value: &mut T) {
        let template: *const Template = &inner.state.template;
        // SAFETY: a generic pool's state, in an allocation never freed.
        let template = unsafe { &*template };
        inner.pool.reset(value, |value| value.reset_with(template));
    }

    #[inline(always)]
    fn config(_: &Inner<T>) -> &PoolConfig<T> {
        const { &T::CONFIG }
    }
}

/// The pool of one instantiation of a generic derived struct
/// (`Frame::<u8>::pool()`), made on first use from `T::CONFIG` and never
/// freed: a `static` cannot be generic, so each instantiation gets a
/// run-time pool, leaked, found by its type: through the thread's share of
/// it, in the thread's memo, or else through the list of every
/// instantiation.
#[inline]
pub fn generic_pool<T: Generic>(name: Option<&'static str>) -> &'static Pool<T> {
    let Some(share) = threads::typed(TypeId::of::<T>()) else {
        return generic_pool_slow(name);
    };
    // SAFETY: recorded for `T` (`generic_pool_slow`): a share of the
    // generic pool of `T`, whose `inner` is that pool, never freed.
    unsafe {
        &share
            .cast::<ThreadShare<T>>()
            .as_ref()
            .inner()
            .as_ref()
            .pool
    }
}

/// `T::acquire()` for a generic derived struct: through the thread's share
/// of its pool, from the thread's memo, or else through `pool`, `T::pool()`,
/// which records the share in the memo.
#[allow(
    clippy::inline_always,
    reason = "the hot path of a generic struct's acquire"
)]
#[inline(always)]
pub fn generic_acquire<T: Generic>(pool: impl FnOnce() -> &'static Pool<T>) -> Pooled<T> {
    let Some(share) = threads::typed(TypeId::of::<T>()) else {
        return generic_acquire_slow(pool);
    };
    // SAFETY: recorded for `T` by this thread (`generic_pool_slow`): its
    // own share of `T`'s pool, which it owns until its memo is off, and
    // which lives, with its pool, for ever.
    let (here, pool) = unsafe {
        let here = share.cast::<ThreadShare<T>>().as_ref();
        (here, &here.inner().as_ref().pool)
    };
    let value = pool.take(const { &T::CONFIG }, Some(here.cache()), epoch().now());
    // SAFETY: the share is the guard's home (its first field, `repr(C)`),
    // which lives for ever; its guards hold no count (`Templated`).
    unsafe { Pooled::new(value, share.cast::<Home<T>>()) }
}

/// [`generic_acquire`] when the thread's memo has no share of `T`'s pool.
#[cold]
#[inline(never)]
fn generic_acquire_slow<T: Generic>(pool: impl FnOnce() -> &'static Pool<T>) -> Pooled<T> {
    pool().acquire()
}

/// The pool of `T` when the thread's memo has none: from the list of every
/// generic pool (made if new), then, with the thread's share of it,
/// remembered in place of the memo's oldest entry.
#[cold]
#[inline(never)]
fn generic_pool_slow<T: Generic>(name: Option<&'static str>) -> &'static Pool<T> {
    let id = TypeId::of::<T>();
    let inner = generic_pool_listed(id, name);
    if let Some(share) = inner.share() {
        threads::set_typed(id, share.cast());
    }
    &inner.pool
}

/// The pool of `T` from the list of every generic pool, made on first use.
fn generic_pool_listed<T: Generic>(id: TypeId, name: Option<&'static str>) -> &'static Inner<T> {
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
            // No user code runs: the configuration only names functions.
            let name = name.unwrap_or_else(type_label::<T>);
            let config = T::CONFIG;
            let guards = home::<T, Templated>(config.reset_on, config.retain.is_some());
            let inner = Inner::make(Recipe::Config(config, guards), name);
            // SAFETY: the count `into_raw` keeps is never
            // given back, so the allocation is never freed.
            let inner: &'static Inner<T> = unsafe { &*Arc::into_raw(inner) };
            pools.push((id, inner));
            inner
        }
    }
}
