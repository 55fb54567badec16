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
