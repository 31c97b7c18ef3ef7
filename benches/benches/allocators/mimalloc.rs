//! The allocator benches with mimalloc; see `body.rs`.

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

/// The allocator these rows are measured with.
const ALLOCATOR: &str = "mimalloc";

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

include!("body.rs");
