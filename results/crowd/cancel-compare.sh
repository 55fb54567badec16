#!/usr/bin/env bash
# Issue 38, third session: the cancellation probe at 10,000 pagers (measure.sh's `cancel`
# probe command), binaries side by side, interleaved. Usage, from the repository root:
#   bash results/crowd/cancel-compare.sh ROUNDS LABEL=BINARY [LABEL=BINARY...]
# Each round runs every binary on the default store (1,001-page drains) and on 2,000-item
# partitions (201-page drains: every pager finishes drains within the 5 s phase). Writes
# results/crowd/cancel-compare/LABEL-CONFIG-N.csv and prints one line a run, load beside it.
set -euo pipefail
out=results/crowd/cancel-compare
rounds=$1; shift
for round in $(seq 1 "$rounds"); do
  for config in default ipp2000; do
    extra=(); [[ $config == ipp2000 ]] && extra=(--items-per-partition 2000)
    for pair in "$@"; do
      label=${pair%%=*}; bin=${pair#*=}
      f=$out/$label-$config-$round.csv
      before=$(cut -d' ' -f1-3 /proc/loadavg)
      "$bin" run --concurrency 10000 --duration 5 --warmup 0 --cancel-fraction 0.05 --no-cancel-at-end \
        "${extra[@]}" --quiet --output "$f" >/dev/null
      python3 - "$f" "$label" "$config" "$before" <<'PY'
import csv, sys
f, label, config, before = sys.argv[1:]
r = next(csv.DictReader(open(f)))
print(f"{label:5s} {config:8s} load {before} | drains {r['drains']:>6s} cancellations {r['cancellations']:>5s} "
      f"cancel p50 {int(r['cancel_latency_p50_ns']):,} p90 {int(r['cancel_latency_p90_ns']):,} "
      f"p99 {int(r['cancel_latency_p99_ns']):,} max {int(r['cancel_latency_max_ns']):,} ns | "
      f"pages/s {float(r['pages_per_s']):,.0f}")
PY
    done
  done
done
