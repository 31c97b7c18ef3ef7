#!/usr/bin/env bash
# Runs the loom models of pool-core's concurrent core (pool-core/src/tests/loom_*.rs).
#
#   scripts/loom.sh                        # every model, preemption bound 3, two at a time
#   LOOM_MAX_PREEMPTIONS=4 scripts/loom.sh # a deeper search (much slower, and more memory)
#   LOOM_JOBS=1 scripts/loom.sh            # one model at a time
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
# alone took 105 s of CPU and 0.98 GB at 3; at 4, over 13 minutes and 7.5
# GB, unfinished, where the code before issue 38 took 272 s and 3.7 GB. At
# 4 the two groups together ran a 24 GB machine out of memory. Since a
# rotation stopped reading each pool's counters twice (for the allocator
# trim), that model takes 5.7 s and 81 MB at 3 (at 4, not measured to its
# end).
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/loom}"
jobs="${LOOM_JOBS:-2}"
run() { cargo test -p pool-core --no-default-features --lib --release -- "$@"; }
if [ $# -gt 0 ]; then
    run "$1"
    exit
fi

# Every model in a process of its own, `jobs` at a time (one per core), the
# longest first: a worker that is free takes the next model, so the cores
# stay busy until the last short models, where two fixed halves left one
# core idle for minutes while the other finished its half; and the memory
# a model leaks (a pool per execution) goes back when its process ends,
# where a half's process kept all of its models'. Two at a time, not
# three: three on two cores took longer. Every model listed runs, so a new
# module needs no entry here. First the models that take longest at bound
# 3 (2026-12-06, loaded machine: the refilling and the spilling one, held
# at two preemptions, over 130 s of CPU each); the table this script
# prints at the end gives every model's time, to keep this list right. A
# model not named here runs after them, in name order.
longest_first=(
    rotation_racing_with_two_threads_refilling_loses_nothing
    rotation_racing_with_two_threads_spilling_loses_nothing
    two_threads_spilling_and_refilling_lose_nothing
    a_thread_exit_flushing_its_cache_races_with_an_acquire_and_a_rotation
)
cargo test -q -p pool-core --no-default-features --lib --release --no-run
mapfile -t listed < <(run loom --list 2>/dev/null | sed -n 's/: test$//p')
if [ "${#listed[@]}" -eq 0 ]; then
    echo "scripts/loom.sh: no loom model found" >&2
    exit 1
fi
models=()
for name in "${longest_first[@]}"; do
    for model in "${listed[@]}"; do
        [[ $model == *"::$name" ]] && models+=("$model")
    done
done
for model in "${listed[@]}"; do
    [[ " ${models[*]} " == *" $model "* ]] || models+=("$model")
done

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# One model: its output, then its status, wall and CPU seconds (`times`
# gives the CPU of this subshell's children: cargo and the model).
one() (
    start=$SECONDS
    status=0
    run --exact "$1" > "$logs/$1.out" 2>&1 || status=$?
    times > "$logs/$1.times" # not in a pipe: its subshell has no children
    cpu=$(tail -n 1 "$logs/$1.times" | awk '{
        split($1, u, /[ms]/); split($2, s, /[ms]/)
        printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
    echo "$status $((SECONDS - start)) $cpu" > "$logs/$1.status"
)
running=0
for model in "${models[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    one "$model" &
    running=$((running + 1))
done
wait

failed=()
rows=()
for model in "${models[@]}"; do
    read -r status wall cpu < "$logs/$model.status" || { status=1 wall=? cpu=?; }
    if [ "$status" -eq 0 ] && grep -q '^test result: ok\. 1 passed' "$logs/$model.out"; then
        rows+=("$(printf '%-6s %6s %6s  %s' ok "$wall" "$cpu" "$model")")
    else
        failed+=("$model")
        rows+=("$(printf '%-6s %6s %6s  %s' FAILED "$wall" "$cpu" "$model")")
    fi
done
for model in "${failed[@]}"; do
    printf '\n--- %s:\n' "$model"
    cat "$logs/$model.out"
done
printf '\n%-6s %6s %6s  %s\n' '' wall cpu "model (seconds; bound $LOOM_MAX_PREEMPTIONS, $jobs at a time)"
printf '%s\n' "${rows[@]}" | sort -k3,3nr
if [ "${#failed[@]}" -ne 0 ]; then
    echo "scripts/loom.sh: ${#failed[@]} of ${#models[@]} loom models FAILED" >&2
    exit 1
fi
echo "all ${#models[@]} loom models passed"
