#!/usr/bin/env bash
# Requests/s of `pagebench serve`'s protocol front ends against its REST endpoint (issue 13):
# one release server, wrk with the same connections and limit, draining one partition by
# following the continuation (REST nextToken: follow-token.lua; DynamoDB LastEvaluatedKey:
# dynamodb-query.lua; GraphQL nextToken: graphql-list.lua, against this server's compiled
# GraphQL path and a second server's GraphQLSwift executor), runs interleaved
# round by round so machine noise hits all alike.
#
#   bash Benchmarks/wrk/protocols.sh [CONNECTIONS] [LIMIT] [ROUNDS] [SECONDS]   (defaults 8 10 5 5)
#
# Prints one line per round and the medians, with each protocol's ratio to REST and the
# server's CPU time per request (user+sys of the server over the whole run ÷ requests is
# not separable per protocol, so the ratio of requests/s is the figure). Needs wrk.
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-8}
limit=${2:-10}
rounds=${3:-5}
seconds=${4:-5}
partition=3
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install -y wrk)" >&2; exit 69; }
[ -n "${PAGEBENCH_NO_BUILD:-}" ] || swift build -c release --product pagebench >/dev/null
bin=.build/release/pagebench
log=$(mktemp)
generic_log=$(mktemp)
$bin serve --port 0 >"$log" 2>&1 &
server=$!
# A second server of the same store whose GraphQL endpoint runs every document through
# GraphQLSwift's executor (serve --graphql-execution generic): graphql-generic below.
$bin serve --port 0 --graphql-execution generic >"$generic_log" 2>&1 &
generic_server=$!
trap 'kill -TERM $server $generic_server 2>/dev/null; wait $server $generic_server 2>/dev/null; rm -f "$log" "$generic_log"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && grep -q "listening on" "$generic_log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
generic_port=$(grep -o '127.0.0.1:[0-9]*' "$generic_log" | cut -d: -f2)
[ -n "$port" ] && [ -n "$generic_port" ] || { echo "serve did not start: $(cat "$log" "$generic_log")" >&2; exit 70; }
target=http://127.0.0.1:$port
protocols=(rest dynamodb graphql graphql-generic)
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; serve $target (default store); partition $partition, limit $limit; $connections connections; ${seconds}s x $rounds rounds; $(uptime | sed 's/.*load/load/')"
run() {  # PROTOCOL DURATION → requests/s
    local script args
    case $1 in
        rest) script=follow-token.lua; args=(/partitions/$partition/items "limit=$limit") ;;
        dynamodb) script=dynamodb-query.lua; args=("$partition" "$limit") ;;
        graphql|graphql-generic) script=graphql-list.lua; args=("$partition" "$limit") ;;
    esac
    local url=$target
    [ "$1" = graphql-generic ] && url=http://127.0.0.1:$generic_port
    out=$(wrk -t "$connections" -c "$connections" -d "$2" -s "Benchmarks/wrk/$script" "$url" -- "${args[@]}")
    if echo "$out" | grep -q 'failures=[1-9]'; then echo "$1: failed requests: $out" >&2; exit 1; fi
    echo "$out" | grep -o 'requestsPerSecond=[0-9.]*' | cut -d= -f2
}
for protocol in "${protocols[@]}"; do run "$protocol" 2s >/dev/null; done  # warm-up
declare -A results
for round in $(seq "$rounds"); do
    line="round $round"
    for protocol in "${protocols[@]}"; do
        rps=$(run "$protocol" "${seconds}s")
        results[$protocol]+="$rps "
        line+=$(printf "   %s %9.1f req/s" "$protocol" "$rps")
    done
    echo "$line"
done
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
rest=$(median "${results[rest]}")
line=$(printf "median   rest %9.1f req/s" "$rest")
for protocol in "${protocols[@]:1}"; do
    m=$(median "${results[$protocol]}")
    line+=$(printf "   %s %9.1f req/s (%.2f× REST)" "$protocol" "$m" "$(echo "$m / $rest" | bc -l)")
done
echo "$line"
