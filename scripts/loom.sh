#!/usr/bin/env bash
# Runs the loom models of pool-core's concurrent core (pool-core/src/tests/loom_*.rs).
#
#   scripts/loom.sh                        # every model, preemption bound 4
#   LOOM_MAX_PREEMPTIONS=5 scripts/loom.sh # a deeper search (much slower)
#   scripts/loom.sh rotation               # only models whose name matches
#
# The models build pool-core's unit tests with `--cfg loom`: under
# `cfg(all(test, loom))` its sync facade (pool-core/src/sync.rs) swaps std's
# atomics, locks, thread-locals and globals for loom's. A separate target
# directory keeps that build from invalidating the normal one.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-4}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/loom}"
filter="${1:-loom}"
exec cargo test -p pool-core --no-default-features --lib --release -- "$filter"
