"""Issue 12: a write to standard output that fails (`> /dev/full`) is an error naming it,
exit 74 (EX_IOERR), for every command that prints; never a crash, never a silent exit 0."""
import os
import subprocess

import pytest

from pagebench_support import ROOT, ServedStore, pagebench_binary

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "check")


@pytest.mark.parametrize("arguments", [
    ["items", "--partition", "1"],
    ["pages", "--partition", "1", "--limit", "10"],
    ["check", "--baseline", os.path.join(FIXTURES, "baseline.csv"), "--current", os.path.join(FIXTURES, "current-same.csv")],
    ["check", "--list-thresholds"],
    ["compare", os.path.join(FIXTURES, "baseline.csv")],
    ["run", "--drains", "2", "--concurrency", "1", "--output", "{tmp}/out.csv"],
    # The knee prints each step as it ends; the summary still fails the run.
    ["knee", "--slo", "error_rate<1%", "--from", "5", "--max-rate", "5", "--step-duration", "0.2",
     "--output", "{tmp}/knee.csv"],
    # A server whose "listening on" line (the port, for --port 0) cannot be written is of no use.
    ["serve", "--port", "0", "--partitions", "2", "--items-per-partition", "10"],
    ["report", os.path.join(FIXTURES, "baseline.csv"), "--output", "{tmp}/report.html"],
    ["baseline", "update", "--name", "full", "--from", os.path.join(FIXTURES, "baseline.csv"), "--directory", "{tmp}"],
    # A shard written first (below), then merged: the summary table cannot be printed.
    ["merge", "{tmp}/shards", "--output", "{tmp}/merged.csv"],
])
def test_a_failed_write_to_standard_output_is_exit_74(tmp_path, arguments):
    arguments = [a.replace("{tmp}", str(tmp_path)) for a in arguments]
    if arguments[0] == "merge":
        subprocess.run([pagebench_binary(), "run", "--drains", "2", "--concurrency", "1", "--shard", "0/1",
                        "--shard-output", str(tmp_path / "shards"), "--quiet"], check=True, timeout=300)
    expect_exit_74(arguments)


def test_http_bench_that_cannot_print_its_line_is_exit_74():
    server = ServedStore("--partitions", "2", "--items-per-partition", "10")
    try:
        expect_exit_74(["http-bench", "--target", server.endpoint, "--connections", "1", "--duration", "0.2"])
    finally:
        server.stop()


def expect_exit_74(arguments):
    with open("/dev/full", "w") as full:
        result = subprocess.run([pagebench_binary()] + arguments, stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=300)
    assert result.returncode == 74, result.stderr
    assert "cannot write to standard output" in result.stderr, result.stderr
    assert "Fatal error" not in result.stderr
