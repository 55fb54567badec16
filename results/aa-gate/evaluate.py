#!/usr/bin/env python3
"""Verdicts of the runs `results/gate-measure.sh aa-gate` made (issue 25, docs/contract.md H10).

    python3 results/aa-gate/evaluate.py [PAGEBENCH]   # default: results/tmp/aa-gate/bin/pagebench

Checks, with `pagebench check` at its default thresholds (and the CI set also with
results/baselines/ci-thresholds.json, as .ci/run does), every trial's
  A/A:        B against A, for the CI set, aa-in-process and aa-target;
  regression: R (the store's evaluation 10 % dearer per page) against A, CI set and aa-in-process;
  slow:       S (the target twice as slow) against A, aa-target;
and, to show what the gate would do on wall-clock figures, the A/A pairs again with
--gate-wall-clock. Writes results/aa-gate/pairs.csv (one line per check: flagged or not, and
why), results/aa-gate/noise.csv (per metric, the largest and the 90th-percentile change of
medians over the A/A pairs: the noise floor) and prints the summary results/aa-gate.md quotes.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join(ROOT, "results", "aa-gate", "runs")
PAGEBENCH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "results", "tmp", "aa-gate", "bin", "pagebench")
CI_THRESHOLDS = os.path.join(ROOT, "results", "baselines", "ci-thresholds.json")
# The first default of instructions_per_page, before the first trials showed ±1.6 % on the
# smallest phase: the A/A pairs are checked at it too, to show what it would have flagged.
TWO_PERCENT = os.path.join(ROOT, "results", "aa-gate", "instructions-2pct.json")
SETS = {"ci": "CI scenario set", "ip": "aa-in-process (1 and 4 pagers)", "t": "aa-target (--target-file against serve)"}


def check(baseline, current, *extra):
    """The JSON report and exit status of one `pagebench check`."""
    result = subprocess.run(
        [PAGEBENCH, "check", "--baseline", baseline, "--current", current, "--format", "json", *extra],
        capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"pagebench check {baseline} {current} exited {result.returncode}: {result.stderr}")
    return json.loads(result.stdout)["report"], result.returncode


def describe(report):
    """(gated regressions, reported worse metrics, behaviour changes, failed rows) as short texts."""
    gated, reported = [], []
    for comparison in report["comparisons"]:
        group = f"{comparison['scenario']}x{comparison['concurrency']}"
        for metric in comparison["metrics"]:
            change = metric.get("relativeChange")
            text = f"{metric['metric']}@{group} {change * 100:+.1f}%" if isinstance(change, float) else f"{metric['metric']}@{group}"
            # Since issue 35 a reported metric's shift is "worse (reported)", never "regression"
            # (before, "regression" with "gated": false); both spellings are read.
            if metric["verdict"] in ("regression", "worse (reported)"):
                (gated if metric["gated"] else reported).append(text)
    changes = [f"{c['metric']}@{comparison['scenario']}x{comparison['concurrency']}"
               for comparison in report["comparisons"] for c in comparison["behaviourChanges"]]
    failed = [row for comparison in report["comparisons"] for row in comparison["failedRows"]]
    return gated, reported, changes, failed


def metric_changes(report, name):
    return [m["relativeChange"] for c in report["comparisons"] for m in c["metrics"]
            if m["metric"] == name and isinstance(m.get("relativeChange"), float)]


def trials():
    """The trials whose A/A pair and regression run are complete (r-ci and s-t are optional)."""
    found = set()
    for name in os.listdir(RUNS):
        if name.startswith("a-ci-") and name.endswith(".csv"):
            trial = int(name[len("a-ci-"):-4])
            if all(os.path.exists(os.path.join(RUNS, f"{p}-{trial}.csv")) for p in
                   ("b-ci", "b-ip", "b-t", "r-ip", "a-ip", "a-t")):
                found.add(trial)
    return sorted(found)


def main():
    rows = []
    noise = defaultdict(lambda: defaultdict(list))  # scope -> metric -> |changes|
    for trial in trials():
        path = lambda prefix: os.path.join(RUNS, f"{prefix}-{trial}.csv")
        plan = [("aa", s, path(f"a-{s}"), path(f"b-{s}"), ()) for s in ("ci", "ip", "t")]
        plan += [("aa-ci-thresholds", "ci", path("a-ci"), path("b-ci"), ("--thresholds", CI_THRESHOLDS))]
        plan += [("aa-instructions-2pct", s, path(f"a-{s}"), path(f"b-{s}"), ("--thresholds", TWO_PERCENT))
                 for s in ("ci", "ip", "t")]
        plan += [("aa-gate-wall-clock", s, path(f"a-{s}"), path(f"b-{s}"), ("--gate-wall-clock",)) for s in ("ci", "ip", "t")]
        plan += [("regression", s, path(f"a-{s}"), path(f"r-{s}"), ()) for s in ("ci", "ip")]
        plan += [("regression-ci-thresholds", "ci", path("a-ci"), path("r-ci"), ("--thresholds", CI_THRESHOLDS))]
        plan += [("slow-target", "t", path("a-t"), path("s-t"), ())]
        plan = [step for step in plan if os.path.exists(step[3])]  # r-ci, s-t: not in every trial
        for kind, scenario_set, baseline, current, extra in plan:
            report, status = check(baseline, current, *extra)
            gated, reported, changes, failed = describe(report)
            instructions = metric_changes(report, "instructions_per_page")
            pages = metric_changes(report, "pages_per_s")
            latency = metric_changes(report, "page_latency_p50_ns")
            rows.append({
                "trial": trial, "kind": kind, "set": scenario_set, "exit": status, "flagged": int(status != 0),
                "gated_regressions": "; ".join(gated) or "-", "behaviour_changes": "; ".join(changes) or "-",
                "failed_rows": len(failed), "reported_worse": len(reported),
                "instructions_change_min_pct": f"{min(instructions) * 100:.3f}" if instructions else "",
                "instructions_change_max_pct": f"{max(instructions) * 100:.3f}" if instructions else "",
                "pages_per_s_change_min_pct": f"{min(pages) * 100:.1f}" if pages else "",
                "pages_per_s_change_max_pct": f"{max(pages) * 100:.1f}" if pages else "",
                "page_latency_p50_change_max_pct": f"{max(latency) * 100:.1f}" if latency else "",
            })
            if kind == "aa":
                scope = "target" if scenario_set == "t" else "in-process"
                for comparison in report["comparisons"]:
                    for metric in comparison["metrics"]:
                        change = metric.get("relativeChange")
                        if isinstance(change, float):
                            noise[scope][metric["metric"]].append(abs(change))
    with open(os.path.join(ROOT, "results", "aa-gate", "pairs.csv"), "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(ROOT, "results", "aa-gate", "noise.csv"), "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["scope", "metric", "comparisons", "max_abs_change_pct", "p90_abs_change_pct", "median_abs_change_pct"])
        for scope in sorted(noise):
            for metric in sorted(noise[scope]):
                values = sorted(noise[scope][metric])
                p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
                writer.writerow([scope, metric, len(values), f"{values[-1] * 100:.2f}", f"{p90 * 100:.2f}",
                                 f"{statistics.median(values) * 100:.2f}"])

    count = len(trials())
    print(f"{count} trials\n")
    print("| check | set | pairs | flagged | criterion |")
    print("| --- | --- | --- | --- | --- |")
    criteria = {"aa": "≤ 1 flagged", "aa-ci-thresholds": "≤ 1 flagged (.ci/run's gate)",
                "aa-instructions-2pct": "(for comparison: instructions_per_page at 2 %)",
                "aa-gate-wall-clock": "(for comparison: wall-clock gated)", "regression": "≥ 19 caught",
                "regression-ci-thresholds": "≥ 19 caught (.ci/run's gate)", "slow-target": "caught"}
    for kind in criteria:
        for scenario_set in SETS:
            selected = [r for r in rows if r["kind"] == kind and r["set"] == scenario_set]
            if selected:
                flagged = sum(r["flagged"] for r in selected)
                print(f"| {kind} | {SETS[scenario_set]} | {len(selected)} | {flagged} | {criteria[kind]} |")
    print()
    print("Gated regressions by group (a pair may flag several groups):")
    for kind in ("aa", "regression", "slow-target"):
        groups = defaultdict(int)
        for r in rows:
            if r["kind"] == kind and r["gated_regressions"] != "-":
                for item in r["gated_regressions"].split("; "):
                    groups[item.split(" ")[0]] += 1
        for group in sorted(groups):
            print(f"  {kind:12} {group}: {groups[group]}")
    print()
    print("Noise floors by family (largest |change of medians| over the A/A pairs, for Thresholds+Gates.swift):")
    families = {"_per_s": lambda m: m.endswith("_per_s"), "cpu_": lambda m: m.startswith("cpu_"),
                "peak_": lambda m: m.startswith("peak_")}
    for suffix in ("_p50_ns", "_p90_ns", "_p99_ns", "_p999_ns", "_max_ns"):
        families[suffix] = (lambda s: lambda m: m.endswith(s) and not m.startswith(("cancel_", "watch_")))(suffix)
    for scope in sorted(noise):
        for family, matches in families.items():
            values = [v for m, vs in noise[scope].items() if matches(m) for v in vs]
            if values:
                print(f"  {scope:10} {family:10} max ±{max(values) * 100:.1f} %  ({len(values)} comparisons)")
    print()
    print("As Thresholds+Gates.swift's noise floors (largest |change| over the A/A pairs, rounded up):")
    named = ("instructions_per_page", "cpu_user_s", "cpu_system_s", "allocations", "allocations_per_page",
             "peak_allocated_bytes", "peak_rss_bytes", "harness_overhead_ratio", "measurement_overhead_ratio")
    for scope in sorted(noise):
        entries = []
        for family in ("_per_s", "_p50_ns", "_p90_ns", "_p99_ns", "_p999_ns", "_max_ns"):
            values = [v for m, vs in noise[scope].items() if families[family](m) for v in vs]
            if values:
                entries.append((family, max(values)))
        entries += [(name, max(noise[scope][name])) for name in named if noise[scope].get(name)]
        # Rounded up: to 0.1 % below 10 %, to 1 % above.
        def up(value):
            percent = value * 100
            step = 0.1 if percent < 10 else 1
            return round(-(-percent // step) * step, 1) / 100
        print(f"  {scope}: [" + ", ".join(f'"{name}": {up(value):.4g}' for name, value in entries) + "]")
    print()
    for scope in sorted(noise):
        for metric in ("instructions_per_page", "pages_per_s", "page_latency_p50_ns", "cpu_user_s", "allocations_per_page",
                       "peak_rss_bytes", "peak_allocated_bytes"):
            values = sorted(noise[scope].get(metric, []))
            if values:
                print(f"{scope:10} {metric:24} max ±{values[-1] * 100:.2f} %  p90 ±{values[int(0.9 * (len(values) - 1))] * 100:.2f} %")


if __name__ == "__main__":
    main()
