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
#                                          # once with serde_json
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

make_crate() { # make_crate <dir> <derive: yes|no|floor|serde>
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
    [[ $derive == serde ]] && cat >>"$dir/Cargo.toml" <<TOML
serde = { version = "1", features = ["derive"] }
serde_json = "1"
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
            elif [[ $derive == serde ]]; then
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
            elif [[ $derive == serde ]]; then
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
export CARGO_TARGET_DIR="$OUT/target"

per_struct() { awk -v y="$1" -v n="$2" -v c="$N" 'BEGIN { printf "%.1f", (y - n) * 1000 / c }'; }

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
    header="profile  derive M  plain M  M per struct"
    [[ -n "${FLOOR:-}" ]] && header+="  floor M  floor M per struct  ratio"
    [[ -n "${SERDE:-}" ]] && header+="  serde M  serde M per struct"
    echo "$header"
    for profile in ${PROFILES:-release debug}; do
        flag=()
        [[ $profile == release ]] && flag=(--release)
        yes=$(instructions "$OUT/compile-cost-yes" "${flag[@]}")
        no=$(instructions "$OUT/compile-cost-no" "${flag[@]}")
        yes_per=$(awk -v y="$yes" -v n="$no" -v c="$N" 'BEGIN { printf "%.2f", (y - n) / c }')
        line=$(printf '%-8s %8s %8s %12s' "$profile" "$yes" "$no" "$yes_per")
        if [[ -n "${FLOOR:-}" ]]; then
            floor=$(instructions "$OUT/compile-cost-floor" "${flag[@]}")
            floor_per=$(awk -v f="$floor" -v n="$no" -v c="$N" 'BEGIN { printf "%.2f", (f - n) / c }')
            line+=$(printf '  %8s %18s %6s' "$floor" "$floor_per" \
                "$(awk -v y="$yes_per" -v f="$floor_per" 'BEGIN { printf "%.2f", y / f }')")
        fi
        if [[ -n "${SERDE:-}" ]]; then
            serde=$(instructions "$OUT/compile-cost-serde" "${flag[@]}")
            line+=$(printf '  %8s %18s' "$serde" \
                "$(awk -v s="$serde" -v n="$no" -v c="$N" 'BEGIN { printf "%.2f", (s - n) / c }')")
        fi
        echo "$line"
    done
    exit 0
fi
# One line per profile: seconds (wall-clock, CPU) of each build, and the
# difference per struct in ms (wall-clock, CPU).
header="profile  derive s (cpu)  plain s (cpu)  ms per struct (cpu)"
[[ -n "${FLOOR:-}" ]] && header+="  floor s (cpu)  floor ms per struct (cpu)"
[[ -n "${SERDE:-}" ]] && header+="  serde s (cpu)  serde ms per struct (cpu)"
echo "$header"
for profile in ${PROFILES:-release debug}; do
    flag=()
    [[ $profile == release ]] && flag=(--release)
    read -r yes yes_cpu <<<"$(build_time "$OUT/compile-cost-yes" "${flag[@]}")"
    read -r no no_cpu <<<"$(build_time "$OUT/compile-cost-no" "${flag[@]}")"
    line=$(printf '%-8s %6s (%6s) %6s (%6s) %8s (%6s)' "$profile" "$yes" "$yes_cpu" "$no" "$no_cpu" \
        "$(per_struct "$yes" "$no")" "$(per_struct "$yes_cpu" "$no_cpu")")
    if [[ -n "${FLOOR:-}" ]]; then
        read -r floor floor_cpu <<<"$(build_time "$OUT/compile-cost-floor" "${flag[@]}")"
        line+=$(printf '  %6s (%6s) %8s (%6s)' "$floor" "$floor_cpu" \
            "$(per_struct "$floor" "$no")" "$(per_struct "$floor_cpu" "$no_cpu")")
    fi
    if [[ -n "${SERDE:-}" ]]; then
        read -r serde serde_cpu <<<"$(build_time "$OUT/compile-cost-serde" "${flag[@]}")"
        line+=$(printf '  %6s (%6s) %8s (%6s)' "$serde" "$serde_cpu" \
            "$(per_struct "$serde" "$no")" "$(per_struct "$serde_cpu" "$no_cpu")")
    fi
    echo "$line"
done

if [[ -n "${LLVM_LINES:-}" ]]; then
    (cd "$OUT/compile-cost-yes" && cargo llvm-lines --release --bin compile-cost-yes | head -40)
fi
