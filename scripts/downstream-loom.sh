#!/usr/bin/env bash
# Builds and tests tests/downstream_loom, a user's crate outside the
# workspace, the way such a crate runs its own loom tests:
# `RUSTFLAGS="--cfg loom" cargo test`. The flag reaches pool-core too; the
# crate's tests check that pool-core keeps its whole public API (the derive,
# `pool!`, guards, rotation) and that its pools work exactly as without it.
# pool-core's own loom build needs `cfg(all(test, loom))` (src/sync.rs).
set -euo pipefail
cd "$(dirname "$0")/../tests/downstream_loom"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-../../target/downstream-loom}"
RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}" cargo test --locked 2>&1
