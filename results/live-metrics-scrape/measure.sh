#!/usr/bin/env bash
# Interleaved: the same run without live metrics (plain), with --timeseries (timeseries),
# with --metrics-listen and nobody scraping (listen), and with a scraper fetching /metrics
# every second (scraped), REPS times.
# Usage: measure.sh PAGEBENCH_BINARY OUT_DIR [REPS] [PORT]
set -uo pipefail
bin=$1 out=$2 reps=${3:-5} port=${4:-19470}
mkdir -p "$out"
run=(run --pager loop --read scan --limit 10 --concurrency 2 --duration 5s --warmup 1s --quiet)
echo "start: $(date -u +%FT%TZ) $(uptime)"
for rep in $(seq 1 "$reps"); do
    echo "-- repetition $rep: $(uptime | sed 's/.*load/load/')"
    "$bin" "${run[@]}" --output "$out/plain-$rep.csv" >/dev/null 2>&1
    "$bin" "${run[@]}" --timeseries "$out/timeseries-$rep-series.csv" --output "$out/timeseries-$rep.csv" >/dev/null 2>&1
    "$bin" "${run[@]}" --metrics-listen "127.0.0.1:$port" --output "$out/listen-$rep.csv" >/dev/null 2>&1
    "$bin" "${run[@]}" --metrics-listen "127.0.0.1:$port" --output "$out/scraped-$rep.csv" >/dev/null 2>&1 &
    pid=$!
    scrapes=0
    while kill -0 "$pid" 2>/dev/null; do
        curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && scrapes=$((scrapes + 1))
        sleep 1
    done
    wait "$pid"
    echo "scraped-$rep: $scrapes scrapes answered"
done
echo "end: $(date -u +%FT%TZ) $(uptime)"
