//! The benches' shared code, written once. `benches/peers`,
//! `benches/round_trip.rs` and `benches/callgrind.rs` run the same round
//! trips, so that a figure from one compares with the others'. This library
//! holds what may be compiled apart from them: the variants' names and the
//! ways to time a round trip ([`round_trip`]), the burst workload
//! ([`burst`]), the cross-thread handoff
//! ([`handoff`]), the seeds' JSON and its
//! in-place decoders ([`json`]), and criterion's results ([`results`]). The
//! objects, the peers' set-up and the round trips themselves are in
//! `benches/shared/variants.rs`, which each bench includes at its crate root
//! (its header says why).
//!
//! This package is outside the repository's workspace (it has its own
//! `[workspace]`), so that the README's `cargo test --workspace` builds none
//! of criterion, the peers or plotters. Its commands name its manifest:
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench peers
//! cargo bench --manifest-path benches/Cargo.toml --bench round_trip
//! scripts/callgrind.sh        # runs benches/callgrind.rs under callgrind
//! cargo run --release --manifest-path benches/Cargo.toml --example perf_chart
//! ```
//!
//! The HTTP examples are in `examples/http`, a package of their own. The
//! counting global allocator the benches and examples install is the
//! repository's one, `pool_suite::alloc::Counting`.

#![warn(missing_docs)]

pub mod burst;
pub mod handoff;
pub mod json;
pub mod results;
pub mod round_trip;
