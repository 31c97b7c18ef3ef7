//! Generic derived structs' pools (`Frame::<u8>::pool()`): a `static`
//! cannot be generic, so each instantiation gets a run-time pool on first
//! use, leaked, listed by its `TypeId`, and found through the thread's
//! memo, which gives the thread's share of it (`threads::typed`): what
//! `Frame::<u8>::acquire()` takes from, and its guards' release gives
//! back to, in one lookup each.
//!
//! Invariant: each instantiation has one pool, made under the list's lock,
//! never freed, so its shares (freed with it) live for the life of the
//! process, and its guards need no count on them: their home is a constant
//! ([`home`]), as a static pool's is, whose release finds the calling
//! thread's share itself. The list (one lock with the names table,
//! `super::Tables`) is never held by another thread across a fork.

use std::any::TypeId;
use std::ptr::NonNull;
use std::sync::Arc;

use super::share::{Inner, ThreadShare};
use super::threads::{self, TypeKey};
use super::with_tables;
use crate::engine::erased::Boxed;
use crate::engine::slot::epoch;
use crate::pool::config::{PoolConfig, ResetOn};
use crate::pool::guard::{Home, Pooled, Released};
use crate::pool::state::StateRef;
use crate::pool::template::Template;
use crate::pool::{Caches, Pool};
use crate::reset::Reset;

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

/// The home of `T`'s guards: a constant, as a static pool's home is, so
/// that a guard's drop where the acquire is at hand calls the release
/// directly (and inlines it); also the home of the guards lent through
/// the pool's shares, whose releases find the share anew.
#[allow(clippy::inline_always, reason = "a constant, for the acquire's guard")]
#[inline(always)]
fn home<T: Generic>() -> &'static Home<T> {
    const {
        &Home {
            release: generic_release::<T>,
            abandon: |_, value| generic_pool::<T>(None).abandon(value),
        }
    }
}

