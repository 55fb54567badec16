#!/usr/bin/env bash
# Server instructions per request under callgrind: serve (debug info stripped) under valgrind,
# wrk for D1 and D2 seconds in two server runs; Ir/request = ΔIr / Δrequests.
# usage: ir.sh BIN LIMIT D1 D2   (from a checkout, for the lua script)
set -euo pipefail
bin=$1 limit=$2
nd=$(mktemp); objcopy --strip-debug "$bin" "$nd"
for d in $3 $4; do
  log=$(mktemp); out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$nd" serve --port 0 >"$log" 2>&1 & pid=$!
  for _ in $(seq 600); do grep -q "listening on" "$log" && break; sleep 0.1; done
  port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
  requests=$(wrk -t 2 -c 8 -d "${d}s" -s Benchmarks/wrk/follow-token.lua "http://127.0.0.1:$port" -- /scan "limit=$limit" | awk '/requests in/{print $1}')
  kill -TERM $pid; wait $pid 2>/dev/null || true
  ir=$(grep -o "Collected : [0-9]*" "$log" | awk '{print $3}')
  [ -n "$ir" ] || ir=$(grep "^summary:\|^totals:" "$out" | head -1 | awk '{print $2}')
  echo "$d $requests $ir"; rm -f "$log" "$out"
done | awk -v b="$(basename "$bin")" '{d[NR]=$1; r[NR]=$2; i[NR]=$3} END {printf "%s: %d requests %d Ir, %d requests %d Ir: %.0f Ir/request\n", b, r[1], i[1], r[2], i[2], (i[2]-i[1])/(r[2]-r[1])}'
rm -f "$nd"
