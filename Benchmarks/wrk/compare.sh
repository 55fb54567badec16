#!/usr/bin/env bash
# Compares `pagebench http-bench` with wrk (follow-token.lua) against one release
# `pagebench serve` on loopback: same store, same endpoint and limit, same connection
# count, runs interleaved (wrk, pagebench, wrk, …) so machine noise hits both alike.
#
#   bash Benchmarks/wrk/compare.sh [CONNECTIONS] [LIMIT] [ROUNDS] [SECONDS]   (defaults 8 100 5 5)
#
# Prints one line per run and the medians, with each load generator's CPU time per request
# (user+sys from /usr/bin/time ÷ requests: less sensitive to other load on the machine than
# requests/s). With PAGEBENCH_BASELINE=path/to/another/pagebench, that binary's client
# runs too, in the same rounds against the same server (an A/B of two client versions).
# Needs wrk (Debian: apt-get install -y wrk).
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-8}
limit=${2:-100}
rounds=${3:-5}
seconds=${4:-5}
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install -y wrk)" >&2; exit 69; }
# PAGEBENCH_NO_BUILD=1 skips the build (for runs while another build holds .build).
[ -n "${PAGEBENCH_NO_BUILD:-}" ] || swift build -c release --product pagebench >/dev/null
bin=.build/release/pagebench
log=$(mktemp)
$bin serve --port 0 >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
[ -n "$port" ] || { echo "serve did not start: $(cat "$log")" >&2; exit 70; }
target=http://127.0.0.1:$port
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; serve $target (default store); GET /scan?limit=$limit; $connections connections; ${seconds}s x $rounds rounds; $(uptime | sed 's/.*load/load/')"
# Warm-up: connections, page cache, CPU frequency.
wrk -t "$connections" -c "$connections" -d 2s -s Benchmarks/wrk/follow-token.lua "$target" -- /scan "limit=$limit" >/dev/null
baseline=${PAGEBENCH_BASELINE:-}
cpu=$(mktemp)
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log" "$cpu"' EXIT
# Prints "REQUESTS_PER_SECOND CPU_US_PER_REQUEST" for one client run.
run_wrk() {
    out=$(/usr/bin/time -o "$cpu" -f '%U %S' wrk -t "$connections" -c "$connections" -d "${seconds}s" \
        -s Benchmarks/wrk/follow-token.lua "$target" -- /scan "limit=$limit")
    rps=$(echo "$out" | grep -o 'requestsPerSecond=[0-9.]*' | cut -d= -f2)
    requests=$(echo "$out" | grep -o 'requests=[0-9]*' | head -1 | cut -d= -f2)
    echo "$rps $(awk -v r="$requests" '{printf "%.1f", ($1 + $2) * 1e6 / r}' "$cpu")"
}
run_pagebench() {
    out=$(/usr/bin/time -o "$cpu" -f '%U %S' "$1" http-bench --target "$target" --connections "$connections" \
        --duration "$seconds" --limit "$limit")
    rps=$(echo "$out" | grep -o '"requestsPerSecond":[0-9.]*' | cut -d: -f2)
    requests=$(echo "$out" | grep -o '"requests":[0-9]*' | cut -d: -f2)
    echo "$rps $(awk -v r="$requests" '{printf "%.1f", ($1 + $2) * 1e6 / r}' "$cpu")"
}
w=(); p=(); b=(); wc=(); pc=(); bc=()
for round in $(seq "$rounds"); do
    read -r wr wu < <(run_wrk)
    read -r pr pu < <(run_pagebench "$bin")
    line=$(printf "round %d  wrk %10.1f req/s %5.1f us/req   pagebench %10.1f req/s %5.1f us/req   ratio %.3f" \
        "$round" "$wr" "$wu" "$pr" "$pu" "$(echo "$pr / $wr" | bc -l)")
    if [ -n "$baseline" ]; then
        read -r br bu < <(run_pagebench "$baseline")
        line+=$(printf "   baseline %10.1f req/s %5.1f us/req   ratio %.3f" "$br" "$bu" "$(echo "$br / $wr" | bc -l)")
        b+=("$br"); bc+=("$bu")
    fi
    echo "$line"
    w+=("$wr"); p+=("$pr"); wc+=("$wu"); pc+=("$pu")
done
median() { printf "%s\n" "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mw=$(median "${w[@]}"); mp=$(median "${p[@]}")
line=$(printf "median   wrk %10.1f req/s %5.1f us/req   pagebench %10.1f req/s %5.1f us/req   ratio %.3f" \
    "$mw" "$(median "${wc[@]}")" "$mp" "$(median "${pc[@]}")" "$(echo "$mp / $mw" | bc -l)")
if [ -n "$baseline" ]; then
    mb=$(median "${b[@]}")
    line+=$(printf "   baseline %10.1f req/s %5.1f us/req   ratio %.3f" "$mb" "$(median "${bc[@]}")" "$(echo "$mb / $mw" | bc -l)")
fi
echo "$line"
