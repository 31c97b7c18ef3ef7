#!/usr/bin/env bash
# Instructions per request of the axum_json bench's routes, in process
# (`axum_json --oneshot <route> <n>`: `tower::ServiceExt::oneshot` on the
# router, no socket, each response's body read), counted by callgrind,
# which the machine's load does not move (the load rounds' req/s it does).
# Each route runs N1 and N2 requests after the same start-up;
# (Ir(N2) - Ir(N1)) / (N2 - N1) is one request.
#
#   scripts/axum_callgrind.sh
#   ROUTES="/json /pooled" N1=200 N2=600 scripts/axum_callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."

N1=${N1:-300}
N2=${N2:-900}
read -r -a ROUTES <<<"${ROUTES:-/stack /json /json_pooled /pooled /bytes /pooled_out /json_out}"

if ! BIN=$(cargo bench --manifest-path benches/Cargo.toml --bench axum_json --no-run \
    --message-format=json-render-diagnostics |
    jq -r 'select(.reason == "compiler-artifact" and .target.name == "axum_json"
                  and .executable != null) | .executable' | tail -n 1) ||
    [[ -z "$BIN" || ! -x "$BIN" ]]; then
    echo "build failed; see: cargo bench --manifest-path benches/Cargo.toml --bench axum_json --no-run" >&2
    exit 1
fi
echo "binary: $BIN"

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# Total instructions executed (Ir) for one run.
ir() {
    local file="$OUT/callgrind.out.$2"
    valgrind --tool=callgrind --callgrind-out-file="$file" "$BIN" --oneshot "$1" "$2" \
        >/dev/null 2>"$file.log"
    awk '/^(summary|totals):/ { print $2; exit }' "$file"
}

printf '%-13s %14s %14s %12s %9s\n' route "Ir(N=$N1)" "Ir(N=$N2)" "Ir/request" "x /json"
declare -A PER
for route in "${ROUTES[@]}"; do
    a=$(ir "$route" "$N1")
    b=$(ir "$route" "$N2")
    PER[$route]=$(awk -v a="$a" -v b="$b" -v d="$((N2 - N1))" 'BEGIN { printf "%.0f", (b - a) / d }')
    printf '%-13s %14s %14s %12s %9s\n' "$route" "$a" "$b" "${PER[$route]}" \
        "$(awk -v p="${PER[$route]}" -v j="${PER[/json]:-}" 'BEGIN { if (j == "") print "-"; else printf "%.3f", p / j }')"
done
