#!/usr/bin/env bash
# Usage: breakdown.sh BINARY PAGER LABEL (OUT=dir for the perf data, default /tmp/ph). Needs perf (linux-perf).
# breakdown.sh BINARY PAGER LABEL: perf-profiles one in-process run (60 full scans, limit 10,
# one pager) and prints CPU ns per page by category.
set -euo pipefail
bin=$1 pager=$2 label=$3
mkdir -p "${OUT:-/tmp/ph}"
perf record -q -e cpu-clock -F 4999 -o ${OUT:-/tmp/ph}/perf.$label.data "$bin" run --pager "$pager" --read scan --limit 10 \
    --concurrency 1 --drains 60 --quiet --output ${OUT:-/tmp/ph}/$label.csv >/dev/null 2>&1
nspp=$(python3 -c "
import csv; r=next(csv.DictReader(open('${OUT:-/tmp/ph}/$label.csv')))
print((float(r['cpu_user_s'])+float(r['cpu_system_s']))/int(r['pages'])*1e9)")
echo "== $label: $(printf %.0f $nspp) ns CPU per page (process), $(python3 -c "
import csv; r=next(csv.DictReader(open('${OUT:-/tmp/ph}/$label.csv'))); print(round(float(r['pages_per_s'])/1e6,2))") M pages/s"
python3 "$(dirname "$0")/categorize.py" ${OUT:-/tmp/ph}/perf.$label.data | python3 -c "
import sys
for line in sys.stdin:
    parts=[p.strip() for p in line.strip().strip('|').split('|')]
    pct=float(parts[1].rstrip(' %'))
    print(f'| {parts[0]} | {pct:.1f} % | {pct*$nspp/100:.0f} ns |')"
