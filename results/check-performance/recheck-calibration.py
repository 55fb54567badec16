# Re-checks the stored calibration runs (results/checker/runs.tar.gz) with one binary:
# every A/A pair (same-b-j against same-a-i, all i, j: 400 checks) and every slowdown (slow-i against same-a-i).
import json, subprocess, sys, collections
binary, runs = sys.argv[1], sys.argv[2]
def check(base, cur):
    out = subprocess.run([binary, "check", "--baseline", f"{runs}/{base}.csv", "--current", f"{runs}/{cur}.csv", "--format", "json"],
                         capture_output=True, text=True)
    report = json.loads(out.stdout)["report"]
    verdicts = [m for c in report["comparisons"] for m in c["metrics"]]
    return out.returncode, verdicts
widths = []; excluding = 0; dump = []
aa_fail = 0; aa_regressed = collections.Counter(); aa_total = 0; verdict_counts = collections.Counter()
for i in range(1, 21):
    for j in range(1, 21):
        rc, v = check(f"same-a-{i}", f"same-b-{j}")
        aa_total += 1
        reg = [m["metric"] for m in v if m["verdict"] in ("regression", "worse (reported)")]
        if reg: aa_fail += 1
        aa_regressed.update(reg)
        verdict_counts.update(m["verdict"] for m in v)
        for m in v:
            if isinstance(m.get("intervalLow"), float) and isinstance(m.get("intervalHigh"), float):
                widths.append(m["intervalHigh"] - m["intervalLow"])
                excluding += (m["intervalLow"] > 0 or m["intervalHigh"] < 0)
            dump.append((i, j, m["metric"], m["verdict"], m.get("intervalLow"), m.get("intervalHigh")))
slow_caught = 0
for i in range(1, 21):
    rc, v = check(f"same-a-{i}", f"slow-{i}")
    if any(m["verdict"] in ("regression", "worse (reported)") for m in v): slow_caught += 1
print(f"A/A checks: {aa_total}, with a false regression: {aa_fail}; regressed metrics: {dict(aa_regressed)}")
print(f"A/A verdicts: {dict(verdict_counts)}")
print(f"slowdown checks: 20, caught: {slow_caught}")
print(f"A/A intervals: {len(widths)}, mean width {sum(widths)/len(widths):.6f}, excluding no change: {excluding}")
json.dump(dump, open(sys.argv[3], "w"))
