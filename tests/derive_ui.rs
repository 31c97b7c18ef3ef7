//! Compile-time behaviour of `#[derive(Poolable)]`: every attribute
//! compiles (`tests/ui/pass`), and every mistake fails with the error in
//! the case's `.stderr` (`tests/ui/<category>`). `TRYBUILD=overwrite cargo
//! test --test derive_ui` regenerates the `.stderr` files.
//!
//! Compiler messages change between releases, so the snapshots hold for
//! the toolchain pinned in `rust-toolchain.toml` only; on another one this
//! test says so and passes without running the cases.

use std::process::Command;

/// The compiler release the `.stderr` snapshots were made with.
const SNAPSHOT_RUSTC: &str = "rustc 1.95.";

#[test]
#[cfg_attr(miri, ignore = "trybuild runs cargo, which Miri cannot")]
fn ui() {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default();
    if !version.starts_with(SNAPSHOT_RUSTC) {
        eprintln!(
            "skipping the derive UI tests: their .stderr snapshots are for `{SNAPSHOT_RUSTC}x`, \
             and this is `{}`",
            version.trim()
        );
        return;
    }

    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/attr/*.rs");
    t.compile_fail("tests/ui/create/*.rs");
    t.compile_fail("tests/ui/field/*.rs");
    t.compile_fail("tests/ui/unsupported/*.rs");
}
