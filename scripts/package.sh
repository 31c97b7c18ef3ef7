#!/usr/bin/env bash
# Checks that pool-derive and pool-core are ready to publish:
#
#   1. `cargo package` packs both crates and verifies each one by building
#      it from its .crate alone (pool-core against the packed pool-derive,
#      through cargo's temporary local registry);
#   2. each .crate holds only what belongs in it (manifest, sources,
#      README, the two licence files) and at least the files it needs;
#   3. the licence files in the crate directories are copies of the root's;
#   4. no `include_str!`/`include_bytes!` in a packed source reaches a file
#      that is not in the package (it would break `cargo test` of the
#      published crate, as packagers run it): pool-core's derive reference,
#      `derive.md`, is included this way on its re-export of the derive.
#
#   scripts/package.sh
#
# `--allow-dirty` lets it run on a work tree with uncommitted changes; what
# that would add to a package is caught by the file check.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
problem() {
    printf 'package.sh: %s\n' "$*" >&2
    fail=1
}

echo "=== cargo package (pack and verify both crates)"
cargo package -p pool-derive -p pool-core --allow-dirty

# What a package may hold: cargo's own files, the manifest, the README, the
# two licences, Rust sources under src/ (pool-core's unit tests live in
# src/tests/ and are part of the crate), and pool-core's derive reference.
allowed='^(\.cargo_vcs_info\.json|Cargo\.lock|Cargo\.toml|Cargo\.toml\.orig|README\.md|LICENSE-APACHE|LICENSE-MIT|derive\.md|src/lib\.md|src/([a-z_]+/)*[a-z_]+\.rs)$'
required=(Cargo.toml README.md LICENSE-APACHE LICENSE-MIT src/lib.rs)

for crate in pool-derive pool-core; do
    echo "=== files of $crate"
    list=$(cargo package -p "$crate" --allow-dirty --no-verify --list 2>/dev/null)
    printf '%s\n' "$list"

    while IFS= read -r file; do
        [[ $file =~ $allowed ]] || problem "$crate: unexpected file in the package: $file"
    done <<<"$list"
    for file in "${required[@]}"; do
        grep -qxF "$file" <<<"$list" || problem "$crate: $file is missing from the package"
    done

    for licence in LICENSE-APACHE LICENSE-MIT; do
        cmp -s "$licence" "$crate/$licence" ||
            problem "$crate/$licence differs from the root's $licence; copy it again"
    done

    # Files that packed sources include at compile time (doctests too).
    while IFS= read -r source; do
        while IFS= read -r included; do
            [[ -n $included ]] || continue
            target=$(realpath -m --relative-to="$crate" "$crate/$(dirname "$source")/$included")
            grep -qxF "$target" <<<"$list" ||
                problem "$crate/$source includes \"$included\", which is not in the package"
        done < <(grep -oE 'include_(str|bytes)!\("[^"]+"\)' "$crate/$source" |
            sed -E 's/^include_(str|bytes)!\("(.*)"\)$/\2/')
    done < <(grep -E '\.rs$' <<<"$list")
done

if ((fail)); then
    echo "package.sh: FAILED" >&2
    exit 1
fi
echo "=== both crates package cleanly"
