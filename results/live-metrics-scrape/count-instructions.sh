#!/usr/bin/env bash
# Callgrind instruction counts per page of one measured phase: plain, --timeseries,
# --metrics-listen (nobody scraping), --metrics-listen with a scraper every second.
set -uo pipefail
bin=$1 out=$2 port=${3:-19473}
mkdir -p "$out"
objcopy --strip-debug "$bin" "$out/pagebench-stripped"
common=(run --pager loop --read scan --limit 10 --concurrency 1 --drains 30 --warmup 0 --repetitions 1 --quiet)
count() {
    local name=$1; shift
    taskset -c 0 valgrind --tool=callgrind --fair-sched=yes --instr-atstart=no --callgrind-out-file="$out/$name.out" \
        --log-file="$out/$name.log" "$out/pagebench-stripped" "${common[@]}" --output "$out/$name.csv" \
        --instruction-dumps "$out/$name.out" "$@"
}
echo "start: $(date -u +%FT%TZ) $(uptime)"
count plain
count timeseries --timeseries "$out/timeseries-series.csv"
count listen --metrics-listen "127.0.0.1:$port"
count scraped --metrics-listen "127.0.0.1:$port" &
pid=$!
scrapes=0
while kill -0 "$pid" 2>/dev/null; do
    curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && scrapes=$((scrapes + 1))
    sleep 1
done
wait "$pid"
echo "scraped: $scrapes scrapes answered"
echo "end: $(date -u +%FT%TZ) $(uptime)"
for name in plain timeseries listen scraped; do
    python3 -c "import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(sys.argv[2], r['pages'], r['instructions_per_page'], r['duration_s'])" "$out/$name.csv" "$name"
done
