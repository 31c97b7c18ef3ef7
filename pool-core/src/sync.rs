//! The synchronisation primitives the pool is built on, swapped for `loom`'s
//! model-checked versions in pool-core's own loom test build.
//!
//! Invariant: this module is the only place outside the models
//! (`crate::tests::loom_*`) that knows loom exists. Every atomic, lock,
//! thread-local key and global the concurrent core uses comes through here,
//! so the models explore exactly the code that ships, and no public item
//! changes between the two builds.
//!
//! The switch is `cfg(all(test, loom))`, as in tokio: it holds only while
//! pool-core's own unit tests are compiled with `--cfg loom`
//! (`scripts/loom.sh`). A crate that depends on pool-core and runs its own
//! loom tests (`RUSTFLAGS="--cfg loom" cargo test`) sets `loom` for every
//! crate it builds, but never `test` for pool-core, so it gets the std
//! build, with every public item, and its pools behave exactly as without
//! the flag.

#[cfg(all(test, loom))]
pub(crate) use loom::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};
#[cfg(all(test, loom))]
pub(crate) use loom::thread::LocalKey;

#[cfg(not(all(test, loom)))]
pub(crate) use std::sync::{
    Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
};
#[cfg(not(all(test, loom)))]
pub(crate) use std::thread::LocalKey;

/// Writes a constructor once: a `const fn` in the std build, a plain `fn`
/// under loom, whose primitives cannot be built in a constant.
#[cfg(not(all(test, loom)))]
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis fn $($rest:tt)*) => {
        $(#[$attr])* $vis const fn $($rest)*
    };
}

#[cfg(all(test, loom))]
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis fn $($rest:tt)*) => {
        $(#[$attr])* $vis fn $($rest)*
    };
}

/// Declares a process-wide global: a `static` in the std build, a loom
/// `lazy_static` (made anew for every execution of a model) under loom.
/// Either way `&NAME` coerces to a `&'static` of the declared type.
#[cfg(not(all(test, loom)))]
macro_rules! global {
    ($(#[$attr:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        $(#[$attr])* static $name: $ty = $init;
    };
}

#[cfg(all(test, loom))]
macro_rules! global {
    ($(#[$attr:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        loom::lazy_static! {
            $(#[$attr])* static ref $name: $ty = $init;
        }
    };
}

pub(crate) use {const_fn, global};

/// Locks `mutex`, ignoring poison.
///
/// The pool never runs user code (constructors, `reset`, destructors) while
/// it holds one of its locks, so a critical section can only be interrupted
/// by a panic outside user code (an allocation failure inside `Vec::push`,
/// say), which leaves the guarded vectors valid. Poison therefore carries no
/// information here, and refusing to serve after it would turn one failed
/// allocation into a pool that is dead for the rest of the process.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}
