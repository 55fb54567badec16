#!/usr/bin/env bash
# The knee of a scenario in-process and over `pagebench serve`, against its store's theoretical
# capacity (H5, issue 15). Made for Benchmarks/Scenarios/knee/slow-store-serve.json, whose store
# saturates well below what HTTP on this 2-core machine serves, so the knee over serve measures
# the store and not the machine's HTTP ceiling (results/knee/slow-store.md: slow-store's 4706
# drains/s = 28 k requests/s is beyond it, and its serve knee came out at 0.58 of theory).
#
#   bash Benchmarks/knee/measure.sh [SCENARIO] [OUT_DIR]
#       (defaults Benchmarks/Scenarios/knee/slow-store-serve.json, results/knee)
#
# Environment: STEP_SECONDS (10) each knee step, CLOSED_SECONDS (10) each closed-loop run, FROM
# (50 drains/s) the first step, RESOLUTION (2.5%), PAGERS (the scenario's largest concurrency), MAX_STEPS (40), TIMER_US (250,
# the in-process store's service timer tick), PAGEBENCH_BIN (a binary instead of building
# .build/release/pagebench; a debug build only checks the script, its figures are no
# measurement). The SLOs are the scenario's `slo` list.
#
# Runs, in this order: a closed-loop run with PAGERS pagers in-process and over serve (every
# slot always busy: the capacity the harness reaches), then the knee in-process and over serve.
# Writes to OUT_DIR, named after the scenario NAME: NAME-inprocess.csv and NAME-serve.csv (every
# knee step), NAME-closed.csv (the two closed-loop rows), NAME-console.txt (what the knee
# searches printed) and NAME.md (theory, knees, shares, every step).
#
# Theory (the scenario's log-normal service time per page, median m, sigma s): mean page time
# m * e^(s^2/2); a drain is ceil(items / limit) pages, plus the empty exact-end page when items
# is a multiple of limit (S6); capacity = PAGERS / (pages * mean). In-process, the store's
# delays are rounded up to the next TIMER_US tick of the shared service timer
# (CoalescingSleeper), on average half a tick longer: the effective mean is mean + TIMER_US/2
# (results/knee/slow-store.md). `serve` sleeps with Task.sleep, without that tick.
set -euo pipefail
cd "$(dirname "$0")/../.."
scenario=${1:-Benchmarks/Scenarios/knee/slow-store-serve.json}
out=${2:-results/knee}
step_seconds=${STEP_SECONDS:-10}
closed_seconds=${CLOSED_SECONDS:-10}
from=${FROM:-50}
resolution=${RESOLUTION:-2.5%}
# The pager slots: the scenario's largest concurrency unless PAGERS says otherwise.
pagers=${PAGERS:-$(python3 -c 'import json, sys; print(max(json.load(open(sys.argv[1])).get("workload", {}).get("concurrency", [64])))' "$scenario")}
max_steps=${MAX_STEPS:-40}
timer_us=${TIMER_US:-250}
if [ -n "${PAGEBENCH_BIN:-}" ]; then
    bin=$PAGEBENCH_BIN
else
    swift build -c release --product pagebench >/dev/null
    bin=.build/release/pagebench
fi
name=$(python3 -c 'import json, os, sys; s = json.load(open(sys.argv[1])); print(s.get("name") or os.path.basename(sys.argv[1])[:-5])' "$scenario")
mkdir -p "$out"
work=$(mktemp -d)
log=$work/serve.log
server=""
trap '[ -z "$server" ] || { kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null; }; rm -rf "$work"' EXIT

# The served store is the scenario's store (`run --target` refuses any other).
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])).get("store", {}), open(sys.argv[2], "w"))' \
    "$scenario" "$work/store.json"
$bin serve --port 0 --config "$work/store.json" >"$log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$log" | cut -d: -f2)
[ -n "$port" ] || { echo "serve did not start: $(cat "$log")" >&2; exit 70; }
target=http://127.0.0.1:$port
context="$(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) $(nproc) cores; $bin; $(uptime | sed 's/.*load/load/')"
echo "# $context"

echo "== closed loop, $pagers pagers, ${closed_seconds}s: in-process, then over serve"
common=(--load closed --concurrency "$pagers" --duration "$closed_seconds" --repetitions 1 --quiet
    --service-timer-microseconds "$timer_us")
closed() {  # OUTPUT [RUN-ARGUMENTS…]: 99 is a result here: the scenario's SLOs bound corrected latency,
    # which a closed loop does not measure, so they cannot be checked on its row (the row is written)
    local status=0
    $bin run "$scenario" "${common[@]}" --output "$@" 2>"$work/closed.err" || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 99 ] || { cat "$work/closed.err" >&2; exit "$status"; }
}
closed "$work/closed-inprocess.csv"
closed "$work/closed-serve.csv" --target "$target"
python3 - "$work/closed-inprocess.csv" "$work/closed-serve.csv" "$out/$name-closed.csv" <<'PY'
import sys
lines = [open(path).read().splitlines() for path in sys.argv[1:3]]
open(sys.argv[3], "w").write("\n".join([lines[0][0]] + lines[0][1:] + lines[1][1:]) + "\n")
PY

knee() {  # WHERE [RUN-ARGUMENTS…]: one knee search; 0 or 99 (nothing held) are results, anything else fails
    local where=$1
    shift
    echo "== knee $where: from $from drains/s, ${step_seconds}s steps, resolution $resolution, $pagers pagers"
    local status=0
    $bin knee "$scenario" --pagers "$pagers" --from "$from" --resolution "$resolution" --step-duration "$step_seconds" \
        --max-steps "$max_steps" --output "$out/$name-$where.csv" -- --service-timer-microseconds "$timer_us" "$@" \
        | tee "$work/knee-$where.txt" || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 99 ] || { echo "knee $where failed with exit status $status" >&2; exit "$status"; }
}
knee inprocess
knee serve --target "$target"
{ echo "# $context"; echo "## in-process"; cat "$work/knee-inprocess.txt"; echo "## over serve ($target)"; cat "$work/knee-serve.txt"; } \
    >"$out/$name-console.txt"

