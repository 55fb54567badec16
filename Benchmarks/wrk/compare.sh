#!/usr/bin/env bash
# Compares `pagebench http-bench` with wrk (follow-token.lua) against one release
# `pagebench serve` on loopback: same store, same endpoint and limit, same connection
# count, runs interleaved (wrk, pagebench, wrk, …) so machine noise hits both alike.
#
#   bash Benchmarks/wrk/compare.sh [CONNECTIONS] [LIMIT] [ROUNDS] [SECONDS]   (defaults 8 100 5 5)
#
# Prints one line per run and the medians; needs wrk (Debian: apt-get install -y wrk).
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-8}
limit=${2:-100}
rounds=${3:-5}
seconds=${4:-5}
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install -y wrk)" >&2; exit 69; }
swift build -c release --product pagebench >/dev/null
bin=.build/release/pagebench
log=$(mktemp)
$bin serve --port 0 >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
[ -n "$port" ] || { echo "serve did not start: $(cat "$log")" >&2; exit 70; }
target=http://127.0.0.1:$port
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; serve $target (default store); GET /scan?limit=$limit; $connections connections; ${seconds}s x $rounds rounds"
# Warm-up: connections, page cache, CPU frequency.
wrk -t "$connections" -c "$connections" -d 2s -s Benchmarks/wrk/follow-token.lua "$target" -- /scan "limit=$limit" >/dev/null
w=(); p=()
for round in $(seq "$rounds"); do
    wr=$(wrk -t "$connections" -c "$connections" -d "${seconds}s" -s Benchmarks/wrk/follow-token.lua "$target" -- /scan "limit=$limit" \
        | grep -o 'requestsPerSecond=[0-9.]*' | cut -d= -f2)
    pr=$($bin http-bench --target "$target" --connections "$connections" --duration "$seconds" --limit "$limit" \
        | grep -o '"requestsPerSecond":[0-9.]*' | cut -d: -f2)
    printf "round %d  wrk %10.1f req/s   pagebench %10.1f req/s   ratio %.3f\n" "$round" "$wr" "$pr" "$(echo "$pr / $wr" | bc -l)"
    w+=("$wr"); p+=("$pr")
done
median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mw=$(median "${w[@]}"); mp=$(median "${p[@]}")
printf "median   wrk %10.1f req/s   pagebench %10.1f req/s   ratio %.3f\n" "$mw" "$mp" "$(echo "$mp / $mw" | bc -l)"
