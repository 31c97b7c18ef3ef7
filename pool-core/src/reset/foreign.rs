//! [`Reset`](super::Reset) for other crates' collections, each behind a
//! feature of the crate's name: `bytes::BytesMut`, `smallvec::SmallVec`,
//! `hashbrown::{HashMap, HashSet}` and `indexmap::{IndexMap, IndexSet}`,
//! so that the buffers networked and data-heavy code holds can be pooled
//! without a newtype.
//!
//! Invariant: each impl is compiled only with its crate's feature on, and
//! clears the collection in place, dropping its contents and keeping its
//! buffer, as the std collections' impls do.

use super::impl_reset_by_clear;

impl_reset_by_clear!(
    // A `BytesMut` has no `shrink_to`: one over its bound, reset and so
    // empty, is replaced by a new one.
    feature "bytes": [] bytes::BytesMut => |b| b.capacity(), |b, _max| *b = bytes::BytesMut::new();
    // Inline elements are in the value, not on the heap; a spilled vector,
    // empty after its reset, moves back inline when shrunk.
    feature "smallvec": [A: smallvec::Array] smallvec::SmallVec<A> =>
        |v| if v.spilled() { super::buffer_bytes::<A::Item>(v.capacity()) } else { 0 },
        |v, _max| v.shrink_to_fit();
    // hashbrown's `allocation_size` and `shrink_to` need bounds (`K: Eq +
    // Hash`, `S: BuildHasher`) the impls do not ask for: the table's size
    // is estimated from its capacity, as for std's maps, and a map over
    // its bound is not shrunk (nor is an `IndexMap`).
    feature "hashbrown": [K, V, S] hashbrown::HashMap<K, V, S> =>
        |m| super::hash_table_bytes::<(K, V)>(m.capacity());
    feature "hashbrown": [T, S] hashbrown::HashSet<T, S> => |m| super::hash_table_bytes::<T>(m.capacity());
    // An estimate: the entries' vector (each entry its key, its value and
    // a hash) and the index table (a `usize` per bucket).
    feature "indexmap": [K, V, S] indexmap::IndexMap<K, V, S> =>
        |m| super::buffer_bytes::<(K, V, usize, usize)>(m.capacity());
    feature "indexmap": [T, S] indexmap::IndexSet<T, S> =>
        |m| super::buffer_bytes::<(T, usize, usize)>(m.capacity());
);
