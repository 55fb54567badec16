"""Issue 12, `pagebench http-bench`: errors are counted as errors and end the run with the
documented exit 69 (a 404, a server that dies part way), the duration holds with many
connections, and more connections than the process may open descriptors for are refused
before anything connects.

Nothing here asserts a wall-clock time: the servers say when they have answered, and each
subprocess has only a generous time limit against a hang. The binary is $PAGEBENCH_BIN,
else `swift build --show-bin-path`/pagebench.
"""
import json
import resource
import signal
import subprocess

from pagebench_support import ServedStore, misbehaving_api, pagebench_binary, rest_target

# A JSON API that misbehaves on purpose; its /pages/ answers empty pages in `pagebench
# serve`'s body format forever and says on stdout when it has answered 20.


def http_bench(*arguments, limits=None):
    def preexec():
        if limits:
            resource.setrlimit(resource.RLIMIT_NOFILE, limits)
    return subprocess.run([pagebench_binary(), "http-bench", *arguments], capture_output=True, text=True,
                          timeout=300, preexec_fn=preexec)


def summary(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_404_ends_the_run_at_once_with_exit_69():
    server = ServedStore("--partitions", "2", "--items-per-partition", "10")
    try:
        result = http_bench("--target", server.endpoint + "/no-such-prefix", "--connections", "2", "--duration", "3600")
    finally:
        server.stop()
    assert result.returncode == 69, result.stderr
    assert "non-retryable failure ended the run" in result.stderr and "404" in result.stderr, result.stderr
    line = summary(result)
    assert line["failures"] >= 1 and line["pages"] == 0
    assert line["statusCounts"] == {"404": line["requests"]}, line


def test_a_server_that_dies_mid_run_ends_it_with_exit_69():
    server, endpoint = misbehaving_api()
    try:
        bench = subprocess.Popen([pagebench_binary(), "http-bench", "--target", endpoint + "/pages", "--connections",
                                  "2", "--duration", "3600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout.readline().strip() == "served 20"
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=30)
            stdout, stderr = bench.communicate(timeout=300)
        finally:
            if bench.poll() is None:
                bench.kill()
    finally:
        if server.poll() is None:
            server.kill()
    assert bench.returncode == 69, stderr
    assert "stopped answering" in stderr, stderr
    line = json.loads(stdout.strip().splitlines()[-1])
    # The answers before it died are counted; the requests after it are not requests.
    assert line["pages"] > 0 and line["requests"] == line["pages"], line
    assert line["unanswered"] >= 6, line


def test_many_connections_for_a_short_duration_end_and_count_only_the_window():
    server = ServedStore("--partitions", "2", "--items-per-partition", "100")
    try:
        # One page per drain (--limit past the store's 200 items): a page received is a drain
        # completed, and a run without one is exit 69 (issue 39).
        result = http_bench("--target", server.endpoint, "--connections", "1000", "--duration", "2", "--limit", "1000")
    finally:
        server.stop()
    if result.returncode == 69:
        # A server too loaded to answer any of them within the duration: said so, no line.
        assert "no page received" in result.stderr, result.stderr
        return
    assert result.returncode == 0, result.stderr
    line = summary(result)
    # The figures cover the duration, never the connecting and closing around it.
    assert line["seconds"] <= 2.0, line
    assert line["requests"] > 0 and line["pages"] == line["requests"], line


def test_more_connections_than_file_descriptors_are_refused_before_connecting():
    # Port 9 on loopback: nothing listens; the refusal comes before any connection is tried.
    result = http_bench("--target", "http://127.0.0.1:9", "--connections", "1000", "--duration", "1",
                        limits=(256, 256))
    assert result.returncode == 64, result.stderr
    assert "--connections 1000 needs" in result.stderr and "file descriptors" in result.stderr, result.stderr
    assert "ulimit -n" in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_soft_descriptor_limit_below_the_hard_one_is_raised():
    # The soft limit (256) is raised to what 1000 connections need (the hard limit allows it):
    # the run goes on, and ends as a run against a dead port does.
    result = http_bench("--target", "http://127.0.0.1:9", "--connections", "1000", "--duration", "60",
                        limits=(256, 4096))
    assert "file descriptors" not in result.stderr, result.stderr
    assert result.returncode == 69, result.stderr
    assert "stopped answering" in result.stderr, result.stderr


def test_a_target_file_is_drained_by_the_same_loop(tmp_path):
    """Issue 28: `http-bench --target-file` drains any target kind with the loop of `--target`."""
    server = ServedStore("--partitions", "16", "--items-per-partition", "50")
    try:
        path = rest_target(tmp_path, server.endpoint)
        result = http_bench("--target-file", path, "--partition", "3", "--limit", "10", "--connections", "2",
                            "--duration", "2")
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr
    line = summary(result)
    assert line["target"] == server.endpoint and line["targetFile"] == path, line
    assert line["pages"] > 0 and line["drains"] > 0 and line["requests"] == line["pages"], line
    assert line["failures"] == 0 and line["unanswered"] == 0 and line["retries"] == 0, line
    assert line["throttles"] == 0 and line["targetErrors"] == {}, line
    assert set(line["statusCounts"]) == {"200"}, line


def test_a_target_files_non_page_answer_is_counted_by_kind_and_ends_the_run(tmp_path):
    server = ServedStore("--partitions", "16", "--items-per-partition", "50")
    try:
        path = rest_target(tmp_path, server.endpoint, path="/no-such/${partition}?limit=${limit}")
        result = http_bench("--target-file", path, "--partition", "3", "--limit", "10", "--connections", "2",
                            "--duration", "3600")
    finally:
        server.stop()
    assert result.returncode == 69, result.stderr
    assert "non-retryable failure ended the run" in result.stderr and "answered HTTP 404" in result.stderr, result.stderr
    line = summary(result)
    assert line["pages"] == 0 and line["failures"] >= 1, line
    assert line["targetErrors"]["httpStatus"] >= line["failures"], line


def test_target_and_target_file_are_one_or_the_other(tmp_path):
    path = rest_target(tmp_path, "http://127.0.0.1:9")
    neither = http_bench("--duration", "1")
    both = http_bench("--target", "http://127.0.0.1:9", "--target-file", path, "--duration", "1")
    beyond = http_bench("--target-file", path, "--partition", "16", "--duration", "1")
    missing = http_bench("--target-file", str(tmp_path / "none.json"), "--duration", "1")
    assert neither.returncode == 64 and "--target-file" in neither.stderr, neither.stderr
    assert both.returncode == 64 and "give one" in both.stderr, both.stderr
    assert beyond.returncode == 64 and "lists 16 partition values" in beyond.stderr, beyond.stderr
    assert missing.returncode == 66, missing.stderr
