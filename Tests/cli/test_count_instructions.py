"""docs/contract.md H10: `run --count-instructions` runs each phase once more under valgrind's callgrind
and puts its instructions per page on the first repetition's row. The count is the process's
own: two separate runs of one build give counts a check calls unchanged (a gated metric), and
a count that moves fails the check. Needs valgrind (.ci/install-deps installs it)."""
import csv
import shutil
import subprocess

import pytest

from pagebench_support import pagebench_binary

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")

TINY = ["--partitions", "4", "--items-per-partition", "300", "--filter", "match", "--drains", "12",
        "--concurrency", "1,2", "--repetitions", "2", "--quiet", "--count-instructions"]


def run_pagebench(*arguments, timeout=600):
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, timeout=timeout)


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_rows(path, written):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(written[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(written)


def test_counts_land_on_the_first_repetition_and_repeat(tmp_path):
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    for output in (first, second):
        result = run_pagebench("run", *TINY, "--output", str(output), timeout=900)
        assert result.returncode == 0, result.stderr
    written = rows(first)
    assert [(row["concurrency"], row["repetition"]) for row in written] == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert all(float(row["instructions_per_page"]) > 0 for row in written if row["repetition"] == "1")
    assert all(row["instructions_per_page"] == "" for row in written if row["repetition"] == "2")

    check = run_pagebench("check", "--baseline", str(first), "--current", str(second), "--format", "json")
    assert check.returncode == 0, check.stdout
    assert '"gate" : "gated: process-own (instructions, callgrind' in check.stdout

    # A count 10 % higher is a regression another process cannot cause: the check fails on it.
    dearer = tmp_path / "dearer.csv"
    changed = rows(second)
    for row in changed:
        if row["instructions_per_page"]:
            row["instructions_per_page"] = repr(float(row["instructions_per_page"]) * 1.1)
    write_rows(dearer, changed)
    check = run_pagebench("check", "--baseline", str(first), "--current", str(dearer))
    assert check.returncode == 1, check.stdout
    assert "instructions_per_page" in check.stdout


def test_a_process_not_under_valgrind_refuses_the_hidden_option(tmp_path):
    result = run_pagebench("run", "--drains", "1", "--concurrency", "1", "--quiet", "--instruction-dumps",
                           str(tmp_path / "callgrind.out"), "--output", str(tmp_path / "out.csv"))
    assert result.returncode == 64
    assert "use --count-instructions" in result.stderr
