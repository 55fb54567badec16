"""Issue 39, "the last doors": what a probe of hostile inputs found open, each shut.

- Every file pagebench reads refuses a FIFO or a device by name (exit 66) instead of reading
  `/dev/zero` for ever or blocking on a FIFO.
- `serve`: a request followed by another in the same write after `Connection: close` is
  answered (not 400), HTTP/1.0 without keep-alive is closed after its answer, CONNECT is
  answered with a body length and the connection closed.
- A closed standard output (`pagebench items | head -1`) is exit 74, not death by SIGPIPE.
- `http-bench`: no completed drain is exit 69; without `--partition` a target file's drains
  read its partitions; a line break in a header's variable is exit 65 (input), not 69.

Servers are local (`pagebench serve`, Tests/PagebenchTargetsTests/Servers/misbehaving.py);
every subprocess and socket has a generous time limit against a hang; nothing asserts a
wall-clock time. The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import json
import os
import socket
import subprocess

import pytest

from pagebench_support import ROOT, ServedStore, misbehaving_api, pagebench_binary, rest_target

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "check")
BASELINE = os.path.join(FIXTURES, "baseline.csv")


def run(*arguments, environment=None, timeout=120):
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(environment or {})}, stdin=subprocess.DEVNULL)


# MARK: files that are not regular files

@pytest.mark.parametrize("arguments", [
    ["run", "{path}", "--quiet"],
    ["run", "--config", "{path}", "--quiet"],
    ["check", "--baseline", BASELINE, "--current", BASELINE, "--thresholds", "{path}"],
    ["check", "--baseline", "{path}", "--current", BASELINE],
    ["report", "{path}", "--output", "{tmp}/report.html"],
    ["compare", "{path}"],
    ["serve", "--port", "0", "--config", "{path}"],
    ["serve", "--port", "0", "--scenario", "{path}"],
])
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_device_or_a_fifo_given_as_a_file_is_refused_by_name(tmp_path, arguments, kind):
    if kind == "device":
        path, said = "/dev/zero", "is a character device, not a regular file"
    else:
        path, said = str(tmp_path / "pipe.json"), "is a FIFO (named pipe), not a regular file"
        os.mkfifo(path)
    result = run(*[a.replace("{path}", path).replace("{tmp}", str(tmp_path)) for a in arguments], timeout=60)
    assert result.returncode == 66, result.stderr
    assert path in result.stderr and said in result.stderr, result.stderr


# MARK: serve's framing

def exchange(endpoint, data, seconds=20):
    """Sends `data` in one write; returns (bytes received, whether the server closed)."""
    host, port = endpoint.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=seconds) as connection:
        connection.sendall(data)
        received = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                return received, False
            if not chunk:
                return received, True
            received += chunk


@pytest.fixture(scope="module")
def served():
    server = ServedStore("--partitions", "2", "--items-per-partition", "10")
    yield server.endpoint
    server.stop()


def test_serve_answers_a_request_followed_by_another_after_connection_close(served):
    received, closed = exchange(served, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert received.startswith(b"HTTP/1.1 200 OK\r\n"), received
    assert received.count(b"HTTP/1.1 ") == 1 and closed, received


def test_serve_closes_an_http10_connection_without_keep_alive(served):
    received, closed = exchange(served, b"GET /health HTTP/1.0\r\n\r\n", seconds=10)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n") and closed, (received, closed)
    # Keep-alive asked for: the connection stays open (the test's timeout ends it).
    received, closed = exchange(served, b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", seconds=2)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n") and not closed, (received, closed)
    # Connection: Close in another case closes too.
    received, closed = exchange(served, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n", seconds=10)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n") and closed, (received, closed)


def test_serve_answers_connect_with_a_body_length_and_closes(served):
    received, closed = exchange(served, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", seconds=10)
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 Bad Request"), received
    length = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
    assert length and int(length[0].split(b":")[1]) == len(body), received
    assert json.loads(body)["code"] == "invalidParameter" and closed, received


# MARK: a closed standard output

def test_a_closed_standard_output_is_exit_74_not_sigpipe():
    process = subprocess.Popen([pagebench_binary(), "items", "--partition", "0", "--partitions", "1",
                                "--items-per-partition", "200000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.wait(timeout=300)
    assert first.startswith(b"{"), first
    assert process.returncode == 74, (process.returncode, stderr)
    assert "cannot write to standard output" in stderr, stderr
    # As a shell pipeline runs it.
    shell = subprocess.run(["bash", "-c", f"'{pagebench_binary()}' items --partition 0 --partitions 1 "
                            "--items-per-partition 200000 | head -1 > /dev/null; echo ${PIPESTATUS[0]}"],
                           capture_output=True, text=True, timeout=300)
    assert shell.stdout.strip() == "74", shell


# MARK: http-bench

def test_http_bench_without_partition_reads_the_target_files_partitions(tmp_path):
    server = ServedStore("--partitions", "16", "--items-per-partition", "20")
    try:
        path = rest_target(tmp_path, server.endpoint)
        result = run("http-bench", "--target-file", path, "--limit", "50", "--connections", "2", "--duration", "2")
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(line["statusCounts"]) == {"200"} and line["drains"] > 0, line
    assert line["targetErrors"] == {} and line["failures"] == 0, line


def test_http_bench_with_no_completed_drain_is_exit_69():
    server, endpoint = misbehaving_api()
    try:
        # /pages/ answers empty pages with a new token for ever: no drain ever ends.
        result = run("http-bench", "--target", endpoint + "/pages", "--connections", "1", "--duration", "1")
    finally:
        server.kill()
        server.wait(timeout=30)
    assert result.returncode == 69, result.stderr
    assert "no drain completed" in result.stderr, result.stderr
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["drains"] == 0 and line["pages"] > 0, line


@pytest.mark.parametrize("command", ["run", "http-bench"])
def test_a_line_break_in_a_header_variable_is_exit_65(tmp_path, command):
    path = rest_target(tmp_path, "http://127.0.0.1:9", headers={"X-Api-Key": "${PAGEBENCH_T_KEY}"})
    arguments = ["--target-file", path, "--duration", "1"]
    if command == "run":
        arguments = ["--target-file", path, "--drains", "1", "--concurrency", "1", "--quiet", "--output",
                     str(tmp_path / "out.csv")]
    result = run(command, *arguments, environment={"PAGEBENCH_T_KEY": "secret-value\r\nX-Injected: 1"})
    assert result.returncode == 65, result.stderr
    assert "headers.X-Api-Key" in result.stderr and "PAGEBENCH_T_KEY" in result.stderr, result.stderr
    assert "secret-value" not in result.stderr