python3 - "$scenario" "$out" "$name" "$pagers" "$timer_us" "$step_seconds" "$resolution" "$from" "$context" <<'PY'
import csv, json, math, re, sys
scenario_path, out, name, pagers, timer_us, step_seconds, resolution, start, context = sys.argv[1:]
pagers, timer_us = int(pagers), float(timer_us)
scenario = json.load(open(scenario_path))
store, workload = scenario.get("store", {}), scenario.get("workload", {})
base = store.get("serviceTime", {}).get("base", "none")
match = re.fullmatch(r"lognormal:median=([\d.]+)ms,sigma=([\d.]+)(,max=[\d.]+ms)?", base)
if not match:
    sys.exit(f"{scenario_path}: the theory here is for a log-normal service time in ms, not '{base}'")
median_ms, sigma = float(match.group(1)), float(match.group(2))
items, limit = store.get("itemsPerPartition", 10000), workload.get("limit", 10)
if not isinstance(items, int):
    sys.exit(f"{scenario_path}: the theory here is for a fixed itemsPerPartition, not {items!r}")
pages = math.ceil(items / limit) + (1 if items % limit == 0 else 0)
mean_ms = median_ms * math.exp(sigma ** 2 / 2)
effective_ms = mean_ms + timer_us / 2000
nominal = pagers / (pages * mean_ms / 1000)
effective = pagers / (pages * effective_ms / 1000)

def rows(where):
    with open(f"{out}/{name}-{where}.csv", newline="") as handle:
        return list(csv.DictReader(handle))

closed = rows("closed")
closed_rate = {("serve" if row["target_kind"] == "serve" else "inprocess"): float(row["drains_per_s"]) for row in closed}
lines = [
    f"# The knee of `{name}` in-process and over `pagebench serve`, against theory (H5)", "",
    f"{context}. Made by `bash Benchmarks/knee/measure.sh {scenario_path} {out}` (steps of {step_seconds} s "
    f"from {start} drains/s, resolution {resolution}, {pagers} pager slots; SLOs: the scenario's "
    f"{', '.join(scenario.get('slo', [])) or 'none'}; a step holds when they hold and it started at least 95 % "
    f"of the drains it offered).", "",
    "**Theory.** A drain is "
    f"{pages} pages ({items} items at limit {limit}{', plus the exact-end page of S6' if items % limit == 0 else ''}), "
    f"each a log-normal service time of median {median_ms:g} ms and σ {sigma:g}: mean {median_ms:g} ms × e^(σ²/2) = "
    f"{mean_ms:.3f} ms, {pages * mean_ms:.2f} ms a drain. {pagers} slots: **{nominal:.0f} drains/s** "
    f"({nominal * pages / 1000:.1f} k requests/s) on the nominal mean. In-process the store's delays round up to the "
    f"next {timer_us:g} µs tick of the shared service timer, {timer_us / 2:g} µs longer on average: effective mean "
    f"{effective_ms:.3f} ms, **{effective:.0f} drains/s**. `serve` sleeps without that tick: its theory is the "
    "nominal one. The closed-loop rows (every slot always busy) are the capacity the harness reaches.", "",
    "| where | closed loop (drains/s) | knee (held) | lowest that broke | steps | knee / nominal | knee / effective | knee / closed loop |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
]
steps_text = []
for where, label in (("inprocess", "in-process"), ("serve", "over `serve`")):
    steps = rows(where)
    judged = [row for row in steps if row["slo_held"] in ("0", "1")]
    held = [float(row["target_drains_per_s"]) for row in judged if row["slo_held"] == "1"]
    broke = [float(row["target_drains_per_s"]) for row in judged if row["slo_held"] == "0"]
    knee = max(held) if held else None
    lowest = min(broke) if broke else None
    ceiling = closed_rate.get(where)
    theory = effective if where == "inprocess" else nominal
    share = lambda of: f"{knee / of:.2f}" if knee and of else "-"
    lines.append(f"| {label} | {ceiling:.0f} | {f'**{knee:g}**' if knee else 'none'} | {f'{lowest:g}' if lowest else '-'} | "
                 f"{len(steps)} | {share(nominal)} | {share(theory) if where == 'inprocess' else '-'} | {share(ceiling)} |")
    steps_text += ["", f"Steps {label}:", "",
                   "| rate (drains/s) | achieved | achieved / rate | corrected p99 | missed starts | held |",
                   "| --- | --- | --- | --- | --- | --- |"]
    for row in steps:
        rate, achieved = float(row["target_drains_per_s"]), float(row["drains_per_s"])
        p99 = row["drain_latency_corrected_p99_ns"]
        steps_text.append(f"| {rate:g} | {achieved:.0f} | {achieved / rate:.3f} | "
                          f"{float(p99) / 1e6:.1f} ms | {row['missed_starts'] or '-'} | "
                          f"{ {'1': 'held', '0': 'broke'}.get(row['slo_held'], 'partial')} |" if p99 else
                          f"| {rate:g} | {achieved:.0f} | {achieved / rate:.3f} | - | - | partial |")
open(f"{out}/{name}.md", "w").write("\n".join(lines + steps_text) + "\n")
print("\n".join(lines[-4:]))
PY
echo "wrote $out/$name.md, $out/$name-inprocess.csv, $out/$name-serve.csv, $out/$name-closed.csv, $out/$name-console.txt"
