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
import sys

from pagebench_support import ServedStore, pagebench_binary

# A page server that dies on request: every GET is an empty page with a new token (a drain
# that never ends), in `pagebench serve`'s body format; after 20 answers it prints "served".
PAGES_THEN_WAIT = r"""
import socket, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
count = 0
lock = threading.Lock()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def log_message(self, *args):
        pass
    def do_GET(self):
        global count
        with lock:
            count += 1
            number = count
        body = ('{"items":[],"nextToken":"t%d","returned":0,"scanned":0,"scannedBytes":0}' % number).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if number == 20:
            print("served", flush=True)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
"""


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
    server = subprocess.Popen([sys.executable, "-c", PAGES_THEN_WAIT], stdout=subprocess.PIPE, text=True)
    try:
        endpoint = server.stdout.readline().split("listening on ")[1].strip()
        bench = subprocess.Popen([pagebench_binary(), "http-bench", "--target", endpoint, "--connections", "2",
                                  "--duration", "3600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout.readline().strip() == "served"
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
        result = http_bench("--target", server.endpoint, "--connections", "1000", "--duration", "1")
    finally:
        server.stop()
    assert result.returncode in (0, 69), result.stderr
    line = summary(result)
    # The figures cover the duration, never the connecting and closing around it.
    assert line["seconds"] <= 1.0, line
    if result.returncode == 0:
        assert line["requests"] > 0 and line["pages"] > 0, line
    else:
        assert "no page received" in result.stderr, result.stderr


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
