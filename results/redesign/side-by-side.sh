#!/usr/bin/env bash
# Issue 28's "not lower than before", measured side by side: the harness overhead ratio (and
# pages/s) of an in-process run, and each served protocol's requests/s, for two release builds,
# interleaved so that the machine's noise hits both alike.
#
#   bash results/redesign/side-by-side.sh OLD_PAGEBENCH NEW_PAGEBENCH [REPS] [OUT]
#
# Part 1: REPS × (old, new) × (loop, streaming) of
#   pagebench run --pager P --read scan --limit 10 --concurrency 1 --drains 30 --measure-overhead
# printing harness_overhead_ratio and pages_per_s per run and their medians.
# Part 2: Benchmarks/wrk/protocols.sh (wrk against `serve`: REST, DynamoDB, GraphQL compiled and
# GraphQLSwift), alternately with each binary, 2 rounds of 3 s per call, REPS calls each.
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") reps=${3:-5} out=${4:-$(mktemp -d)}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) old $old new $new; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq "$reps"); do
    for pager in loop streaming; do
        for way in old new; do
            bin=$old; [ $way = new ] && bin=$new
            "$bin" run --pager $pager --read scan --limit 10 --concurrency 1 --drains 30 --measure-overhead --quiet \
                --output "$out/$way-$pager-$rep.csv" > /dev/null
            python3 - "$out/$way-$pager-$rep.csv" "$way" "$pager" "$rep" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
print(f"overhead {sys.argv[3]:9} {sys.argv[2]} rep {sys.argv[4]}: harness_overhead_ratio {float(row['harness_overhead_ratio']):.3f}"
      f"  pages/s {float(row['pages_per_s']):.0f}  load {open('/proc/loadavg').read().split()[0]}")
PY
        done
    done
done
python3 - "$out" <<'PY'
import csv, glob, os, statistics, sys
for pager in ("loop", "streaming"):
    figures = {}
    for way in ("old", "new"):
        rows = [next(csv.DictReader(open(p))) for p in sorted(glob.glob(os.path.join(sys.argv[1], f"{way}-{pager}-*.csv")))]
        figures[way] = (statistics.median(float(r["harness_overhead_ratio"]) for r in rows),
                        statistics.median(float(r["pages_per_s"]) for r in rows))
    print(f"median {pager:9} harness_overhead_ratio old {figures['old'][0]:.3f} new {figures['new'][0]:.3f}"
          f" (new/old {figures['new'][0] / figures['old'][0]:.3f}, lower is better);"
          f" pages/s old {figures['old'][1]:.0f} new {figures['new'][1]:.0f} (new/old {figures['new'][1] / figures['old'][1]:.3f})")
PY
for rep in $(seq "$reps"); do
    for way in old new; do
        bin=$old; [ $way = new ] && bin=$new
        echo "-- protocols, $way, call $rep"
        PAGEBENCH_BIN=$bin bash Benchmarks/wrk/protocols.sh 8 10 2 3 | tee "$out/protocols-$way-$rep.txt" | grep -E "^median"
    done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
