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
# PAGEBENCH_BIN=path/to/pagebench runs that binary instead of building .build/release/pagebench
# (a quick check of the scripts with a debug build: its figures are not the measurement);
# SERVE_OPTIONS="…" adds `pagebench serve` options to both servers.
#
# Prints one line per round and the medians: each protocol's requests/s and pages/s, and its
# ratio to REST (the server's CPU time per request is not separable per protocol, so the
# ratio of requests/s is the figure). Needs wrk.
#
# The servers run without throttling or faults, so every answer must be a page: a run that
# gets an error answer (a GraphQL `errors` entry, a DynamoDB exception, a REST 4xx/5xx) or a
# socket error stops the script with exit status 1 and the wrk line that says what came back
# (Benchmarks/wrk/drain.lua), instead of reporting the requests/s of error answers. Pages/s
# is printed beside requests/s to show it: in a run that passes they are equal.
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-8}
limit=${2:-10}
rounds=${3:-5}
seconds=${4:-5}
partition=3
command -v wrk >/dev/null || { echo "wrk is not installed (Debian: apt-get install -y wrk)" >&2; exit 69; }
if [ -n "${PAGEBENCH_BIN:-}" ]; then
    bin=$PAGEBENCH_BIN
else
    [ -n "${PAGEBENCH_NO_BUILD:-}" ] || swift build -c release --product pagebench >/dev/null
    bin=.build/release/pagebench
fi
read -ra serve_options <<<"${SERVE_OPTIONS:-}"
log=$(mktemp)
generic_log=$(mktemp)
$bin serve --port 0 "${serve_options[@]}" >"$log" 2>&1 &
server=$!
# A second server of the same store whose GraphQL endpoint runs every document through
# GraphQLSwift's executor (serve --graphql-execution generic): graphql-generic below.
$bin serve --port 0 --graphql-execution generic "${serve_options[@]}" >"$generic_log" 2>&1 &
generic_server=$!
trap 'kill -TERM $server $generic_server 2>/dev/null; wait $server $generic_server 2>/dev/null; rm -f "$log" "$generic_log"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && grep -q "listening on" "$generic_log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
generic_port=$(grep -o '127.0.0.1:[0-9]*' "$generic_log" | cut -d: -f2)
[ -n "$port" ] && [ -n "$generic_port" ] || { echo "serve did not start: $(cat "$log" "$generic_log")" >&2; exit 70; }
target=http://127.0.0.1:$port
protocols=(rest dynamodb graphql graphql-generic)
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; serve $target (default store${SERVE_OPTIONS:+, $SERVE_OPTIONS}); partition $partition, limit $limit; $connections connections; ${seconds}s x $rounds rounds; $(uptime | sed 's/.*load/load/')"
run() {  # PROTOCOL DURATION → "REQUESTS/S PAGES/S"
    local script args out
    case $1 in
        rest) script=follow-token.lua; args=(/partitions/$partition/items "limit=$limit") ;;
        dynamodb) script=dynamodb-query.lua; args=("$partition" "$limit") ;;
        graphql|graphql-generic) script=graphql-list.lua; args=("$partition" "$limit") ;;
    esac
    local url=$target
    [ "$1" = graphql-generic ] && url=http://127.0.0.1:$generic_port
    # The scripts exit 1 (after their summary line, with the reason on standard error) on any
    # error answer, failed request or socket error: no throttling or faults are configured here.
    if ! out=$(PAGEBENCH_WRK_EXPECT_ERRORS=0 wrk -t "$connections" -c "$connections" -d "$2" \
        -s "Benchmarks/wrk/$script" "$url" -- "${args[@]}"); then
        echo "$1: the wrk run failed, so no figure is reported: $out" >&2
        exit 1
    fi
    echo "$(echo "$out" | grep -o 'requestsPerSecond=[0-9.]*' | cut -d= -f2) $(echo "$out" | grep -o 'pagesPerSecond=[0-9.]*' | cut -d= -f2)"
}
for protocol in "${protocols[@]}"; do run "$protocol" 2s >/dev/null; done  # warm-up
declare -A results pages
for round in $(seq "$rounds"); do
    line="round $round"
    for protocol in "${protocols[@]}"; do
        figures=$(run "$protocol" "${seconds}s")  # an assignment, so that a failed run stops the script
        read -r rps pps <<<"$figures"
        results[$protocol]+="$rps "
        pages[$protocol]+="$pps "
        line+=$(printf "   %s %9.1f req/s %9.1f pages/s" "$protocol" "$rps" "$pps")
    done
    echo "$line"
done
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
rest=$(median "${results[rest]}")
line=$(printf "median   rest %9.1f req/s %9.1f pages/s" "$rest" "$(median "${pages[rest]}")")
for protocol in "${protocols[@]:1}"; do
    m=$(median "${results[$protocol]}")
    line+=$(printf "   %s %9.1f req/s %9.1f pages/s (%.2f× REST)" "$protocol" "$m" "$(median "${pages[$protocol]}")" \
        "$(echo "$m / $rest" | bc -l)")
done
echo "$line"
