#!/usr/bin/env python3
"""Verdicts of the runs `results/gate-measure.sh gate-power` made (issue 35, docs/gate.md).

    python3 results/gate-power/evaluate.py PAGEBENCH [TAG ...]   # default tag: run

For every trial of each TAG, `pagebench check` at its defaults (no thresholds file) judges
  A/A:  B against A (same build, same 4 ms target, minutes apart);
  1.3x: S13 (the target at 5.2 ms a page) against A;
  2x:   S2 (8 ms a page) against A;
with the runs' first 5 repetitions a side (what `run --repetitions 5` gives) and with all of
them (10). A pair is flagged when the check exits 1. Writes results/gate-power/pairs-TAGS.csv (one
line per check: exit, and for each gated target latency, page_latency_min_ns and
page_latency_p50_ns, its verdict, change of medians, interval and rank-test p) and prints
the summary results/gate-power.md quotes (also written to summary-TAGS.txt; TAGS joined by +): how many pairs were
flagged, and the range of each gated figure's change of medians per kind of pair.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
PAGEBENCH = sys.argv[1]
TAGS = sys.argv[2:] or ["run"]
SUFFIX = "-" + "+".join(TAGS)  # d: the debug batch, r: the release batch
GATED = ["page_latency_min_ns", "page_latency_p50_ns"]  # what check gates on a remote target's rows


def truncated(path, repetitions, directory):
    """A copy of the CSV at `path` with only its first `repetitions` repetitions."""
    with open(path, newline="") as source:
        rows = list(csv.reader(source))
    header = rows[0]
    if "page_latency_min_ns" in header and "page_latency_histogram" not in header:
        # Recorded by this branch before it merged main's schema 7 (page_latency_histogram): its
        # schema 7 was main's 6 plus page_latency_min_ns and page_latency_p10_ns, which is schema 8
        # with the histogram cell empty (as pagebench writes it without per-page timing). No
        # measured figure changes.
        at = header.index("page_latency_min_ns")
        version = header.index("schema_version")
        rows = [row[:at] + (["page_latency_histogram"] if index == 0 else [""]) + row[at:]
                for index, row in enumerate(rows)]
        for row in rows[1:]:
            row[version] = "8"
        header = rows[0]
    column = header.index("repetition")
    out = os.path.join(directory, f"{repetitions}-{os.path.basename(path)}")
    with open(out, "w", newline="") as target:
        writer = csv.writer(target, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(row for row in rows[1:] if int(row[column]) <= repetitions)
    return out


def check(baseline, current):
    result = subprocess.run(
        [PAGEBENCH, "check", "--baseline", baseline, "--current", current, "--format", "json"],
        capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"pagebench check {baseline} {current} exited {result.returncode}: {result.stderr}")
    document = json.loads(result.stdout)
    metrics = {name: next(m for c in document["report"]["comparisons"] for m in c["metrics"] if m["metric"] == name)
               for name in GATED}
    others = [f"{m['metric']} {m['verdict']}" for c in document["report"]["comparisons"] for m in c["metrics"]
              if m["verdict"] == "regression" and m["metric"] not in GATED]
    others += [f"{b['metric']} behaviour change" for c in document["report"]["comparisons"] for b in c["behaviourChanges"]]
    return result.returncode, metrics, others


def main():
    # The tree the checker was built from, before this script rewrites its outputs.
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    lines = []
    summary = {}
    with tempfile.TemporaryDirectory() as directory:
        for tag in TAGS:
            trials = sorted({int(name.rsplit("-", 1)[1][:-4]) for name in os.listdir(RUNS)
                             if name.startswith(f"{tag}-a-") and name.endswith(".csv")})
            for trial in trials:
                paths = {side: os.path.join(RUNS, f"{tag}-{side}-{trial}.csv") for side in ("a", "b", "s13", "s2")}
                if not all(os.path.exists(p) for p in paths.values()):
                    continue
                for repetitions in (5, 10):
                    cut = {side: truncated(path, repetitions, directory) for side, path in paths.items()}
                    for kind, current in (("A/A", "b"), ("1.3x", "s13"), ("2x", "s2")):
                        status, metrics, others = check(cut["a"], cut[current])
                        def fmt(value):
                            return "" if value is None or isinstance(value, str) else f"{value * 100:+.1f}"
                        line = {"tag": tag, "trial": trial, "repetitions": repetitions, "pair": kind, "flagged": status}
                        for name, metric in metrics.items():
                            short = name.split("_")[2]  # min, p50
                            line[f"{short}_verdict"] = metric["verdict"]
                            line[f"{short}_change_pct"] = fmt(metric.get("relativeChange"))
                            line[f"{short}_interval_pct"] = f"{fmt(metric.get('intervalLow'))} … {fmt(metric.get('intervalHigh'))}"
                            line[f"{short}_p"] = f"{metric['rankTestP']:.3g}" if isinstance(metric.get("rankTestP"), float) else ""
                        line["other_failures"] = "; ".join(others)
                        lines.append(line)
                        key = (repetitions, kind)
                        flagged, total = summary.get(key, (0, 0))
                        summary[key] = (flagged + (status == 1), total + 1)
    with open(os.path.join(HERE, f"pairs{SUFFIX}.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(lines[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(lines)
    goals = {"A/A": "≤ 1 in 20", "1.3x": "≥ 19 in 20", "2x": "all"}
    text = io.StringIO()
    for (repetitions, kind), (flagged, total) in sorted(summary.items()):
        text.write(f"{repetitions} repetitions a side, {kind}: flagged {flagged} of {total} (goal {goals[kind]})\n")
    # The rule before issue 35, from the same verdict figures: only the median gated, at +50 %, and
    # only with the interval excluding no change and the rank test's p < 0.01 (no other gated
    # figure failed any pair here; other_failures is empty on every line).
    def old_rule(line):
        low = line["p50_interval_pct"].split(" … ")[0]
        return (float(line["p50_change_pct"]) > 50 and low and float(low) > 0
                and line["p50_p"] and float(line["p50_p"]) < 0.01)
    for repetitions in (5, 10):
        for kind in ("A/A", "1.3x", "2x"):
            chosen = [line for line in lines if line["repetitions"] == repetitions and line["pair"] == kind]
            text.write(f"{repetitions} repetitions a side, {kind}: the rule before issue 35 (median only, +50 %, "
                       f"rank test) would have flagged {sum(map(old_rule, chosen))} of {len(chosen)}\n")
    # Per pair kind: the range of the gated figures' changes of medians (the A/A range is the noise floor).
    for repetitions in (5, 10):
        for kind in ("A/A", "1.3x", "2x"):
            for short in ("min", "p50"):
                values = [float(line[f"{short}_change_pct"]) for line in lines
                          if line["repetitions"] == repetitions and line["pair"] == kind and line[f"{short}_change_pct"]]
                if values:
                    text.write(f"{repetitions} repetitions, {kind}, page_latency_{short}_ns change of medians: "
                               f"{min(values):+.1f} % … {max(values):+.1f} % (median {statistics.median(values):+.1f} %)\n")
    # The machine's 1-minute load average at the start of each run of these tags (log.txt).
    loads = []
    with open(os.path.join(RUNS, "log.txt")) as log:
        for entry in log:
            fields = entry.split()
            if len(fields) >= 7 and fields[5] == "start" and any(fields[6].startswith(f"{tag}-") for tag in TAGS):
                loads.append(float(fields[2]))
    if loads:
        text.write(f"1-minute load average at the runs' starts: {min(loads):.1f} … {max(loads):.1f} "
                   f"(median {statistics.median(loads):.1f}, {len(loads)} runs) on 2 cores\n")
    sys.stdout.write(text.getvalue())
    with open(os.path.join(HERE, f"summary{SUFFIX}.txt"), "w") as out:
        out.write(f"pagebench check at its defaults ({os.path.basename(PAGEBENCH)} built from {commit}), tags {', '.join(TAGS)}\n")
        out.write(text.getvalue())


if __name__ == "__main__":
    main()
