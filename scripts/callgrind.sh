#!/usr/bin/env bash
# Instructions per round trip (acquire -> write a few bytes -> drop) for the
# pool, a fresh Box, a hand-written thread_local free list and every peer pool
# crate of benches/benches/peers (one thread, small object), counted by callgrind.
# Runs benches/benches/callgrind.rs, which runs the same round trips. Instruction
# counts do not depend on the machine's load, so this is the stable second
# measure of "pool vs fastest peer".
#
#   scripts/callgrind.sh           # build, measure, print a table
#   KEEP=1 scripts/callgrind.sh    # also keep the callgrind.out.* files
#
# Each variant runs twice, with N = 100_000 and N = 200_000 round trips (after
# the same 1000-round-trip warm-up); (Ir(200k) - Ir(100k)) / 100k is the cost
# of one round trip with start-up, warm-up and exit cancelled out. It
# includes the driving loop and the call into the variant's function
# (about 6 instructions, the same for every variant).
#
# `none` is the baseline: the same write and reset on an object the loop
# holds, no acquire or release. "net" = Ir/op - Ir/op(none): what getting
# and giving back the object costs. "x tl" compares with thread_local,
# "x pool" with the pool (Ir/op); the last lines name the fastest peer crate
# and its ratio to the pool, in Ir/op and in net.
#
#   VARIANTS="none pool lifeguard" scripts/callgrind.sh   # a subset
#   VARIANTS="cross_harness cross_pool cross_pool_on_acquire cross_arrayqueue" \
#       scripts/callgrind.sh   # cross-thread: per object handed across
#
# To see where a variant's instructions go:
#   valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.pool \
#       "$BIN" pool 200000
#   callgrind_annotate cg.pool          # Ir per function and source line
#   objdump -d -C --no-show-raw-insn "$BIN" | less   # callgrind::round_trip::<..>, drop_in_place<Pooled<..>>
set -euo pipefail

cd "$(dirname "$0")/.."

N1=100000
N2=200000
PEERS=(object-pool lifeguard opool opool_local sharded-slab regex-automata
    poolshark_local poolshark lockfree-object-pool)
if [[ -n "${VARIANTS:-}" ]]; then
    read -r -a VARIANTS <<<"$VARIANTS"
else
    VARIANTS=(none thread_local pool runtime runtime_ref derived generic generic_i8 generic_alternate box "${PEERS[@]}")
fi
# The ratios need these three.
for needed in none thread_local pool; do
    [[ " ${VARIANTS[*]} " == *" $needed "* ]] || VARIANTS=("$needed" "${VARIANTS[@]}")
done

# Build the bench binary and find its path.
if ! BIN=$(cargo bench --manifest-path benches/Cargo.toml --bench callgrind --no-run \
    --message-format=json-render-diagnostics |
    jq -r 'select(.reason == "compiler-artifact" and .target.name == "callgrind"
                  and .executable != null) | .executable' | tail -n 1) ||
    [[ -z "$BIN" || ! -x "$BIN" ]]; then
    echo "build failed; see: cargo bench --manifest-path benches/Cargo.toml --bench callgrind --no-run" >&2
    exit 1
fi
echo "binary: $BIN"

OUT=$(mktemp -d)
if [[ -z "${KEEP:-}" ]]; then
    trap 'rm -rf "$OUT"' EXIT
else
    echo "callgrind output kept in $OUT"
fi

# Total instructions executed (Ir) for one run.
ir() {
    local variant=$1 n=$2 file="$OUT/callgrind.out.$1.$2"
    valgrind --tool=callgrind --callgrind-out-file="$file" "$BIN" "$variant" "$n" \
        >/dev/null 2>"$file.log"
    # The "summary:" (or "totals:") line holds the total Ir.
    awk '/^(summary|totals):/ { print $2; exit }' "$file"
}

declare -A PER
for v in "${VARIANTS[@]}"; do
    a=$(ir "$v" "$N1")
    b=$(ir "$v" "$N2")
    PER[$v]=$(awk -v a="$a" -v b="$b" -v d="$((N2 - N1))" 'BEGIN { printf "%.2f", (b - a) / d }')
    echo "$v $a $b" >>"$OUT/raw"
done

echo
printf '%-22s %14s %14s %9s %8s %8s %8s\n' variant "Ir(N=$N1)" "Ir(N=$N2)" "Ir/op" "net" "x tl" "x pool"
while read -r v a b; do
    printf '%-22s %14s %14s %9s %8s %8s %8s\n' "$v" "$a" "$b" "${PER[$v]}" \
        "$(awk -v p="${PER[$v]}" -v z="${PER[none]}" 'BEGIN { printf "%.2f", p - z }')" \
        "$(awk -v p="${PER[$v]}" -v t="${PER[thread_local]}" 'BEGIN { printf "%.3f", p / t }')" \
        "$(awk -v p="${PER[$v]}" -v t="${PER[pool]}" 'BEGIN { printf "%.3f", p / t }')"
done <"$OUT/raw"

# The cross-thread variants (`cross_*`): instructions per object handed
# across, both threads' together, net of the harness's, and against the
# `ArrayQueue` pool's.
if [[ -n "${PER[cross_harness]:-}" ]]; then
    echo
    printf '%-24s %9s %9s %12s\n' "cross-thread" "Ir/obj" "net" "x arrayqueue"
    for v in "${VARIANTS[@]}"; do
        [[ $v == cross_* ]] || continue
        printf '%-24s %9s %9s %12s\n' "$v" "${PER[$v]}" \
            "$(awk -v p="${PER[$v]}" -v h="${PER[cross_harness]}" 'BEGIN { printf "%.2f", p - h }')" \
            "$(awk -v p="${PER[$v]}" -v h="${PER[cross_harness]}" -v q="${PER[cross_arrayqueue]:-}" \
                'BEGIN { if (q == "") print "-"; else printf "%.3f", (p - h) / (q - h) }')"
    done
fi

# The fastest peer crate, against the pool.
best=
for v in "${PEERS[@]}"; do
    [[ -n "${PER[$v]:-}" ]] || continue
    if [[ -z "$best" ]] || awk -v a="${PER[$v]}" -v b="${PER[$best]}" 'BEGIN { exit !(a < b) }'; then
        best=$v
    fi
done
if [[ -n "$best" ]]; then
    echo
    awk -v name="$best" -v b="${PER[$best]}" -v p="${PER[pool]}" -v z="${PER[none]}" 'BEGIN {
        printf "fastest peer crate: %s, %.2f Ir/op (net %.2f)\n", name, b, b - z
        printf "fastest peer / pool: %.3fx in Ir/op, %.3fx in net\n", b / p, (b - z) / (p - z)
    }'
fi
