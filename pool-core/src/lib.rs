#![doc = include_str!("lib.md")]
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// Without the `derive` feature the docs' links to the derive have nothing
// to resolve to; they are checked in the default build.
#![cfg_attr(not(feature = "derive"), allow(rustdoc::broken_intra_doc_links))]

// The layers, bottom up; a module imports only from its own layer or
// those below it (`scripts/layers.sh` checks it, docs/DESIGN.md draws it).
mod engine;
mod forward;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;
mod pool;
mod poolable;
mod reset;
#[cfg(feature = "serde")]
mod serde;
mod sync;

#[cfg(test)]
mod tests;

pub use engine::auto::{DEFAULT_ROTATION_PERIOD, set_rotation_period};
pub use engine::registry::{PoolInfo, pools};
pub use engine::rotation::rotate;
pub use engine::stats::Stats;
pub use engine::trim::set_allocator_trim;
pub use pool::Pool;
pub use pool::config::{DEFAULT_CAPACITY, DEFAULT_THREAD_CAPACITY, PoolConfig};
pub use pool::guard::Pooled;
pub use pool::runtime::{PoolBuilder, PoolHandle};
pub use poolable::Poolable;
pub use reset::Reset;
pub use reset::reuse_vec::ReuseVec;

// The derive's reference, every example a doctest. rustdoc renders a
// re-export's docs followed by the original item's, so the page ends with
// `pool-derive`'s own doc comment on the macro, under the last heading of
// `derive.md`.
#[doc = include_str!("../derive.md")]
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use pool_derive::Poolable;

#[doc(hidden)]
pub mod __private;

/// The crate README's examples, compiled and run as doctests.
#[cfg(all(doctest, feature = "derive"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
