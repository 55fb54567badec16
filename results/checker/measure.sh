#!/usr/bin/env bash
# Measures `pagebench check` itself (issue 5): false regressions in A/A comparisons and the
# detection rate of an injected 10 % slowdown, at default thresholds. Writes figures.md and
# the raw per-trial table trials.csv next to this script.
#
#   bash results/checker/measure.sh [TRIALS] [PAGEBENCH]      # defaults: 20, .build/debug/pagebench
#
# Method (all runs of one debug build of service-time.json, each repetition a separate
# `pagebench run --repetitions 1` process). Each trial runs three streams interleaved,
# A B S A B S … five times: A and B are the same build and configuration, S has the store's
# service time raised from 20 ms to 22 ms (`--service-time fixed:22ms`). The five runs of each
# stream form one results file (repetitions 1…5). A/A comparison: B checked against A.
# Slowdown comparison: S checked against A. Interleaving spreads the shared machine's changing
# load evenly over the streams, as one should when measuring a baseline build against a
# candidate on the same machine (the earlier passes in first-pass/ and second-pass/ ran each
# stream's 5 repetitions in one process, back to back, and show what load drift does).
# A slowed run has another configuration hash (the service time is part of the
# configuration), so its config_hash column is set back to A's before the check: the slowdown
# then looks exactly like a code change that made every store request 10 % slower.
set -euo pipefail
cd "$(dirname "$0")/../.."
trials=${1:-20}
pagebench=${2:-.build/debug/pagebench}
scenario=results/checker/service-time.json
work=results/tmp/checker
rm -rf "$work" && mkdir -p "$work"

# A private copy of the binary, so that rebuilding the package meanwhile cannot swap it mid-measurement.
mkdir -p "$work/bin" && cp "$pagebench" "$work/bin/pagebench" && pagebench="$work/bin/pagebench"

# Verdict counts of one check, from its JSON: "exit regressions behaviour_changes pages_per_s_verdicts".
check() {
    local status=0
    "$pagebench" check --baseline "$2" --current "$1" --format json >"$1.json" || status=$?
    python3 - "$1.json" "$status" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))["report"]
verdicts = [m for c in report["comparisons"] for m in c["metrics"]]
regressions = [m["metric"] for m in verdicts if m["verdict"] in ("regression", "worse (reported)")]
pages = "/".join(m["verdict"] for c in report["comparisons"] for m in c["metrics"] if m["metric"] == "pages_per_s")
changes = sum(len(c["behaviourChanges"]) for c in report["comparisons"])
print(sys.argv[2], len(regressions), changes, pages, "|".join(sorted(set(regressions))) or "-")
PY
}

# Concatenates single-repetition result files, numbering repetitions 1…n per concurrency, and
# optionally copying config_hash from a reference file.
merge() {
    python3 - "$@" <<'PY'
import csv, sys
out, reference, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
hashes = {}
if reference != "-":
    hashes = {row["scenario"]: row["config_hash"] for row in csv.DictReader(open(reference, newline=""))}
rows, fields, seen = [], None, {}
for path in inputs:
    reader = csv.DictReader(open(path, newline=""))
    fields = reader.fieldnames
    for row in reader:
        key = (row["scenario"], row["concurrency"])
        seen[key] = seen.get(key, 0) + 1
        row["repetition"] = str(seen[key])
        if hashes:
            row["config_hash"] = hashes[row["scenario"]]
        rows.append(row)
with open(out, "w", newline="") as handle:
    writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
PY
}

echo "kind,trial,exit,regressions,behaviour_changes,pages_per_s_verdicts,regressed_metrics" >"$work/trials.csv"
for trial in $(seq 1 "$trials"); do
    for repetition in 1 2 3 4 5; do
        "$pagebench" run "$scenario" --repetitions 1 --quiet --output "$work/a-$trial-$repetition.csv"
        "$pagebench" run "$scenario" --repetitions 1 --quiet --output "$work/b-$trial-$repetition.csv"
        "$pagebench" run "$scenario" --repetitions 1 --quiet --output "$work/s-$trial-$repetition.csv" --service-time fixed:22ms
    done
    merge "$work/same-a-$trial.csv" - "$work"/a-"$trial"-?.csv
    merge "$work/same-b-$trial.csv" - "$work"/b-"$trial"-?.csv
    merge "$work/slow-$trial.csv" "$work/same-a-$trial.csv" "$work"/s-"$trial"-?.csv
    rm -f "$work"/[abs]-"$trial"-?.csv
    echo "aa,$trial,$(check "$work/same-b-$trial.csv" "$work/same-a-$trial.csv" | tr ' ' ',')" >>"$work/trials.csv"
    echo "slow,$trial,$(check "$work/slow-$trial.csv" "$work/same-a-$trial.csv" | tr ' ' ',')" >>"$work/trials.csv"
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
caught_pages = sum(1 for r in slow if all(v in ("regression", "worse (reported)") for v in r["pages_per_s_verdicts"].split("/")))
aa_metrics = collections.Counter(m for r in aa for m in r["regressed_metrics"].split("|") if m != "-")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print("# Checker calibration (`pagebench check`, default thresholds)\n")
print(f"Produced by `bash results/checker/measure.sh {trials}` at commit {commit} (debug build), on the shared 2-core machine.")
print("Scenario `results/checker/service-time.json`: fixed 20 ms service time, streaming pager, concurrency 2 and 4, 6 drains,")
print("5 repetitions per stream, each a separate `pagebench run` process, streams A (same build), B (same build) and S (10 % slower store) interleaved A B S × 5; A/A checks B against A, the slowdown S against A.\n")
print("| experiment | trials | failing checks | criterion |")
print("| --- | --- | --- | --- |")
print(f"| A/A (same build, same configuration) | {len(aa)} | {false_reg} with a false regression ({aa_red} non-zero exits) | ≤ 1 |")
print(f"| 10 % slower service time (20 ms → 22 ms) | {len(slow)} | {caught} caught ({100*caught/max(len(slow),1):.0f} %); pages/s flagged in every group in {caught_pages} | ≥ 95 % |")
print()
print("Metrics behind A/A false regressions: " + (", ".join(f"`{m}` ×{n}" for m, n in aa_metrics.most_common()) or "none") + ".")
print(f"Load average when it finished: {' '.join(open('/proc/loadavg').read().split()[:3])} (other engineers build on the same 2 cores).")
print("\nPer-trial results: `results/checker/trials.csv` (pages_per_s verdicts per group, regressed metrics).")
PY
cat results/checker/figures.md