/// The `release` of a generic derived struct's guard ([`Home`]), on
/// whatever thread: into the calling thread's share of the pool, found in
/// its memo, reset with the template in the pool's state; past the memo,
/// through the pool.
#[allow(
    clippy::inline_always,
    reason = "the hot path of a generic struct's release"
)]
#[inline(always)]
fn generic_release<T: Generic>(_: NonNull<Home<T>>, value: Released<T>) {
    let Some(share) = threads::typed(threads::type_key::<T>()) else {
        return generic_pool_slow::<T>(None).put(value.0);
    };
    // SAFETY: as in `generic_acquire`.
    let here = unsafe { share.cast::<ThreadShare<T>>().as_ref() };
    // The pool rebuilt from its parts, the constant configuration and the
    // state at its place in the allocation: so that the state's address
    // is not loaded from the pool.
    // SAFETY: the share's pool, never freed, whose state is made, its
    // owner set (`Inner::make`); `inner` has the allocation's provenance.
    let (inner, state) = unsafe {
        let state = &raw mut (*here.inner.as_ptr()).state;
        (
            here.inner.as_ref(),
            StateRef::from_owned(NonNull::new_unchecked(state)),
        )
    };
    let pool = Pool {
        home: *home::<T>(),
        config: T::CONFIG,
        local: Caches::Runtime(inner.erased),
        state,
    };
    let (config, mut value) = (const { &T::CONFIG }, value.0);
    let template: &'static Template = &inner.state.template;
    if config.reset_on == ResetOn::Release {
        pool.reset(&mut value, |value| value.reset_with(template));
    }
    if let Some(value) = pool.prepare(config, value, false, true) {
        pool.give(config, Some(here.cache()), value);
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
    let Some(share) = threads::typed(threads::type_key::<T>()) else {
        return &generic_pool_slow(name).pool;
    };
    // SAFETY: recorded for `T` (`generic_pool_slow`): a share of the
    // generic pool of `T`, whose `inner` is that pool, never freed.
    unsafe { &share.cast::<ThreadShare<T>>().as_ref().inner.as_ref().pool }
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
    let key = threads::type_key::<T>();
    let value = match threads::typed(key).or_else(|| generic_share_slow(key, pool)) {
        Some(share) => {
            // SAFETY: recorded for `T` by this thread (`generic_pool_slow`):
            // its own share of `T`'s pool, which it owns until its memo is
            // off, and which lives, with its pool, for ever.
            let (here, pool) = unsafe {
                let here = share.cast::<ThreadShare<T>>().as_ref();
                (here, &here.inner.as_ref().pool)
            };
            pool.take(const { &T::CONFIG }, Some(here.cache()), epoch().now())
        }
        None => generic_take_uncached(),
    };
    // SAFETY: the home is a constant, and its release and abandon reach
    // the pool themselves (on every path here, so that the guard's drop
    // sees which function it calls).
    unsafe { Pooled::new(value, NonNull::from(home())) }
}

/// The thread's share of `T`'s pool (whose key is `key`) when its memo has
/// none: `pool` (`T::pool()`) records it, unless the thread is destroying
/// its thread-locals.
#[cold]
#[inline(never)]
fn generic_share_slow<T: Generic>(
    key: TypeKey,
    pool: impl FnOnce() -> &'static Pool<T>,
) -> Option<NonNull<()>> {
    pool();
    threads::typed(key)
}

/// An acquire from `T`'s pool on a thread that is destroying its
/// thread-locals, which has no share: without a cache.
#[cold]
#[inline(never)]
fn generic_take_uncached<T: Generic>() -> Boxed<T> {
    generic_pool_slow::<T>(None)
        .pool
        .take(const { &T::CONFIG }, None, epoch().now())
}

/// The pool of `T` when the thread's memo has none: from the list of every
/// generic pool, made on first use (`name` is for making it), then, with
/// the thread's share of it, remembered in place of the memo's oldest
/// entry.
#[cold]
#[inline(never)]
fn generic_pool_slow<T: Generic>(name: Option<&'static str>) -> &'static Inner<T> {
    let id = TypeId::of::<T>();
    let inner = with_tables(|tables| {
        let found = tables.generic.iter().find(|(known, _)| *known == id);
        if let Some(&(_, pool)) = found {
            return pool.downcast_ref().expect("listed under its own TypeId");
        }
        // Made under the lock, so each instantiation gets one pool. No
        // user code runs: the configuration only names functions.
        let name = name.unwrap_or_else(|| tables.label(std::any::type_name::<T>()));
        let inner = Inner::make(T::CONFIG, *home(), name, (None, None));
        // SAFETY: the count `into_raw` keeps is never given back, so the
        // allocation is never freed.
        let inner: &'static Inner<T> = unsafe { &*Arc::into_raw(inner) };
        tables.generic.push((id, inner));
        inner
    });
    if let Some(share) = inner.share() {
        threads::set_typed(threads::type_key::<T>(), share.cast());
    }
    inner
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Generic, generic_acquire, generic_pool};
    use crate::pool::Pool;
    use crate::pool::config::PoolConfig;
    use crate::pool::template::Template;
    use crate::reset::Reset;

    /// A generic struct's pool, without the derive.
    struct Bytes<T>(Vec<T>);

    impl<T: Send + 'static> Reset for Bytes<T> {
        fn reset(&mut self) {
            self.0.clear();
        }
    }

    impl<T: Send + 'static> Generic for Bytes<T> {
        const CONFIG: PoolConfig<Self> = Pool::new(|| Bytes(Vec::new()));

        fn reset_with(&mut self, _: &'static Template) {
            self.reset();
        }
    }

    fn acquire<T: Send + 'static>() -> crate::Pooled<Bytes<T>> {
        generic_acquire(|| generic_pool::<Bytes<T>>(None))
    }

    /// Two instantiations' round trips through the memo, a guard released
    /// on another thread, and that thread's exit.
    #[test]
    fn generic_memo_round_trips_of_two_instantiations() {
        let mut a = acquire::<u8>();
        a.0.push(1);
        let first = a.0.as_ptr();
        drop(a);
        let b = acquire::<i8>();
        let a = acquire::<u8>();
        assert!(a.0.is_empty() && std::ptr::eq(a.0.as_ptr(), first));
        std::thread::spawn(move || drop((a, b, acquire::<u8>())))
            .join()
            .unwrap();
        let pool = generic_pool::<Bytes<u8>>(None);
        assert_eq!(pool.stats().in_use(), 0);
        assert_eq!(pool.stats().created, 2);
    }
}
