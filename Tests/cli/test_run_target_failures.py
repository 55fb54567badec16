"""Issue 12, "a failure is never a result": `pagebench run --target URL` against a
`pagebench serve` that is SIGKILLed mid-run ends with exit 69 naming the phase, and the row
that is written counts the drains that failed and the requests that got no response.

The server is killed once the run's progress shows it measuring (pages were received):
nothing here is timed. The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import csv
import re

from pagebench_support import ServedStore, run_until_marker

STORE = ["--partitions", "4", "--items-per-partition", "20000"]


def test_a_serve_killed_mid_run_is_exit_69_with_rows_that_count_the_failures(tmp_path):
    server = ServedStore(*STORE)

    def kill_the_server(_):
        server.process.kill()
        server.process.wait(timeout=30)

    try:
        # 2000 pages a drain: alive, the server would take minutes over 400 drains; dead, the
        # drains left fail within their retries.
        code, _, stderr = run_until_marker(
            [*STORE, "--target", server.endpoint, "--concurrency", "2", "--drains", "400", "--limit", "10",
             "--filter", "none", "--output", "out.csv"], "measuring", kill_the_server, tmp_path)
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert code == 69, stderr
    assert "stopped answering in phase default@http" in stderr, stderr
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    row = rows[0]
    assert int(row["pages"]) > 0
    failed = sum(int(row[name]) for name in row if name.startswith("errors_"))
    assert failed > 0, row
    # The requests to the dead server are counted as what they were: answered by no one.
    unanswered = re.search(r"transport=(\d+)", row["http_responses"])
    assert unanswered and int(unanswered.group(1)) > 0, row["http_responses"]


def test_more_pagers_than_file_descriptors_against_a_target_are_refused_naming_the_limit(tmp_path):
    # Issue 38: a pager has its own connection to a remote target, and a connection is a
    # descriptor. Below the hard limit `run` raises its soft limit; beyond it, exit 64 up
    # front, naming the limit and the fix, before any connection is made.
    import resource
    import subprocess
    from pagebench_support import pagebench_binary

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 1024))

    def run_with(*arguments):
        return subprocess.run([pagebench_binary(), "run", "--warmup", "0", "--drains", "1", "--output",
                               str(tmp_path / "out.csv"), *arguments], capture_output=True, text=True, timeout=120,
                              preexec_fn=low_limit)

    refused = run_with("--target", "http://127.0.0.1:9", "--concurrency", "5000")
    assert refused.returncode == 64, refused.stderr[-500:]
    assert "need 5064 file descriptors" in refused.stderr and "may open 1024" in refused.stderr, refused.stderr
    assert "ulimit -Hn" in refused.stderr and "--concurrency 960" in refused.stderr, refused.stderr
    # 900 pagers need 964: the soft limit (256) is raised to that, and the run gets as far
    # as the target, which is not there (69).
    raised = run_with("--target", "http://127.0.0.1:9", "--concurrency", "900")
    assert raised.returncode == 69, raised.stderr[-500:]
    assert "file descriptors" not in raised.stderr
