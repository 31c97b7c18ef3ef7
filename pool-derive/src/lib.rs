//! `#[derive(Poolable)]` for `pool-core`. Use it through `pool_core::Poolable`.
#![forbid(unsafe_code)]
