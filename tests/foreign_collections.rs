//! `Reset` for other crates' collections (pool-core's features `bytes`,
//! `smallvec`, `hashbrown`, `indexmap`): a pooled one comes back empty,
//! with the allocation it had.

use pool_core::{Pool, pool};

pool! {
    static BYTES: Pool<bytes::BytesMut> = Pool::new(bytes::BytesMut::new);
    static SMALL: Pool<smallvec::SmallVec<[u32; 4]>> = Pool::new(smallvec::SmallVec::new);
    static MAPS: Pool<hashbrown::HashMap<u32, u32>> = Pool::new(hashbrown::HashMap::new);
    static SETS: Pool<hashbrown::HashSet<u32>> = Pool::new(hashbrown::HashSet::new);
    static INDEX_MAPS: Pool<indexmap::IndexMap<u32, u32>> = Pool::new(indexmap::IndexMap::new);
    static INDEX_SETS: Pool<indexmap::IndexSet<u32>> = Pool::new(indexmap::IndexSet::new);
}

#[test]
fn a_pooled_bytes_mut_comes_back_empty_with_its_buffer() {
    let mut buf = BYTES.acquire();
    buf.extend_from_slice(&[7; 4096]);
    let capacity = buf.capacity();
    drop(buf);
    let buf = BYTES.acquire();
    assert!(buf.is_empty());
    assert_eq!(buf.capacity(), capacity);
}

#[test]
fn a_pooled_smallvec_comes_back_empty_and_spilled() {
    let mut v = SMALL.acquire();
    v.extend(0..100); // past its 4 inline slots: on the heap
    let capacity = v.capacity();
    drop(v);
    let v = SMALL.acquire();
    assert!(v.is_empty() && v.spilled());
    assert_eq!(v.capacity(), capacity);
}

#[test]
fn pooled_hashbrown_and_indexmap_collections_come_back_empty_with_their_tables() {
    let mut map = MAPS.acquire();
    let mut set = SETS.acquire();
    let mut index_map = INDEX_MAPS.acquire();
    let mut index_set = INDEX_SETS.acquire();
    for i in 0..100 {
        map.insert(i, i);
        set.insert(i);
        index_map.insert(i, i);
        index_set.insert(i);
    }
    let capacities = (
        map.capacity(),
        set.capacity(),
        index_map.capacity(),
        index_set.capacity(),
    );
    drop((map, set, index_map, index_set));
    let (map, set, index_map, index_set) = (
        MAPS.acquire(),
        SETS.acquire(),
        INDEX_MAPS.acquire(),
        INDEX_SETS.acquire(),
    );
    assert!(map.is_empty() && set.is_empty() && index_map.is_empty() && index_set.is_empty());
    assert_eq!(
        (
            map.capacity(),
            set.capacity(),
            index_map.capacity(),
            index_set.capacity()
        ),
        capacities
    );
}
