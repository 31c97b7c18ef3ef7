#!/usr/bin/env bash
# Checks pool-core for platforms CI does not run on, so that a platform's
# code path cannot rot unseen (issue 24, item 10). Each target takes a
# different path through pool-core/src/sync/barrier.rs, the process-wide
# barrier:
#
#   x86_64-pc-windows-msvc   FlushProcessWriteBuffers (cfg(windows))
#   aarch64-apple-darwin     no barrier: the fallback (not Linux, not Windows)
#   x86_64-unknown-freebsd   no barrier: the fallback, on x86_64 (where
#                            padded.rs prefetches), with a BSD's std
#
# (Linux's membarrier is the host's build, checked by every other step.)
#
#   scripts/platforms.sh                 # the three targets
#   scripts/platforms.sh --all-targets   # extra arguments go to clippy: here
#                                        # the tests and examples too
#
# On a cold target dir it takes about a minute of CPU (55 to 69 s on a
# loaded machine, 2026-12-06), a third of it the host's proc macros (syn,
# serde_derive, pool-derive); warm, 3 s.
#
# Only the targets' std is installed (rustup, for the pinned toolchain);
# nothing is linked, so no cross linker or SDK is needed. For each target:
# clippy with every feature (clippy is `cargo check` plus the lints, with
# warnings denied as in the "clippy" step), then `cargo check` with no
# features. A target whose std cannot be installed is SKIPPED loudly, as
# .ci/run does for a missing nightly; a target that does not compile fails
# the script. A target dir of its own keeps the host's build warm.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(x86_64-pc-windows-msvc aarch64-apple-darwin x86_64-unknown-freebsd)
TOOLCHAIN=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml | head -n 1)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/platforms}"

skipped=()
installed=()
for target in "${TARGETS[@]}"; do
    # Idempotent, and no download when the std is already there.
    if ! rustup target list --installed --toolchain "$TOOLCHAIN" 2>/dev/null | grep -qx "$target" &&
        ! rustup target add --toolchain "$TOOLCHAIN" "$target"; then
        printf '\n!!!!!!!!\n!!! THE STD FOR %s (RUST %s) COULD NOT BE INSTALLED: pool-core was NOT checked for it: SKIPPED, not passed.\n!!!!!!!!\n\n' \
            "$target" "$TOOLCHAIN"
        skipped+=("$target")
        continue
    fi
    installed+=(--target "$target")
done

# Every target in one cargo run: the host's proc macros are built once,
# and the targets' crates share the two cores (one target at a time left
# one idle through each target's serial end).
if [ ${#installed[@]} -gt 0 ]; then
    printf -- '--- %s\n' "${installed[*]}"
    cargo "+$TOOLCHAIN" clippy -p pool-core --all-features "${installed[@]}" "$@" -- -D warnings
    cargo "+$TOOLCHAIN" check -p pool-core --no-default-features "${installed[@]}"
fi

if [ ${#skipped[@]} -gt 0 ]; then
    printf '\n!!!!!!!!\n!!! OTHER PLATFORMS: %s SKIPPED, not passed (std not installed).\n!!!!!!!!\n\n' "${skipped[*]}"
fi
