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
#   PROFILES=release scripts/compile_cost.sh   # release only
#   FLOOR=1 scripts/compile_cost.sh        # also the floor: a hand-written
#                                          # thread_local! free list per struct
#   SERDE=1 scripts/compile_cost.sh        # also, for scale, the same structs
#                                          # with #[derive(Serialize, Deserialize)]
#                                          # instead, each encoded and decoded
#                                          # once with serde_json; and the same
#                                          # with serde_derive's
#                                          # `deserialize_in_place` on (what
#                                          # pool-core's `serde-in-place` turns
#                                          # on for the whole build)
#   INSTRUCTIONS=1 scripts/compile_cost.sh # instead of times, the instructions
#                                          # rustc executes (all its threads,
#                                          # valgrind's callgrind): slow, but
#                                          # the same on every run of a commit
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
# shared machine: run it twice and take the lower figures, or count
# instructions (`INSTRUCTIONS=1`), which a shared machine's load does not
# move.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
N=${N:-200}
ACQUIRE=${ACQUIRE:-1}
OUT="$ROOT/target/compile-cost"
mkdir -p "$OUT"

make_crate() { # make_crate <dir> <derive: yes|no|floor|serde|serde_inplace>
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
TOML
    [[ $derive == serde* ]] && cat >>"$dir/Cargo.toml" <<TOML
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
    [[ $derive == serde_inplace ]] && cat >>"$dir/Cargo.toml" <<TOML
serde_derive = { version = "1", features = ["deserialize_in_place"] }
TOML
    echo "[workspace]" >>"$dir/Cargo.toml"
    {
        echo "#![allow(dead_code)]"
        [[ $derive == yes ]] && echo "use pool_core::Poolable;"
        [[ $derive == floor ]] && cat <<'RUST'
// The floor: what the least a per-type pool can be costs to compile. Each
// struct gets its own `thread_local!` free list, an acquire that pops or
// makes a new box, and a guard whose drop clears the fields and pushes the
// box back.
macro_rules! free_list {
    ($t:ident, $free:ident, $guard:ident) => {
        thread_local! {
            static $free: std::cell::RefCell<Vec<Box<$t>>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        pub struct $guard(Option<Box<$t>>);
        impl $t {
            pub fn acquire() -> $guard {
                let boxed = $free
                    .try_with(|free| free.borrow_mut().pop())
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Box::new($t::default()));
                $guard(Some(boxed))
            }
        }
        impl std::ops::Deref for $guard {
            type Target = $t;
            fn deref(&self) -> &$t {
                self.0.as_ref().unwrap()
            }
        }
        impl Drop for $guard {
            fn drop(&mut self) {
                if let Some(mut boxed) = self.0.take() {
                    boxed.name.clear();
                    boxed.id = 0;
                    boxed.tags.clear();
                    boxed.body.clear();
                    let _ = $free.try_with(move |free| free.borrow_mut().push(boxed));
                }
            }
        }
    };
}
RUST
        for i in $(seq 1 "$N"); do
            if [[ $derive == floor ]]; then
                echo "#[derive(Default)]"
                echo "pub struct S$i { pub name: String, pub id: u64, pub tags: Vec<String>, pub body: Vec<u8> }"
                echo "free_list!(S$i, FREE$i, Guard$i);"
                continue
            fi
            if [[ $derive == yes ]]; then
                echo "#[derive(Poolable, Default)]"
            elif [[ $derive == serde* ]]; then
                echo "#[derive(Default, serde::Serialize, serde::Deserialize)]"
            else
                echo "#[derive(Default)]"
            fi
            echo "pub struct S$i { pub name: String, pub id: u64, pub tags: Vec<String>, pub body: Vec<u8> }"
        done
        echo "fn main() {"
        for i in $(seq 1 "$N"); do
            if [[ $ACQUIRE == 0 ]]; then
                echo "    std::hint::black_box(S$i::default().id);"
            elif [[ $derive == yes || $derive == floor ]]; then
                echo "    std::hint::black_box(S$i::acquire().id);"
            elif [[ $derive == serde* ]]; then
                echo "    let json = serde_json::to_string(&S$i::default()).unwrap();"
                echo "    std::hint::black_box(serde_json::from_str::<S$i>(&json).unwrap().id);"
            else
                echo "    std::hint::black_box(Box::new(S$i::default()).id);"
            fi
        done
        echo "}"
    } >"$dir/src/main.rs"
}

# Seconds for a build of the generated crate alone (its deps already built):
# wall-clock, then CPU (user + system, of cargo and rustc), which a shared
# machine's load moves less.
build_time() { # build_time <dir> <profile flag...>
    local dir=$1
    shift
    (cd "$dir" && cargo build -q "$@" >/dev/null 2>&1) # the deps, once
    (cd "$dir" && touch src/main.rs && cargo clean -q -p "$(basename "$dir")" "$@" 2>/dev/null || true)
    local times
    times=$(mktemp)
    (cd "$dir" && /usr/bin/time -f '%e %U %S' -o "$times" cargo build -q "$@")
    awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$times"
    rm -f "$times"
}

