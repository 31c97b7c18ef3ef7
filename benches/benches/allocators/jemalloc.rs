//! The allocator benches with jemalloc (`tikv-jemallocator`); see `body.rs`.

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

/// The allocator these rows are measured with.
const ALLOCATOR: &str = "jemalloc";

#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

include!("body.rs");
