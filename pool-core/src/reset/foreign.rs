//! [`Reset`](super::Reset) for other crates' collections, each behind a
//! feature of the crate's name: `bytes::BytesMut`, `smallvec::SmallVec`,
//! `hashbrown::{HashMap, HashSet}` and `indexmap::{IndexMap, IndexSet}`.
//!
//! Invariant: each impl is compiled only with its crate's feature on, and
//! clears the collection in place, dropping its contents and keeping its
//! buffer, as the std collections' impls do.

/// Collections of other crates, each behind a feature of the same name, so
/// that the buffers networked and data-heavy code holds can be pooled
/// without a newtype: each is cleared, keeping its allocation.
macro_rules! impl_reset_by_clear_behind {
    ($feature:literal: $([$($params:tt)*] $t:ty),* $(,)?) => {
        $(
            /// Clears it, dropping its contents and keeping its buffer
            #[doc = concat!("(feature `", $feature, "`).")]
            #[cfg(feature = $feature)]
            #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
            impl<$($params)*> super::Reset for $t {
                #[inline]
                fn reset(&mut self) {
                    self.clear();
                }
            }
        )*
    };
}

impl_reset_by_clear_behind!("bytes": [] bytes::BytesMut);
impl_reset_by_clear_behind!("smallvec": [A: smallvec::Array] smallvec::SmallVec<A>);
impl_reset_by_clear_behind!(
    "hashbrown": [K, V, S] hashbrown::HashMap<K, V, S>,
    [T, S] hashbrown::HashSet<T, S>,
);
impl_reset_by_clear_behind!(
    "indexmap": [K, V, S] indexmap::IndexMap<K, V, S>,
    [T, S] indexmap::IndexSet<T, S>,
);
