#!/usr/bin/env bash
# axum_service's order routes under wrk on loopback: builds the example in
# release, serves it (`--serve`), and runs ROUNDS rounds of wrk on each
# route, alternating, all against the one server process. Prints req/s,
# wrk's mean latency and the server's allocations and bytes per request
# (its counting allocator, read through `GET /allocs` around each round;
# wrk runs in a process of its own, so they are the server's alone).
# A manual tool, not run by .ci/run; needs wrk and curl
# (`apt-get install -y wrk curl`).
#
#   examples/http/load.sh                 # 3 rounds of 5 s per route
#   ROUNDS=5 DURATION=10s examples/http/load.sh
#   ROUTES="/withoutpool /withpool" examples/http/load.sh
set -euo pipefail
cd "$(dirname "$0")"

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-16}
ROUTES=${ROUTES:-/withoutpool /withpool /withpool_vec /withpool_bytes}

for tool in wrk curl; do
    command -v "$tool" > /dev/null || { echo "load.sh needs $tool (apt-get install -y $tool)" >&2; exit 1; }
done

cargo build --release --manifest-path Cargo.toml --example axum_service
server=target/release/examples/axum_service

work=$(mktemp -d)
"$server" --serve > "$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2> /dev/null || true; rm -rf "$work"' EXIT

addr=
for _ in $(seq 100); do
    addr=$(sed -n 's|^listening on http://\([0-9.:]*\) .*|\1|p' "$work/serve.log")
    [ -n "$addr" ] && break
    kill -0 "$pid" 2> /dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$addr" ] || { echo "the server did not say where it listens" >&2; exit 1; }
curl -sf "http://$addr/order" > "$work/order.json"

# One wrk run on route $1 for $2; prints "requests req/s latency allocs/req B/req".
run() {
    local before after out
    before=$(curl -sf "http://$addr/allocs")
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" -s load/order.lua "http://$addr$1" -- "$work/order.json")
    after=$(curl -sf "http://$addr/allocs")
    if grep -q 'Non-2xx\|Socket errors' <<< "$out"; then
        echo "wrk on $1 saw errors:" >&2
        echo "$out" >&2
        exit 1
    fi
    awk -v before="$before" -v after="$after" '
        /requests in/ { n = $1 }
        /Requests\/sec/ { rps = $2 }
        /Latency/ { lat = $2 }
        END {
            split(before, b, " "); split(after, a, " ")
            printf "%d %.0f %s %.2f %.0f\n", n, rps, lat, (a[1] - b[1]) / n, (a[2] - b[2]) / n
        }' <<< "$out"
}

echo "axum_service under wrk: server on http://$addr (pid $pid), wrk -t$THREADS -c$CONNECTIONS -d$DURATION per round,"
echo "routes alternated, $ROUNDS rounds; wrk and the server share this machine's $(nproc) cores"
echo "before: $(uptime)"
for route in $ROUTES; do run "$route" 1s > /dev/null; done # warm-up
echo
printf '%-7s%-17s%10s%10s%10s%12s%9s\n' round route requests req/s latency allocs/req B/req
for round in $(seq "$ROUNDS"); do
    for route in $ROUTES; do
        result=$(run "$route" "$DURATION")
        read -r n rps lat allocs bytes <<< "$result"
        printf '%-7s%-17s%10s%10s%10s%12s%9s\n' "$round" "$route" "$n" "$rps" "$lat" "$allocs" "$bytes"
    done
done
echo
echo "after:  $(uptime)"
echo "the Order pool (GET /metrics):"
curl -sf "http://$addr/metrics" | grep '^pool_objects.*pool="Order"' | grep -v ' 0$' | sort | sed 's/^/  /'
