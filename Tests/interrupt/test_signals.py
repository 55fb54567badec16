"""docs/contract.md H6 from outside: SIGINT/SIGTERM to a running `pagebench run` (alone and with
--workers) keeps what was measured, marks the cut-short phase partial and exits 128 + the
signal. The process is spawned with default signal dispositions (a non-interactive shell's
background jobs would ignore SIGINT), and signalled once stderr shows the phase running:
no timing is asserted.

The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import csv
import datetime
import fcntl
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from pagebench_support import default_signals, misbehaving_api, pagebench_binary, run_until_marker


def scenario(directory, name, **workload):
    text = subprocess.run([pagebench_binary(), "run", "--print-scenarios"], check=True,
                          capture_output=True, text=True).stdout
    document = json.loads(text)
    document["name"] = name
    document["store"]["partitions"] = 8
    document["store"]["itemsPerPartition"] = 2000
    document["workload"]["warmupSeconds"] = 0
    for key in ("drains", "durationSeconds"):
        document["workload"].pop(key, None)
    document["workload"].update(workload)
    path = os.path.join(directory, name + ".json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    return path


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_keeps_the_finished_phase_and_marks_the_interrupted_one_partial(tmp_path, signum, status):
    first = scenario(tmp_path, "first", concurrency=[1], drains=3)
    endless = scenario(tmp_path, "endless", concurrency=[2], durationSeconds=3600)
    never = scenario(tmp_path, "never", concurrency=[1], drains=3)
    code, stdout, stderr = run_until_marker(
        [first, endless, never, "--output", "out.csv"], "endless ×2 rep 1: measuring",
        lambda process: process.send_signal(signum), tmp_path)
    assert code == status, stderr
    assert "interrupted by" in stderr and "1 marked partial" in stderr, stderr
    written = rows(tmp_path / "out.csv")
    assert [row["scenario"] for row in written] == ["first", "endless"]
    assert [row["partial"] for row in written] == ["0", "1"]
    assert written[0]["drains"] == "3"
    # The pagers of the interrupted phase were cancelled, and timed as cancellations (H2).
    assert written[1]["cancellations"] == "2"
    assert written[1]["cancel_latency_p99_ns"] != ""
    # Pages were answered: in drains that ended, or in the drains the signal cut off (H14; the
    # pagers stop at their next checkpoint, so no drain need have ended by then).
    assert int(written[1]["pages"]) + int(written[1]["cut_off_pages"]) > 0
    assert "endless (partial)" in stdout


def test_a_signal_stops_a_crowd_of_pagers_and_writes_its_row(tmp_path):
    # Issue 38: a crowd of pagers (3,000 here, in a debug build) stops on SIGINT like two do:
    # every pager in a drain is cancelled and timed (H2), the row is written, partial.
    crowd = scenario(tmp_path, "crowd", concurrency=[3000], durationSeconds=3600)
    code, stdout, stderr = run_until_marker(
        [crowd, "--output", "out.csv"], "crowd ×3000 rep 1: measuring",
        lambda process: process.send_signal(signal.SIGINT), tmp_path)
    assert code == 130, stderr
    assert "interrupted by SIGINT" in stderr and "1 marked partial" in stderr, stderr
    written, = rows(tmp_path / "out.csv")
    assert written["partial"] == "1" and written["concurrency"] == "3000"
    assert 0 < int(written["cancellations"]) <= 3000
    assert written["cancel_latency_p99_ns"] != ""
    assert int(written["pages"]) + int(written["cut_off_pages"]) > 0
    assert "crowd (partial)" in stdout


def test_a_signal_ends_a_staged_run_with_the_stage_in_progress_partial(tmp_path):
    # H4 with H6: a 2 s ramp, then an hour-long hold that the signal cuts short (progress
    # lines come every 5 s, so the ramp is over when the first one shows).
    staged = scenario(tmp_path, "staged", stages="2s:0-4,3600s:4", rampDown="cancel")
    with open(staged, encoding="utf-8") as handle:
        document = json.load(handle)
    del document["workload"]["concurrency"]  # the plan sets the pagers
    with open(staged, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    code, stdout, stderr = run_until_marker(
        [staged, "--output", "out.csv", "--timeseries", "series.csv"], "staged ×4 rep 1: measuring",
        lambda process: process.send_signal(signal.SIGINT), tmp_path)
    assert code == 130, stderr
    assert "interrupted by SIGINT" in stderr and "1 marked partial" in stderr, stderr
    written = rows(tmp_path / "out.csv")
    assert [row["stage"] for row in written] == ["1", "2"]
    assert [row["partial"] for row in written] == ["0", "1"]
    assert int(written[0]["pages"]) > 0 and int(written[1]["pages"]) > 0
    # The four pagers of the hold were cancelled, timed as cancellations (H2).
    assert int(written[0]["cancellations"]) + int(written[1]["cancellations"]) == 4
    assert {row["stage"] for row in rows(tmp_path / "series.csv")} == {"1", "2"}
    assert "staged stage 2 (partial)" in stdout


def test_workers_get_the_signal_and_the_parent_merges_what_they_measured(tmp_path):
    endless = scenario(tmp_path, "endless", concurrency=[2], durationSeconds=3600, repetitions=2)
    # The workers print nothing (--quiet): signal the parent once their common start is past.
    start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)
    start_text = start.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

    def after_start(process):
        time.sleep(max(0.0, (start - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) + 2)
        process.send_signal(signal.SIGTERM)

    code, stdout, stderr = run_until_marker(
        [endless, "--workers", "2", "--start-at", start_text, "--output", "merged.csv", "--shard-output", "shards"],
        "starting 2 workers", after_start, tmp_path)
    assert code == 143, stderr
    shards = [tmp_path / "shards" / f"shard-{index}-of-2.json" for index in range(2)]
    if not all(shard.exists() for shard in shards):
        # A machine too slow to have started the workers' phase two seconds after their start
        # time: they stopped before measuring, wrote nothing, and the parent says so.
        assert "interrupted before every worker had written its shard" in stderr, stderr
        assert not (tmp_path / "merged.csv").exists()
        return
    for shard in shards:
        with open(shard, encoding="utf-8") as handle:
            assert json.load(handle)["interrupted"] is True
    merged = rows(tmp_path / "merged.csv")
    assert len(merged) == 1, stderr
    assert merged[0]["partial"] == "1"
    # Each worker's pager was cancelled and timed (one of the two pagers each).
    assert merged[0]["cancellations"] == "2"
    assert "merged 2 shards" in stdout
    # No worker is left running.
    leftover = subprocess.run(["pgrep", "-f", str(tmp_path / "shards")], capture_output=True, text=True)
    assert leftover.stdout.strip() == "", leftover.stdout


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_a_knee_search_keeping_its_steps(tmp_path, signum, status):
    """H6 for `knee` (H5): the steps judged so far are written, the step in progress is cut
    short and written marked partial without a verdict, the summary says what was found."""
    tiny = scenario(tmp_path, "tiny", concurrency=[1], durationSeconds=1)

    def during_the_second_step(process):
        time.sleep(2)  # the second step runs 10 s from when the first one's line is printed
        process.send_signal(signum)

    code, stdout, stderr = run_until_marker(
        [tiny, "--slo", "drain_latency_corrected_p99_ns<100s", "--from", "5", "--pagers", "2",
         "--step-duration", "10", "--output", "knee.csv"],
        "step 1:", during_the_second_step, tmp_path, command="knee", watch="stdout")
    assert code == status, stdout + stderr
    assert "knee so far: 5 drains/s" in stdout and "interrupted" in stdout, stdout
    assert "interrupted by" in stderr and "kept 1 judged step" in stderr, stderr
    written = rows(tmp_path / "knee.csv")
    assert written[0]["partial"] == "0" and written[0]["slo_held"] == "1"
    assert float(written[0]["target_drains_per_s"]) == 5
    if len(written) == 2:
        # The second step had begun measuring: kept, marked partial, and not judged.
        assert written[1]["partial"] == "1" and written[1]["slo_held"] == ""
        assert float(written[1]["target_drains_per_s"]) == 10
        assert "cut short" in stdout and "cut short (partial)" in stderr
    else:
        assert len(written) == 1, written


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="the signal task needs a pool thread besides the blocked write")
def test_a_second_signal_exits_at_once_while_the_first_is_still_being_handled(tmp_path):
    """H6: after the first signal the run stops and writes what it measured; a second signal
    (a second or more later) exits at once with 128 + the signal, without waiting for the
    writing to end. The history file is held locked here, so the append of the finished
    phase's row waits, and only the second signal can end the run."""
    first = scenario(tmp_path, "first", concurrency=[1], drains=3)
    endless = scenario(tmp_path, "endless", concurrency=[2], durationSeconds=3600)
    history = tmp_path / "history.csv"
    held = []

    def signal_twice(process):
        handle = open(history, "a", encoding="utf-8")
        fcntl.flock(handle, fcntl.LOCK_EX)
        held.append(handle)
        process.send_signal(signal.SIGINT)
        # --output is written before the history: once it is there, the run waits for the lock.
        for _ in range(3000):
            if (tmp_path / "out.csv").exists() or process.poll() is not None:
                break
            time.sleep(0.1)
        assert process.poll() is None, "the run ended after one signal although the history was locked"
        time.sleep(1.2)  # signals within a second of the first count as the first
        process.send_signal(signal.SIGINT)

    try:
        code, stdout, stderr = run_until_marker(
            [first, endless, "--output", "out.csv", "--history", "history.csv"], "endless ×2 rep 1: measuring",
            signal_twice, tmp_path)
    finally:
        for handle in held:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
    assert code == 130, stderr
    assert "SIGINT again: exiting at once" in stderr, stderr
    # The rows written before the second signal are kept; the locked history got nothing.
    assert [row["partial"] for row in rows(tmp_path / "out.csv")] == ["0", "1"]
    assert history.read_text(encoding="utf-8") == ""


