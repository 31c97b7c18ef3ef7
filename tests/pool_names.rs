//! One rule for a pool's default name, whatever kind of pool it is: its
//! item type without module paths (`Ticket`, `Frame<String>`, `Vec<u16>`),
//! a `pool!` static's being the name its declaration gives; `name = "..."`
//! (derive) and `.name("...")` (builder) replace it. And the derive's
//! `retain = path`, as the builder's `retain`.
//!
//! Each test has its own pooled types, so its own pools.

#![warn(clippy::pedantic)]

use pool_core::{Pool, Poolable, pool};

mod app {
    pub(crate) mod model {
        #[derive(pool_core::Poolable, Default)]
        pub(crate) struct Ticket {
            pub(crate) text: String,
        }

        #[derive(pool_core::Poolable, Default)]
        pub(crate) struct Frame<T> {
            pub(crate) data: Vec<T>,
        }
    }
}

fn listed(name: &str) -> bool {
    pool_core::pools().iter().any(|pool| pool.name() == name)
}

#[test]
fn every_kind_of_pool_is_named_by_its_type_without_module_paths() {
    drop(app::model::Ticket::acquire());
    drop(app::model::Frame::<String>::acquire());
    let built = Pool::builder(Vec::<u16>::new).build();
    drop(built.acquire());
    let names: Vec<_> = pool_core::pools()
        .iter()
        .map(pool_core::PoolInfo::name)
        .collect();
    assert!(listed("Ticket"), "derived: {names:?}");
    assert!(listed("Frame<String>"), "generic: {names:?}");
    assert!(listed("Vec<u16>"), "run-time: {names:?}");
    assert!(
        !names.iter().any(|name| name.contains("::")),
        "no module path in any default name: {names:?}"
    );
}

pool! {
    static LABELS: Pool<String> = Pool::new(String::new);
}

#[test]
fn a_pool_static_is_named_by_its_declaration() {
    drop(LABELS.acquire());
    assert!(listed("LABELS"));
}

#[derive(Poolable, Default)]
#[pool(name = "jobs")]
struct Job {
    input: Vec<u8>,
}

#[derive(Poolable, Default)]
#[pool(name = "batches")]
struct Batch<T> {
    items: Vec<T>,
}

#[test]
fn the_name_key_names_a_derived_pool_generic_or_not() {
    drop(Job::acquire());
    drop(Batch::<u8>::acquire());
    assert!(listed("jobs") && !listed("Job"));
    assert!(listed("batches") && !listed("Batch<u8>"));
}

/// Buffers that grew past 1 KiB are not worth keeping.
#[derive(Poolable, Default)]
#[pool(retain = Self::small)]
struct Buffer {
    bytes: Vec<u8>,
}

impl Buffer {
    fn small(&self) -> bool {
        self.bytes.capacity() <= 1024
    }
}

#[derive(Poolable, Default)]
#[pool(retain = Chunk::small)]
struct Chunk<T> {
    items: Vec<T>,
}

impl<T> Chunk<T> {
    fn small(&self) -> bool {
        self.items.capacity() <= 16
    }
}

#[test]
fn the_retain_key_drops_what_fails_its_test() {
    let mut small = Buffer::acquire();
    small.bytes.push(1);
    // Under the bound in bytes (64 KiB before the pool learns), over the
    // test's.
    let mut large = Buffer::acquire();
    large.bytes.resize(32 << 10, 0);
    drop(small);
    drop(large);
    let stats = Buffer::pool().stats();
    assert_eq!((stats.returned, stats.rejected), (1, 1));

    let mut huge = Chunk::<u32>::acquire();
    huge.items.resize(1000, 0);
    drop(huge);
    assert_eq!(Chunk::<u32>::pool().stats().rejected, 1);
}
