#!/usr/bin/env bash
# Runs the reliability tests under AddressSanitizer and ThreadSanitizer.
#
#   scripts/sanitizers.sh                # both, on the stress, panic, reliability, run-time pool and generic derive tests
#   scripts/sanitizers.sh address        # one sanitizer
#   TESTS="--test stress" scripts/sanitizers.sh thread
#
# Needs a nightly toolchain with rust-src (`rustup component add --toolchain
# nightly rust-src`): the sanitizers are unstable (`-Zsanitizer`), and std is
# rebuilt with them (`-Zbuild-std`) so that its thread-locals, locks and
# allocations are instrumented too; an uninstrumented std makes TSan report
# races inside std's own synchronisation. `--target` keeps the sanitizer
# flags off build scripts and proc macros (pool-derive, serde_derive), which
# run in the compiler. Each sanitizer has its own target directory, since
# every crate is built differently for it.
#
# Any report makes the run fail: ASan aborts on the first error (and
# LeakSanitizer reports at exit), TSan exits non-zero after a race.
set -euo pipefail
cd "$(dirname "$0")/.."

toolchain="${TOOLCHAIN:-nightly-2026-10-30}"
target="$(rustc "+$toolchain" -vV | sed -n 's/^host: //p')"
# Two reliability tests are skipped, each for a reason measured here on
# 2026-12-01: the stack test measures a 600 KiB object against a 2 MiB
# thread stack, and ASan's instrumented frames overflow it (SEGV in the
# child); the mem::forget test leaks an object on purpose, which
# LeakSanitizer reports at exit. Both run in the plain `cargo test`.
read -r -a tests <<< "${TESTS:---test stress --test panics --test reliability --test runtime_pool --test derive_generic --test derive_constructor -- --skip a_large_object_needs_no_more_stack_than_box_new --skip a_forgotten_guard_stays_held}"
if [ $# -eq 0 ]; then
    set -- address thread
fi

for sanitizer in "$@"; do
    case "$sanitizer" in
        address | thread) ;;
        *) echo "unknown sanitizer: $sanitizer (address or thread)" >&2; exit 2 ;;
    esac
done

# One sanitizer's build and run.
check() {
    local sanitizer=$1
    printf '\n=== %s sanitizer: %s ===\n' "$sanitizer" "${tests[*]}"
    case "$sanitizer" in
        address) export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}" ;;
        thread) export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}" ;;
    esac
    RUSTFLAGS="-Zsanitizer=$sanitizer ${RUSTFLAGS:-}" \
    RUSTDOCFLAGS="-Zsanitizer=$sanitizer ${RUSTDOCFLAGS:-}" \
    CARGO_TARGET_DIR="target/${sanitizer:0:1}san" \
        cargo "+$toolchain" test -Zbuild-std --target "$target" -p pool-tests "${tests[@]}"
}

sanitizers=("$@")
# Both at once, each in its own target directory: alone, each build's
# serial stretches and its test runs leave a core idle. Each one's output
# is printed whole once both are done.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
pids=()
for sanitizer in "$@"; do
    check "$sanitizer" > "$logs/$sanitizer" 2>&1 &
    pids+=("$!")
done
failed=()
for i in "${!pids[@]}"; do
    wait "${pids[i]}" || failed+=("${sanitizers[i]}")
done
for sanitizer in "$@"; do
    cat "$logs/$sanitizer"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "scripts/sanitizers.sh: FAILED under ${failed[*]}" >&2
    exit 1
fi
