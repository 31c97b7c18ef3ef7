//! The allocator benches with the system allocator (glibc's malloc here);
//! see `body.rs`.

#![allow(
    dead_code,
    reason = "benches/shared/variants.rs is written for benches/peers, which uses all of it"
)]

/// The allocator these rows are measured with.
const ALLOCATOR: &str = "system";

#[global_allocator]
static GLOBAL: std::alloc::System = std::alloc::System;

include!("body.rs");
