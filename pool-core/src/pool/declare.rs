//! [`pool!`](crate::pool!), which declares pool statics: the pool, its
//! state and its thread-local cache, each a `static` of its own; and
//! [`Poolable`], a type whose pool is such a static, so that `T::acquire()`
//! works.
//!
//! Invariants: a [`Pool`](crate::Pool) whose caches are a `thread_local!`
//! key is a `static`, made only by this macro through
//! `__private::finish`, so a guard may point to its [`Home`] with no hold
//! on it. `T::acquire()` is exactly `T::pool().acquire()`: the trait adds a
//! name for the pool, not a second way to reach it.
//!
//! [`Home`]: crate::pool::guard::Home

use std::ptr::NonNull;

use crate::engine::cache::ThreadCache;
use crate::pool::config::PoolConfig;
use crate::pool::guard::{Abandoned, Home, Pooled, Released};
use crate::pool::state::{PoolState, StateRef};
use crate::pool::{Caches, Pool};
use crate::reset::Reset;
use crate::sync::LocalKey;

/// A type with its own static pool, so that `T::acquire()` hands out a
/// pooled `T`.
///
/// Derive it with `#[derive(Poolable)]`, which also derives [`Reset`]
/// field by field. To implement it by hand (for a type whose reset the
/// derive cannot express, or a concrete instance of a generic type), declare
/// the pool with [`pool!`](crate::pool!) inside `pool`:
///
/// ```
/// use pool_core::{Pool, Poolable, Reset, pool};
///
/// struct Scratch {
///     bytes: Vec<u8>,
/// }
///
/// impl Reset for Scratch {
///     fn reset(&mut self) {
///         self.bytes.clear();
///     }
/// }
///
/// impl Poolable for Scratch {
///     fn create() -> Self {
///         Scratch { bytes: Vec::with_capacity(1024) }
///     }
///
///     fn pool() -> &'static Pool<Self> {
///         pool! {
///             static POOL: Pool<Scratch> = Pool::new(Scratch::create).capacity(64);
///         }
///         &POOL
///     }
/// }
///
/// let mut scratch = Scratch::acquire();
/// scratch.bytes.push(1);
/// ```
///
/// A foreign type such as `Vec<u8>` cannot implement `Poolable` outside this
/// crate (Rust's orphan rule); declare a named pool for it with
/// [`pool!`](crate::pool!) instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no pool of its own, so it cannot be acquired or decoded by its type",
    label = "`{Self}` does not implement `Poolable`",
    note = "derive `Poolable` for your own types; for a pool declared with `pool!`, acquire from the pool (`POOL.acquire()`), or decode with the pool as a seed: `(&POOL).deserialize(deserializer)` (serde's `DeserializeSeed`)"
)]
pub trait Poolable: Reset + Sized + Send + 'static {
    /// Makes a new object, for when the pool has no idle one. The pool calls
    /// it; users call [`acquire`](Poolable::acquire).
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// struct Frame {
    ///     bytes: Vec<u8>,
    /// }
    ///
    /// impl Reset for Frame {
    ///     fn reset(&mut self) {
    ///         self.bytes.clear();
    ///     }
    /// }
    ///
    /// impl Poolable for Frame {
    ///     fn create() -> Self {
    ///         Frame { bytes: Vec::with_capacity(4096) } // sized once, kept by reset
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Frame> = Pool::new(Frame::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// let frame = Frame::acquire(); // the pool is empty: made by `create`
    /// assert!(frame.bytes.capacity() >= 4096);
    /// ```
    fn create() -> Self;

    /// The type's pool. Implementations return a reference to a `static`
    /// declared with [`pool!`](crate::pool!).
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// #[derive(Default)]
    /// struct Line(String);
    ///
    /// impl Reset for Line {
    ///     fn reset(&mut self) {
    ///         self.0.clear();
    ///     }
    /// }
    ///
    /// impl Poolable for Line {
    ///     fn create() -> Self {
    ///         Line::default()
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Line> = Pool::new(Line::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// drop(Line::acquire());
    /// let stats = Line::pool().stats(); // the pool's own counters
    /// assert_eq!((stats.created, stats.idle), (1, 1));
    /// ```
    fn pool() -> &'static Pool<Self>;

    /// Takes an object from the type's pool (or makes one) and returns it in
    /// a guard that resets and returns it when dropped.
    ///
    /// ```
    /// use pool_core::{Pool, Poolable, Reset, pool};
    ///
    /// #[derive(Default)]
    /// struct Counter(u32);
    ///
    /// impl Reset for Counter {
    ///     fn reset(&mut self) {
    ///         self.0 = 0;
    ///     }
    /// }
    ///
    /// impl Poolable for Counter {
    ///     fn create() -> Self {
    ///         Counter::default()
    ///     }
    ///     fn pool() -> &'static Pool<Self> {
    ///         pool! { static POOL: Pool<Counter> = Pool::new(Counter::create); }
    ///         &POOL
    ///     }
    /// }
    ///
    /// let mut c = Counter::acquire();
    /// c.0 += 1;
    /// drop(c);
    /// assert_eq!(Counter::acquire().0, 0); // reset on return
    /// ```
    #[inline]
    fn acquire() -> Pooled<Self> {
        Self::pool().acquire()
    }
}

/// Declares `static` pools, each with its own per-thread cache.
///
/// ```
/// use pool_core::{Pool, pool};
///
/// pool! {
///     /// Buffers for building responses.
///     pub static RESPONSES: Pool<Vec<u8>> = Pool::new(Vec::new).capacity(256);
///     static NAMES: Pool<String> = Pool::new(String::new);
/// }
///
/// let mut body = RESPONSES.acquire();
/// body.extend_from_slice(b"200 OK");
/// ```
///
/// The initializer is a constant expression of type [`PoolConfig<T>`](crate::PoolConfig), usually
/// [`Pool::new`](crate::Pool::new) followed by [`capacity`](crate::PoolConfig::capacity) and
/// [`thread_capacity`](crate::PoolConfig::thread_capacity). `T` must implement
/// [`Reset`](crate::Reset) and `Send`; a `T` that does not is one error at
/// the static's type for each bound it misses, rustc's own.
///
/// A `static` cannot be generic, so neither can a pool declared here;
/// declare one pool per concrete type, derive `Poolable` on a generic
/// struct (each instantiation gets a pool of its own), or make pools at run
/// time with [`Pool::builder`](crate::Pool::builder).
///
/// The expansion names what it declares and binds in the `__pool_core_`
/// space (`__POOL_CORE_STATE`, `__pool_core_value`): any other name, of a
/// static, a constant, a type or a module, is yours to use next to it.
///
/// The initializer is evaluated at compile time, so it cannot use run-time
/// values. A `move` closure as the constructor gets
/// ``error: a `pool!` static is made at compile time, so its constructor
/// cannot capture variables ...``, which names the way out: a pool made at
/// run time with [`Pool::builder`](crate::Pool::builder). Other run-time values reach rustc's own
/// errors first: `E0435` ("attempt to use a non-constant value in a
/// constant", whose suggestion, `let`, does not fit a pool) for a closure
/// that borrows a local, and `E0015` ("cannot call non-const function ...
/// in constants") for a capacity computed by a function. Both mean the
/// same: make that pool at run time with `Pool::builder`.
// Hygiene: the expansion must not break whatever the user names a static,
// a type or a module. So it declares no type, and the two constants and the
// two statics it declares, all in the value namespace, live in an inner
// block where only `$ty` and `$init` are used: `$ty` is a type, and `$init`
// is evaluated once, as the second constant, so that the state gets the
// pool's bounds (a user's path in it, a module or a type, is in the type
// namespace; only a value of its own named like these four would be
// hidden). `$name` is used outside that block. It binds no local with
// `let`, and its one parameter is named in the `__pool_core_` space: a
// binding cannot be named like a static, a constant or a unit struct in
// scope, and `macro_rules!` hygiene does not keep the user's items out.
// Every path is absolute (`$crate`, `::core`), and std is reached through
// `$crate` for `#![no_std]` crates.
#[macro_export]
macro_rules! pool {
    // A `move` closure as the constructor means it captures, which a
    // `static`'s constructor cannot: rustc's own error for that suggests
    // `let`, which does not apply here.
    (
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $($new:ident)::+ (move $($closure:tt)*) $($rest:tt)*
    ) => {
        ::core::compile_error!(
            "a `pool!` static is made at compile time, so its constructor cannot capture \
             variables: for a pool whose constructor or capacities come from run-time values, \
             use `Pool::builder(move || ...).capacity(..).build()`; a static's constructor is \
             a `fn` or a closure that captures nothing (it may read `const`s and `static`s)"
        );
        // So that the program's uses of the pool add no errors of their own.
        $(#[$attr])*
        $vis static $name: $crate::__private::NoPool<<$ty as $crate::__private::PoolType>::Item> =
            $crate::__private::NoPool::new();
    };
    ($(
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    )+) => {$(
        $crate::pool! {
            @named ::core::stringify!($name) =>
            $(#[$attr])*
            $vis static $name: $ty = $init;
        }
    )+};
    // Listed by `pools()` under `$pool_name`; `$ty` checked: `$ty` again
    // in a constant, so that a type that is no pool (`Pool<T>` of a `T`
    // that is not `Send`, say) is reported there in the words of the
    // static's own error (cargo prints the two once), and the constant
    // fails, which makes the item type an error type (`Checked`), so that
    // each use of it, which needs the same bounds, adds no error of its
    // own. The release names the check unnamed: a constant named there
    // would hide a pool of that name from `&$name`.
    (
        @named $pool_name:expr =>
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    ) => {
        $crate::pool! {
            @declare $pool_name,
            [const __POOL_CORE_CHECK: usize = { let _: $ty; 0 };]
            [<<$ty as $crate::__private::Checked<[(); __POOL_CORE_CHECK]>>::Type
                as $crate::__private::PoolType>::Item]
            [<<$ty as $crate::__private::Checked<[(); { let _: $ty; 0 }]>>::Type
                as $crate::__private::PoolType>::Item] =>
            $(#[$attr])*
            $vis static $name: $ty = $init;
        }
    };
    // Also the derive's form, not part of the API: the pool is listed by
    // `pools()` under `$pool_name`, the type's name rather than the
    // static's; `$check` is the constant that checks the type, and `$item`
    // and `$release_item` name its item type in the statics and in the
    // release. The derive passes no check and its struct as its own check
    // names it (`<Request as Checked<[(); __POOL_CORE_SEND]>>::Type`),
    // one projection, in both.
    (
        @declare $pool_name:expr, [$($check:item)?] [$item:ty] [$release_item:ty] =>
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $init:expr;
    ) => {
        $(#[$attr])*
        $vis static $name: $ty = {
            // SAFETY: this is the initializer of the static `$name`.
            unsafe {
                $crate::__private::finish(
                    {
                        $($check)?
                        const __POOL_CORE_CONFIG: $crate::PoolConfig<$item> = $init;
                        static __POOL_CORE_STATE: $crate::__private::PoolState<$item> =
                            $crate::__private::PoolState::new($pool_name, &__POOL_CORE_CONFIG);
                        $crate::__private::thread_local! {
                            static __POOL_CORE_LOCAL: $crate::__private::ThreadCache = const {
                                // SAFETY: the key goes only to the pool `finish`
                                // makes here, a static, whose core is in the
                                // static state; the value is a thread-local.
                                unsafe { $crate::__private::ThreadCache::unset() }
                            };
                        }
                        (__POOL_CORE_CONFIG, (&__POOL_CORE_LOCAL, &__POOL_CORE_STATE))
                    },
                    {
                        // A named `fn` rather than a closure, so that it can be
                        // `inline(always)`: a derived struct's release, with the
                        // template's check in its reset, is otherwise called, not
                        // inlined.
                        #[allow(clippy::inline_always)]
                        #[inline(always)]
                        fn __pool_core_release(
                            _: ::core::ptr::NonNull<$crate::__private::Home<$release_item>>,
                            __pool_core_value: $crate::__private::Released<$release_item>,
                        ) {
                            $crate::__private::release(&$name, __pool_core_value)
                        }
                        __pool_core_release
                    },
                )
            }
        };
    };
}

impl<T: Reset + Send + 'static> Pool<T> {
    /// Builds the pool [`pool!`](crate::pool!) declares, from its recipe and
    /// its statics; its guards go back through `release`.
    ///
    /// # Safety
    ///
    /// The pool is the initializer of a `static` (`declare`'s invariant):
    /// its guards point to it with no hold.
    pub(crate) const unsafe fn from_parts(
        config: PoolConfig<T>,
        local: &'static LocalKey<ThreadCache>,
        state: &'static PoolState<T>,
        release: fn(NonNull<Home<T>>, Released<T>),
    ) -> Self {
        Pool {
            home: Home {
                release,
                abandon: abandon_static::<T>,
            },
            config,
            local: Caches::Static(local),
            state: StateRef::from_static(state),
        }
    }
}

/// The `abandon` of a static pool's guards ([`Home`]): they hold nothing.
fn abandon_static<T: Reset + Send + 'static>(home: NonNull<Home<T>>, value: Abandoned<T>) {
    // SAFETY: a static pool's home is its first field (`repr(C)`), and the
    // pool lives for ever.
    let pool = unsafe { home.cast::<Pool<T>>().as_ref() };
    // The core directly: no typed step is left to an abandon.
    pool.state.core.abandon(value.erase());
}
