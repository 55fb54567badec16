#!/usr/bin/env bash
# Measures `pagebench check` itself (issue 5): false regressions in A/A comparisons and the
# detection rate of an injected 10 % slowdown, at default thresholds. Writes figures.md and
# the raw per-trial table trials.csv next to this script.
#
#   bash results/checker/measure.sh [TRIALS] [PAGEBENCH]      # defaults: 20, .build/debug/pagebench
#
# Method (all runs of one debug build, each a separate `pagebench run` process with 5 repetitions
# per concurrency of service-time.json, one after the other):
#   same_0, then for each trial i: same_i, slow_i.
# A/A comparison i checks same_i against same_{i-1}: two runs of the same build, back to back.
# Slowdown comparison i checks slow_i against same_i; slow_i runs with the store's service time
# raised from 20 ms to 22 ms (`--service-time fixed:22ms`). Comparing neighbours keeps slow drift
# of the shared machine's load out of the comparison, as CI does when it measures the baseline
# build and the candidate on the same machine. A slowed run has another configuration hash (the
# service time is part of the configuration), so its config_hash column is set back to the
# baseline's before the check: the slowdown then looks exactly like a code change that made
# every store request 10 % slower.
set -euo pipefail
cd "$(dirname "$0")/../.."
trials=${1:-20}
pagebench=${2:-.build/debug/pagebench}
scenario=results/checker/service-time.json
work=results/tmp/checker
rm -rf "$work" && mkdir -p "$work"

# A private copy of the binary, so that rebuilding the package meanwhile cannot swap it mid-measurement.
mkdir -p "$work/bin" && cp "$pagebench" "$work/bin/pagebench" && pagebench="$work/bin/pagebench"
run() { "$pagebench" run "$scenario" --repetitions 5 --quiet --output "$1" "${@:2}"; }

# Verdict counts of one check, from its JSON: "exit regressions behaviour_changes pages_per_s_verdicts".
check() {
    local status=0
    "$pagebench" check --baseline "$2" --current "$1" --format json >"$1.json" || status=$?
    python3 - "$1.json" "$status" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))["report"]
verdicts = [m for c in report["comparisons"] for m in c["metrics"]]
regressions = [m["metric"] for m in verdicts if m["verdict"] == "regression"]
pages = "/".join(m["verdict"] for c in report["comparisons"] for m in c["metrics"] if m["metric"] == "pages_per_s")
changes = sum(len(c["behaviourChanges"]) for c in report["comparisons"])
print(sys.argv[2], len(regressions), changes, pages, "|".join(sorted(set(regressions))) or "-")
PY
}

run "$work/same-0.csv"
echo "kind,trial,exit,regressions,behaviour_changes,pages_per_s_verdicts,regressed_metrics" >"$work/trials.csv"
for trial in $(seq 1 "$trials"); do
    run "$work/same-$trial.csv"
    echo "aa,$trial,$(check "$work/same-$trial.csv" "$work/same-$((trial - 1)).csv" | tr ' ' ',')" >>"$work/trials.csv"
    run "$work/slow-$trial.raw.csv" --service-time fixed:22ms
    python3 - "$work/same-$trial.csv" "$work/slow-$trial.raw.csv" "$work/slow-$trial.csv" <<'PY'
import csv, sys
baseline = {row["scenario"]: row["config_hash"] for row in csv.DictReader(open(sys.argv[1], newline=""))}
reader = csv.DictReader(open(sys.argv[2], newline=""))
rows = list(reader)
for row in rows:
    row["config_hash"] = baseline[row["scenario"]]
with open(sys.argv[3], "w", newline="") as out:
    writer = csv.DictWriter(out, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
PY
    echo "slow,$trial,$(check "$work/slow-$trial.csv" "$work/same-$trial.csv" | tr ' ' ',')" >>"$work/trials.csv"
    echo "trial $trial done" >&2
done

cp "$work/trials.csv" results/checker/trials.csv
python3 - "$work/trials.csv" "$trials" >results/checker/figures.md <<'PY'
import csv, sys, subprocess, collections
rows = list(csv.DictReader(open(sys.argv[1])))
trials = int(sys.argv[2])
aa = [r for r in rows if r["kind"] == "aa"]
slow = [r for r in rows if r["kind"] == "slow"]
false_reg = sum(1 for r in aa if int(r["regressions"]) > 0)
aa_red = sum(1 for r in aa if r["exit"] != "0")
caught = sum(1 for r in slow if int(r["regressions"]) > 0)
caught_pages = sum(1 for r in slow if all(v == "regression" for v in r["pages_per_s_verdicts"].split("/")))
aa_metrics = collections.Counter(m for r in aa for m in r["regressed_metrics"].split("|") if m != "-")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print("# Checker calibration (`pagebench check`, default thresholds)\n")
print(f"Produced by `bash results/checker/measure.sh {trials}` at commit {commit} (debug build), on the shared 2-core machine.")
print("Scenario `results/checker/service-time.json`: fixed 20 ms service time, streaming pager, concurrency 2 and 4, 6 drains,")
print("5 repetitions per run; every run a separate `pagebench run` process; each comparison checks a run against the same-build run just before it.\n")
print("| experiment | trials | failing checks | criterion |")
print("| --- | --- | --- | --- |")
print(f"| A/A (same build, same configuration) | {len(aa)} | {false_reg} with a false regression ({aa_red} non-zero exits) | ≤ 1 |")
print(f"| 10 % slower service time (20 ms → 22 ms) | {len(slow)} | {caught} caught ({100*caught/max(len(slow),1):.0f} %); pages/s flagged in every group in {caught_pages} | ≥ 95 % |")
print()
print("Metrics behind A/A false regressions: " + (", ".join(f"`{m}` ×{n}" for m, n in aa_metrics.most_common()) or "none") + ".")
print("\nPer-trial results: `results/checker/trials.csv` (pages_per_s verdicts per group, regressed metrics).")
PY
cat results/checker/figures.md
