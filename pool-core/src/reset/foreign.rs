//! [`Reset`](super::Reset) for other crates' collections, each behind a
//! feature of the crate's name: `bytes::BytesMut`, `smallvec::SmallVec`,
//! `hashbrown::{HashMap, HashSet}` and `indexmap::{IndexMap, IndexSet}`.
//!
//! Invariant: each impl is compiled only with its crate's feature on, and
//! clears the collection in place, dropping its contents and keeping its
//! buffer, as the std collections' impls do.

/// Collections of other crates, each behind a feature of the same name, so
/// that the buffers networked and data-heavy code holds can be pooled
/// without a newtype: each is cleared, keeping its allocation, which
/// `heap_bytes` counts (`|value| bytes`) and, where the type can, its
/// `shrink_to_bytes` frees (`|value, max| shrink`).
macro_rules! impl_reset_by_clear_behind {
    ($feature:literal: $([$($params:tt)*] $t:ty => |$this:ident| $bytes:expr, |$shrunk:ident, $max:ident| $shrink:expr;)*) => {
        $(
            /// Clears it, dropping its contents and keeping its buffer
            #[doc = concat!("(feature `", $feature, "`).")]
            #[cfg(feature = $feature)]
            #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
            impl<$($params)*> super::Reset for $t {
                const HEAP: super::Heap = super::Heap::Counted;

                #[inline]
                fn reset(&mut self) {
                    self.clear();
                }

                #[inline]
                fn heap_bytes(&mut self) -> usize {
                    let $this = &*self;
                    $bytes
                }

                #[inline]
                fn shrink_to_bytes(&mut self, max: usize) -> usize {
                    if super::Reset::heap_bytes(self) > max {
                        let ($shrunk, $max) = (&mut *self, max);
                        $shrink;
                    }
                    super::Reset::heap_bytes(self)
                }
            }
        )*
    };
}

// A `BytesMut` has no `shrink_to`: one over its bound, reset and so empty,
// is replaced by a new one.
impl_reset_by_clear_behind!("bytes":
    [] bytes::BytesMut => |b| b.capacity(), |b, _max| *b = bytes::BytesMut::new();
);
// Inline elements are in the value, not on the heap; a spilled vector,
// empty after its reset, moves back inline when shrunk.
impl_reset_by_clear_behind!("smallvec":
    [A: smallvec::Array] smallvec::SmallVec<A> =>
        |v| if v.spilled() { super::buffer_bytes::<A::Item>(v.capacity()) } else { 0 },
        |v, _max| v.shrink_to_fit();
);
// hashbrown's `allocation_size` and `shrink_to` need bounds (`K: Eq +
// Hash`, `S: BuildHasher`) the impls do not ask for: the table's size is
// estimated from its capacity, as for std's maps, and a map over its bound
// is not shrunk (nor is an `IndexMap`).
impl_reset_by_clear_behind!("hashbrown":
    [K, V, S] hashbrown::HashMap<K, V, S> =>
        |m| super::hash_table_bytes::<(K, V)>(m.capacity()), |m, max| {
            let _ = (m, max);
        };
    [T, S] hashbrown::HashSet<T, S> =>
        |m| super::hash_table_bytes::<T>(m.capacity()), |m, max| {
            let _ = (m, max);
        };
);
// An estimate: the entries' vector (each entry its key, its value and a
// hash) and the index table (a `usize` per bucket).
impl_reset_by_clear_behind!("indexmap":
    [K, V, S] indexmap::IndexMap<K, V, S> =>
        |m| super::buffer_bytes::<(K, V, usize, usize)>(m.capacity()), |m, max| {
            let _ = (m, max);
        };
    [T, S] indexmap::IndexSet<T, S> =>
        |m| super::buffer_bytes::<(T, usize, usize)>(m.capacity()), |m, max| {
            let _ = (m, max);
        };
);
