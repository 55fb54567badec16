"""Issue 12, measurement integrity: `run --exact-allocations` counts every allocation request
(jemalloc's thread caches off: pagebench re-executes itself with MALLOC_CONF=tcache:false),
and every row says how its allocations were counted (`allocation_counting`)."""
import csv
import os
import subprocess

from pagebench_support import pagebench_binary

SMALL = ["--partitions", "8", "--items-per-partition", "500", "--drains", "20", "--concurrency", "1", "--quiet"]


def run(*arguments, env=None):
    return subprocess.run([pagebench_binary(), "run", *arguments], capture_output=True, text=True, timeout=600,
                          env=env)


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def without_malloc_conf():
    env = dict(os.environ)
    env.pop("MALLOC_CONF", None)
    env.pop("PAGEBENCH_EXACT_ALLOCATIONS", None)
    return env


def test_rows_say_how_allocations_were_counted(tmp_path):
    cached = tmp_path / "cached.csv"
    result = run(*SMALL, "--output", str(cached), env=without_malloc_conf())
    assert result.returncode == 0, result.stderr
    assert [row["allocation_counting"] for row in rows(cached)] == ["cached"]

    exact = tmp_path / "exact.csv"
    result = run(*SMALL, "--repetitions", "2", "--exact-allocations", "--output", str(exact), env=without_malloc_conf())
    assert result.returncode == 0, result.stderr
    written = rows(exact)
    assert [row["allocation_counting"] for row in written] == ["exact", "exact"]
    assert all(int(row["allocations"]) > 0 for row in written)


def test_workers_count_exactly_too(tmp_path):
    merged = tmp_path / "merged.csv"
    result = run(*SMALL, "--exact-allocations", "--workers", "2", "--shard-output", str(tmp_path / "shards"),
                 "--output", str(merged), env=without_malloc_conf())
    assert result.returncode == 0, result.stderr
    assert [row["allocation_counting"] for row in rows(merged)] == ["exact"]
