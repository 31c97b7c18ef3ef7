//! Compile-time behaviour of `#[derive(Poolable)]`: every attribute
//! compiles (`tests/ui/pass`), and every mistake fails with the error in
//! the case's `.stderr` (`tests/ui/<category>`). `TRYBUILD=overwrite cargo
//! test --test derive_ui` regenerates the `.stderr` files.
//!
//! Compiler messages change between releases, so the snapshots hold for
//! the toolchain pinned in `rust-toolchain.toml` only (rustc 1.95). On any
//! other compiler the test is ignored, and `cargo test` lists it as
//! `ignored` with the reason; `--include-ignored` runs it anyway, against
//! snapshots that may no longer match.

// The `ignore`s come before `#[test]`, which reads the attributes as it
// expands: one that `rustversion::attr` produced after it would be missed.
#[cfg_attr(miri, ignore = "trybuild runs cargo, which Miri cannot")]
#[cfg_attr(
    not(miri),
    rustversion::attr(
        not(stable(1.95)),
        ignore = "the .stderr snapshots are rustc 1.95's messages (rust-toolchain.toml)"
    )
)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/attr/*.rs");
    t.compile_fail("tests/ui/create/*.rs");
    t.compile_fail("tests/ui/field/*.rs");
    t.compile_fail("tests/ui/unsupported/*.rs");
    t.compile_fail("tests/ui/serde/*.rs");
    t.compile_fail("tests/ui/mistakes/*.rs");
}