make_crate "$OUT/compile-cost-yes" yes
make_crate "$OUT/compile-cost-no" no
[[ -n "${FLOOR:-}" ]] && make_crate "$OUT/compile-cost-floor" floor
[[ -n "${SERDE:-}" ]] && make_crate "$OUT/compile-cost-serde" serde
[[ -n "${SERDE:-}" ]] && make_crate "$OUT/compile-cost-serde_inplace" serde_inplace
export CARGO_TARGET_DIR="$OUT/target"

# Millions of instructions rustc executes for a clean build of the
# generated crate alone, every thread counted: callgrind through a
# `RUSTC_WRAPPER` that runs any other crate's rustc as it is (one path for
# every build, so that cargo keeps the deps it built through it).
WRAPPER="$OUT/callgrind-rustc"
instructions() { # instructions <dir> <profile flag...>
    local dir=$1
    shift
    local counts
    counts=$(mktemp -d)
    (cd "$dir" && RUSTC_WRAPPER="$WRAPPER" cargo build -q "$@" >/dev/null 2>&1) # the deps, once
    (cd "$dir" && cargo clean -q -p "$(basename "$dir")" "$@" 2>/dev/null || true)
    (cd "$dir" && COUNTS="$counts" RUSTC_WRAPPER="$WRAPPER" cargo build -q "$@")
    cat "$counts"/out.* | awk '/^summary:/ { s += $2 } END { printf "%.1f", s / 1e6 }'
    rm -rf "$counts"
}

# What a build measures: seconds, wall-clock and CPU (`build_time`), or
# millions of instructions (`instructions`); per struct over the plain
# crate, in ms or in millions.
if [[ -n "${INSTRUCTIONS:-}" ]]; then
    command -v valgrind >/dev/null || { echo "INSTRUCTIONS=1 needs valgrind" >&2; exit 1; }
    cat >"$WRAPPER" <<'RUSTC'
#!/usr/bin/env bash
rustc=$1
shift
if [[ -n "${COUNTS:-}" && " $* " == *" --crate-name compile_cost_"* ]]; then
    exec valgrind --tool=callgrind --callgrind-out-file="$COUNTS/out.%p" "$rustc" "$@" 2>/dev/null
fi
exec "$rustc" "$@"
RUSTC
    chmod +x "$WRAPPER"
    measure=instructions unit="M" per_unit="M per struct" scale=1
else
    measure=build_time unit="s (cpu)" per_unit="ms per struct (cpu)" scale=1000
fi
per_struct() { awk -v y="$1" -v n="$2" -v c="$N" -v k="$scale" 'BEGIN { printf "%.2f", (y - n) * k / c }'; }
# A crate's figures and its figures per struct: `cell <value> [cpu]`, with
# the plain crate's in `no` and `no_cpu`.
cell() {
    if [[ -n "${2:-}" ]]; then
        printf '  %8s (%6s) %8s (%6s)' "$1" "$2" "$(per_struct "$1" "$no")" "$(per_struct "$2" "$no_cpu")"
    else
        printf '  %8s %8s' "$1" "$(per_struct "$1" "$no")"
    fi
}

# One line per profile: each build's figures and its difference per struct;
# with the floor, the derive's ratio to it (first figures).
header="profile  derive $unit, $per_unit  plain ${unit% (cpu)}"
[[ -n "${FLOOR:-}" ]] && header+="  floor $unit, $per_unit  ratio"
[[ -n "${SERDE:-}" ]] && header+="  serde $unit, $per_unit  serde in place $unit, $per_unit"
echo "$header"
for profile in ${PROFILES:-release debug}; do
    flag=()
    [[ $profile == release ]] && flag=(--release)
    read -r yes yes_cpu <<<"$($measure "$OUT/compile-cost-yes" "${flag[@]}")"
    read -r no no_cpu <<<"$($measure "$OUT/compile-cost-no" "${flag[@]}")"
    line=$(printf '%-8s' "$profile")$(cell "$yes" "$yes_cpu")$(printf '  %8s' "$no")
    if [[ -n "${FLOOR:-}" ]]; then
        read -r floor floor_cpu <<<"$($measure "$OUT/compile-cost-floor" "${flag[@]}")"
        line+=$(cell "$floor" "$floor_cpu")
        line+=$(awk -v y="$(per_struct "$yes" "$no")" -v f="$(per_struct "$floor" "$no")" \
            'BEGIN { printf "  %5.2f", y / f }')
    fi
    if [[ -n "${SERDE:-}" ]]; then
        read -r serde serde_cpu <<<"$($measure "$OUT/compile-cost-serde" "${flag[@]}")"
        line+=$(cell "$serde" "$serde_cpu")
        read -r inplace inplace_cpu <<<"$($measure "$OUT/compile-cost-serde_inplace" "${flag[@]}")"
        line+=$(cell "$inplace" "$inplace_cpu")
    fi
    echo "$line"
done

if [[ -n "${LLVM_LINES:-}" ]]; then
    (cd "$OUT/compile-cost-yes" && cargo llvm-lines --release --bin compile-cost-yes | head -40)
fi
