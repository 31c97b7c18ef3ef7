//! Compile-time behaviour of `#[derive(Poolable)]`: every attribute
//! compiles (`tests/ui/pass`), and every mistake fails with the error in
//! the case's `.stderr` (`tests/ui/<category>`). `TRYBUILD=overwrite cargo
//! test -p pool-ui` regenerates the `.stderr` files.
//!
//! The mistakes run first, on their own: trybuild then checks them all in
//! one `cargo check --keep-going`. Cases of both kinds in one `TestCases`
//! would build each case on its own, one after another, the mistakes
//! included (31 cargo runs, most of this test's time). The cases that must
//! compile are built and run after that, one by one, as trybuild does.
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
    // Paths are relative to this package's directory, tests/ui.
    {
        let mistakes = trybuild::TestCases::new();
        mistakes.compile_fail("attr/*.rs");
        mistakes.compile_fail("create/*.rs");
        mistakes.compile_fail("field/*.rs");
        mistakes.compile_fail("unsupported/*.rs");
        mistakes.compile_fail("serde/*.rs");
        mistakes.compile_fail("mistakes/*.rs");
        mistakes.compile_fail("part/*.rs");
    } // runs here, when dropped
    let passing = trybuild::TestCases::new();
    passing.pass("pass/*.rs");
}
