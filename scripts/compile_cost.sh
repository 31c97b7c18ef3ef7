#!/usr/bin/env bash
# What `#[derive(Poolable)]` costs to compile: builds a generated crate with
# N structs (default 200) that each derive `Poolable` and are acquired once,
# and the same crate with the derive removed (`Default` only, each struct
# made once with `Box::new`), in release and in debug, and prints the
# difference per struct.
#
#   scripts/compile_cost.sh            # N=200
#   N=50 scripts/compile_cost.sh
#   ACQUIRE=0 scripts/compile_cost.sh      # declare the structs, never acquire them
#   LLVM_LINES=1 scripts/compile_cost.sh   # also `cargo llvm-lines` of the derived crate
#
# With ACQUIRE=0 nothing of the pool is compiled to machine code (the derived
# functions are `#[inline]` and unused): the figure is the derive's
# expansion and its type checking. By default each struct is acquired once,
# as a program that pools it does, and the figure includes the pool's
# generic code, compiled once per type.
#
# Each build is clean for the generated crate only: pool-core, pool-derive
# and their dependencies are built once first and reused, so the figure is
# what a user's crate pays per derived struct. Times are wall-clock on a
# shared machine: run it twice and take the lower figures.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
N=${N:-200}
ACQUIRE=${ACQUIRE:-1}
OUT="$ROOT/target/compile-cost"
mkdir -p "$OUT"

make_crate() { # make_crate <dir> <derive: yes|no>
    local dir=$1 derive=$2
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "compile-cost-$derive"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
pool-core = { path = "$ROOT/pool-core" }

[workspace]
TOML
    {
        echo "#![allow(dead_code)]"
        [[ $derive == yes && $ACQUIRE != 0 ]] && echo "use pool_core::Poolable;"
        for i in $(seq 1 "$N"); do
            if [[ $derive == yes ]]; then
                echo "#[derive(Poolable, Default)]"
            else
                echo "#[derive(Default)]"
            fi
            echo "pub struct S$i { pub name: String, pub id: u64, pub tags: Vec<String>, pub body: Vec<u8> }"
        done
        echo "fn main() {"
        for i in $(seq 1 "$N"); do
            if [[ $ACQUIRE == 0 ]]; then
                echo "    std::hint::black_box(S$i::default().id);"
            elif [[ $derive == yes ]]; then
                echo "    std::hint::black_box(S$i::acquire().id);"
            else
                echo "    std::hint::black_box(Box::new(S$i::default()).id);"
            fi
        done
        echo "}"
    } >"$dir/src/main.rs"
}

# Seconds for a build of the generated crate alone (its deps already built).
build_time() { # build_time <dir> <profile flag...>
    local dir=$1
    shift
    (cd "$dir" && cargo build -q "$@" >/dev/null 2>&1) # the deps, once
    (cd "$dir" && touch src/main.rs && cargo clean -q -p "$(basename "$dir")" "$@" 2>/dev/null || true)
    local start end
    start=$(date +%s.%N)
    (cd "$dir" && cargo build -q "$@")
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

make_crate "$OUT/compile-cost-yes" yes
make_crate "$OUT/compile-cost-no" no
export CARGO_TARGET_DIR="$OUT/target"

printf '%-8s %10s %10s %14s\n' profile "derive s" "plain s" "ms per struct"
for profile in release debug; do
    flag=()
    [[ $profile == release ]] && flag=(--release)
    yes=$(build_time "$OUT/compile-cost-yes" "${flag[@]}")
    no=$(build_time "$OUT/compile-cost-no" "${flag[@]}")
    printf '%-8s %10s %10s %14s\n' "$profile" "$yes" "$no" \
        "$(awk -v y="$yes" -v n="$no" -v c="$N" 'BEGIN { printf "%.1f", (y - n) * 1000 / c }')"
done

if [[ -n "${LLVM_LINES:-}" ]]; then
    (cd "$OUT/compile-cost-yes" && cargo llvm-lines --release --bin compile-cost-yes | head -40)
fi
