#!/usr/bin/env bash
# Memory of `pagebench serve` after a connection storm (issue 12, "the server under abuse"):
# RSS before, the peak (VmHWM) and RSS right after `http-bench` opens CONNECTIONS connections
# for SECONDS, then every 5 s for SETTLE seconds while the server is idle. `serve` runs
# jemalloc with background purging (ServeCommand), so its RSS should fall back towards where
# it started; before that it stayed at 120-474 MB after peaking at 553 MB (the issue).
#
#   bash Benchmarks/serve-memory/measure.sh [CONNECTIONS [SECONDS [SETTLE]]]   (defaults 4000 3 40)
#
# PAGEBENCH_BIN=path runs that binary instead of .build/release/pagebench (built if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-4000} seconds=${2:-3} settle=${3:-40}
bin=${PAGEBENCH_BIN:-.build/release/pagebench}
[ -x "$bin" ] || swift build -c release --product pagebench >/dev/null
log=$(mktemp)
"$bin" serve --port 0 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
rss() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
peak() { awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; $bin; $(uptime | sed 's/.*load/load/')"
sleep 1
echo "before: RSS $(rss) MB"
"$bin" http-bench --target "http://127.0.0.1:$port" --connections "$connections" --duration "$seconds" --limit 10 \
    | sed 's/^/http-bench: /'
echo "after the storm ($connections connections, ${seconds}s): RSS $(rss) MB, peak $(peak) MB"
for t in $(seq 5 5 "$settle"); do
    sleep 5
    echo "idle ${t}s: RSS $(rss) MB"
done