@pytest.mark.parametrize("source", ["--target-file", "--target"])
def test_a_signal_during_the_first_request_ends_the_run_at_once(tmp_path, source):
    """T5 with H6 (issue 24): SIGINT while the run's first request (the first-page check of a
    target file, `/health` of a served store) waits on a server that never answers exits 130
    at once, the request cancelled; before, it waited out timeoutSeconds and exited 69. The
    server says when the request arrived and when the client left; nothing is timed."""
    server, endpoint = misbehaving_api()
    try:
        plan = scenario(tmp_path, "plan", concurrency=[1], drains=3, read="scan")
        if source == "--target-file":
            target = tmp_path / "hang.json"
            target.write_text(json.dumps({
                "kind": "http", "endpoint": endpoint, "path": "/hang?limit=${limit}", "items": "/items",
                "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "timeoutSeconds": 120}))
            arguments = [plan, "--target-file", str(target)]
        else:
            arguments = [plan, "--target", endpoint + "/hang"]
        process = subprocess.Popen([pagebench_binary(), "run", *arguments, "--output", "out.csv"], cwd=tmp_path,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=default_signals, start_new_session=True)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(server.stdout.readline() for _ in range(2)), daemon=True)
        reader.start()
        try:
            while not lines and process.poll() is None:
                time.sleep(0.05)
            assert lines and lines[0].startswith("hanging /hang"), process.communicate(timeout=60)
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        assert process.returncode == 130, stderr
        assert "interrupted by SIGINT: no phase had begun measuring; nothing was written" in stderr, stderr
        assert not (tmp_path / "out.csv").exists()
        # The request in flight was cancelled: its connection closed.
        reader.join(timeout=60)
        assert len(lines) == 2 and lines[1].startswith("client left /hang"), lines
    finally:
        server.stdin.close()
        server.kill()
        server.wait(timeout=30)
