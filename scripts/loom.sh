#!/usr/bin/env bash
# Runs the loom models of pool-core's concurrent core (pool-core/src/tests/loom_*.rs).
#
#   scripts/loom.sh                        # every model, preemption bound 3, two at a time
#   LOOM_MAX_PREEMPTIONS=4 scripts/loom.sh # a deeper search (much slower, and more memory)
#   scripts/loom.sh rotation               # only models whose name matches
#
# The models build pool-core's unit tests with `--cfg loom`: under
# `cfg(all(test, loom))` its sync facade (pool-core/src/sync.rs) swaps std's
# atomics, locks, thread-locals and globals for loom's. A separate target
# directory keeps that build from invalidating the normal one.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
# Bound 3, not 4 (2026-12-06): the models leak a pool per execution, and with
# the bound in bytes (issue 38) the rotation models explore far more at 4.
# `two_rotations_racing_the_owners_acquires_releases_and_exit_share_nothing`
# alone: 105 s of CPU and 0.98 GB at 3; at 4, over 13 minutes and 7.5 GB,
# unfinished, where the code before issue 38 took 272 s and 3.7 GB. At 4 the
# two groups together ran a 24 GB machine out of memory.
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/loom}"
run() { cargo test -p pool-core --no-default-features --lib --release -- "$@"; }
if [ $# -gt 0 ]; then
    run "$1"
    exit
fi

# Every model, in two halves at once, one per core, each half one model at
# a time. Four models take minutes each: loom_reclaim's and loom_shared's
# largest (the first half) and loom_rotation's refilling and spilling
# ones (the second, with every shorter module); the halves take about as
# long as each other. The test harness's own two threads take the models
# in name order, which leaves the last long one running alone for
# minutes. Run two at a time, not three: three on two cores took longer
# than the harness's order.
cargo test -q -p pool-core --no-default-features --lib --release --no-run
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
run loom_reclaim loom_shared loom_bytes --test-threads=1 > "$logs/a" 2>&1 &
a=$!
run loom_guard loom_rotation loom_runtime --test-threads=1 > "$logs/b" 2>&1 &
b=$!
status=0
wait "$a" || status=1
wait "$b" || status=1
cat "$logs/a" "$logs/b"
[ "$status" -eq 0 ] || exit 1
# A model in a module neither half names would be silently skipped: count.
models=$(run loom --list 2>/dev/null | grep -c ': test$')
ran=0
for n in $(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$logs/a" "$logs/b"); do
    ran=$((ran + n))
done
if [ "$models" -ne "$ran" ]; then
    echo "scripts/loom.sh: $ran of $models loom models ran; add the new module to a half" >&2
    exit 1
fi
echo "all $models loom models passed"
