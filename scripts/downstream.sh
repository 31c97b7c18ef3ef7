#!/usr/bin/env bash
# Builds and tests two users' crates that live outside the workspace, each
# with its own lock file and target directory under target/:
#
# - tests/downstream_loom: a crate that runs its own loom tests the usual
#   way, `RUSTFLAGS="--cfg loom" cargo test`. The flag reaches pool-core
#   too; the crate's tests check that pool-core keeps its whole public API
#   (the derive, `pool!`, guards, rotation) and that its pools work exactly
#   as without it (pool-core's own loom build needs `cfg(all(test, loom))`,
#   pool-core/src/sync.rs).
# - tests/downstream_no_std: a `#![no_std]` library that links std through
#   pool-core. `cargo build` checks that the expansions of `pool!` and the
#   derive resolve without `::std`; its tests check the pools work.
#
# Each crate keeps a Cargo.lock (its own pins, loom's among them); cargo
# brings its pool-core entry up to date when pool-core's dependencies
# change, so the builds do not pass --locked.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

printf -- '--- tests/downstream_loom (RUSTFLAGS="--cfg loom") ---\n'
cd "$root/tests/downstream_loom"
CARGO_TARGET_DIR="$root/target/downstream-loom" RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}" \
    cargo test

printf -- '--- tests/downstream_no_std ---\n'
cd "$root/tests/downstream_no_std"
CARGO_TARGET_DIR="$root/target/downstream-no-std" cargo build
CARGO_TARGET_DIR="$root/target/downstream-no-std" cargo test
