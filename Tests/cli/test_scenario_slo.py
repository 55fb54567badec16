"""Issue 27: a scenario's `slo` list judges only the rows it can judge. A bound on a column a
row does not have (corrected drain latency of a closed-loop run) is reported as not
applicable instead of failing the run with exit 99; `--no-scenario-slo` skips the list; the
summary table shows each bounded column and the verdict."""
import json
import os
import subprocess
import tempfile

from pagebench_support import pagebench_binary


def run_scenario(slo, *flags):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "s.json")
        with open(path, "w") as f:
            json.dump({"name": "s", "store": {"partitions": 2, "itemsPerPartition": 50},
                       "workload": {"concurrency": [1], "drains": 4}, "slo": slo}, f)
        return subprocess.run([pagebench_binary(), "run", path, *flags, "--output", os.path.join(directory, "r.csv")],
                              capture_output=True, text=True, timeout=600)


def test_a_bound_on_a_column_a_closed_loop_row_lacks_is_not_applicable():
    result = run_scenario(["drain_latency_corrected_p99_ns<400ms", "error_rate<1%"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "scenario SLO drain_latency_corrected_p99_ns<400ms not applicable: 1 row has no drain_latency_corrected_p99_ns" \
        in result.stdout, result.stdout
    assert "could not be checked" not in result.stdout + result.stderr
    assert "every SLO held on every row: error_rate<0.01" in result.stdout, result.stdout
    header = next(line for line in result.stdout.splitlines() if line.startswith("configuration "))
    assert header.split()[-3:] == ["drain_latency_corrected_p99_ns", "error_rate", "slo"], header
    row = next(line for line in result.stdout.splitlines() if line.startswith("s "))
    assert row.split()[-3:] == ["-", "0", "held"], row


def test_a_bound_the_row_has_still_judges_it():
    result = run_scenario(["page_latency_p99_ns<1ns"])
    assert result.returncode == 99, result.stdout + result.stderr
    assert "SLO page_latency_p99_ns<1ns broke" in result.stderr


def test_no_scenario_slo_skips_the_list_but_not_the_flags():
    result = run_scenario(["page_latency_p99_ns<1ns"], "--no-scenario-slo")
    assert result.returncode == 0, result.stdout + result.stderr
    result = run_scenario(["page_latency_p99_ns<1ns"], "--no-scenario-slo", "--slo", "drain_latency_corrected_p99_ns<1s")
    # Asked for on the command line, a bound the row cannot meet is still a broken SLO.
    assert result.returncode == 99, result.stdout + result.stderr
    assert "could not be checked" in result.stderr
