//! The engine: one pool's machinery on type-erased objects, compiled once
//! for every pooled type, and the process-wide registry that rotation
//! walks.
//!
//! Invariant: nothing here knows a typed pool. Objects are [`Erased`]
//! boxes (`erased`); what destroys them is a function pointer each pool's
//! core is made with. The typed pools (`crate::pool`) are built on these
//! modules and are the only way objects enter or leave them typed.
//!
//! Bottom up: `erased` (the padded boxes), `epoch` (the clock rotation
//! advances), `fork` (what a `fork` must not copy, and which caches a
//! child has no thread for), `slot` (the handshake between a cache's owner
//! and a rotation), `store` (the shared store's tiers, and the graveyard
//! where what they let go of is destroyed), `registry` (every pool,
//! `pools`), `publish` (the metrics a rotation publishes), `rotation`
//! (`rotate`, the automatic rotation thread, the allocator trim), `core`
//! (one pool's shared half, its counters and `Stats`, and the store's side
//! of a path with no thread cache), `cache` (a thread's cache: its fast and
//! slow paths, its policy, a static pool's unset cache and the thread's
//! exit list, where its objects go at the thread's exit or a `clear`).
//!
//! [`Erased`]: erased::Erased

pub(crate) mod bytes;
pub(crate) mod cache;
pub(crate) mod core;
pub(crate) mod epoch;
pub(crate) mod erased;
pub(crate) mod fork;
#[cfg(feature = "metrics")]
pub(crate) mod publish;
pub(crate) mod registry;
pub(crate) mod rotation;
pub(crate) mod slot;
pub(crate) mod stats;
pub(crate) mod store;
