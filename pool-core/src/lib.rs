#![doc = include_str!("lib.md")]
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// Without the `derive` and `axum` features the docs' links to the derive
// and to `pool_core::axum` have nothing to resolve to; they are checked in
// a build with both (docs.rs's, and the workspace's in CI).
#![cfg_attr(
    not(all(feature = "derive", feature = "axum")),
    allow(rustdoc::broken_intra_doc_links)
)]

// The layers, bottom up; a module imports only from its own layer or
// those below it (`scripts/layers.sh` checks it, docs/DESIGN.md draws it).
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;
mod engine;
mod forward;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub mod metrics;
mod pool;
mod reset;
#[cfg(feature = "serde")]
mod serde;
mod sync;

#[cfg(test)]
mod tests;

pub use engine::registry::{PoolInfo, pools};
pub use engine::rotation::rotate;
pub use engine::rotation::set_allocator_trim;
pub use engine::rotation::{DEFAULT_ROTATION_PERIOD, set_rotation_period};
pub use engine::stats::Stats;
pub use pool::Pool;
pub use pool::config::{DEFAULT_CAPACITY, DEFAULT_MAX_BYTES, DEFAULT_THREAD_CAPACITY, PoolConfig};
pub use pool::declare::Poolable;
pub use pool::guard::Pooled;
pub use pool::runtime::{PoolBuilder, PoolHandle};
pub use reset::reuse_vec::ReuseVec;
pub use reset::{Heap, Reset};

// The derive's reference, every example a doctest. rustdoc renders a
// re-export's docs followed by the original item's, so the page ends with
// `pool-derive`'s own doc comment on the macro, under the last heading of
// `derive.md`.
#[doc = include_str!("../derive.md")]
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use pool_derive::Poolable;

/// Derives [`Reset`](trait@Reset) for a struct that is a part of a pooled
/// object (a line item of an order, a header of a request), which needs no
/// pool of its own: each field is reset as its type's `Reset` or its
/// `#[pool(...)]` attribute says, the field attributes of
/// [`Poolable`](derive@Poolable). The reference is
/// [its section there](derive@Poolable#parts-derivereset).
///
/// ```
/// use pool_core::{Poolable, Reset};
///
/// #[derive(Reset, Default)]
/// struct LineItem {
///     sku: String,
///     quantity: u32,
/// }
///
/// #[derive(Poolable, Default)]
/// struct Order {
///     first: LineItem, // reset by `LineItem`'s derived `Reset`
///     notes: Vec<String>,
/// }
///
/// let mut order = Order::acquire();
/// order.first.sku.push_str("A-1");
/// order.first.quantity = 2;
/// drop(order);
/// let order = Order::acquire();
/// assert!(order.first.sku.is_empty() && order.first.quantity == 0);
/// ```
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use pool_derive::Reset;

#[doc(hidden)]
pub mod __private;

/// The crate README's examples, compiled and run as doctests.
#[cfg(all(doctest, feature = "derive"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
