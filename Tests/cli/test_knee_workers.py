"""H5 with scale-out: every knee step can be a sharded phase (--workers N after `--`), merged
before the SLO is judged. Run with the built binary, since workers are copies of it."""
import csv
import subprocess

from pagebench_support import ROOT, pagebench_binary


def test_knee_steps_run_on_workers_and_are_judged_merged(tmp_path):
    output = tmp_path / "knee.csv"
    result = subprocess.run(
        [pagebench_binary(), "knee", f"{ROOT}/Benchmarks/Scenarios/slow-store.json",
         "--slo", "drain_latency_corrected_p99_ns<1s", "--pagers", "4", "--step-duration", "0.5",
         "--from", "50", "--max-rate", "100", "--output", str(output),
         # On the SLO alone: on a busy machine a step of 25 drains can end before its last one started (4 %).
         "--min-achieved", "0",
         "--", "--cancel-fraction", "0", "--workers", "2"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "knee: at least 100 drains/s" in result.stdout
    with open(output, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [float(row["target_drains_per_s"]) for row in rows] == [50, 100]
    assert all(row["slo_held"] == "1" for row in rows)
    # The steps were merged from the two workers' shards (the last step's are still there).
    shards = sorted(p.name for p in (tmp_path / "results" / "shards").glob("shard-*-of-2.json"))
    assert shards == ["shard-0-of-2.json", "shard-1-of-2.json"], shards
