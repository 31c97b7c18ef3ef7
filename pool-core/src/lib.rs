//! Typed object pools: reuse instead of reallocation, made the easy path.
//!
//! ```
//! use pool_core::{Pool, pool};
//!
//! pool! {
//!     static BUFFERS: Pool<Vec<u8>> = Pool::new(Vec::new);
//! }
//!
//! let mut buf = BUFFERS.acquire(); // a `Pooled<Vec<u8>>`
//! buf.extend_from_slice(b"request body");
//! drop(buf); // cleared (capacity kept) and cached for the next acquire
//! ```
//!
//! A pool hands out [`Pooled`] guards that dereference to the object and, when
//! dropped, [`Reset`] it and return it. Types that implement [`Poolable`]
//! (usually by `#[derive(Poolable)]`) carry their own static pool and are
//! acquired with `T::acquire()`.
//!
//! # Design
//!
//! ```text
//!  acquire ──▶ thread cache ──▶ shared primary ──▶ shared victim ──▶ create
//!                 ▲   │ full: spill half    ▲             ▲
//!  release ─reset─┘   └────────────────────┘             │
//!                                 rotate(): primary ──────┘, victim ──▶ drop
//! ```
//!
//! - **Thread cache** (`local`): a stack per thread and per pool, reached
//!   through a `thread_local!`. Acquire and release touch nothing else in
//!   the common case: no lock, no atomic read-modify-write, no cache line
//!   shared with another thread. That is why the hot path costs a few
//!   nanoseconds and two threads scale as two.
//! - **Shared store** (`shared`): two bounded tiers behind one lock, reached
//!   only on a cache miss or overflow, and then a batch at a time (half a
//!   cache), so the lock is taken once per batch. Objects released on one
//!   thread and acquired on another pass through here.
//! - **Epochs** (`epoch`): [`rotate`] ages every pool. Idle for one
//!   rotation, an object is in the victim tier and still served; idle for
//!   two, it is dropped, so an idle pool gives its memory back. Thread
//!   caches age themselves when next touched. [`Rotator`] rotates on a
//!   timer.
//!
//! Invariants:
//! 1. An object is owned by exactly one place at a time: one guard, one
//!    thread cache, or one shared tier. Objects move by value (a `Box`), so
//!    the type system, not a flag, rules out handing one object to two
//!    guards.
//! 2. User code (constructor, `reset`, destructors) never runs while the
//!    pool holds a lock or a borrow of a thread cache; any of it may use the
//!    pool again.
//! 3. Every tier is bounded: `capacity` for the shared tiers together,
//!    `thread_capacity` for each thread cache.
//! 4. A guard dropped during a panic, or whose `reset` panics, never returns
//!    its object.
//! 5. A thread's exit hands its cached objects to the shared store; an
//!    object released after the thread's cache is gone goes there directly.
//!
//! See `docs/DESIGN.md` in the repository for the reasoning and the
//! measurements behind these choices.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn)]

mod epoch;
#[cfg(not(loom))]
mod guard;
mod local;
mod pool;
mod reset;
mod shared;
mod stats;
mod sync;

#[cfg(test)]
mod tests;

#[cfg(not(loom))]
pub use epoch::Rotator;
pub use epoch::rotate;
#[cfg(not(loom))]
pub use guard::Pooled;
pub use pool::{DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, Pool, PoolConfig, Poolable};
pub use reset::Reset;
pub use stats::Stats;

/// Derives [`Poolable`] and [`Reset`] for a struct: each field is reset as its
/// `#[pool(...)]` attributes say, and the type gets its own static pool with a
/// per-thread cache. The attributes are documented below.
///
/// ```
/// use pool_core::Poolable;
///
/// #[derive(Poolable, Default)]
/// #[pool(capacity = 256)]
/// struct Request {
///     path: String,
///     #[pool(max_capacity = 65536)]
///     body: Vec<u8>,
///     #[pool(skip)]
///     worker: usize,
/// }
///
/// let mut req = Request::acquire();
/// req.path.push_str("/index.html");
/// drop(req);
/// assert!(Request::acquire().path.is_empty());
/// ```
#[cfg(feature = "derive")]
pub use pool_derive::Poolable;

#[doc(hidden)]
pub mod __private;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
