"""`run --metrics-listen` against slow and hostile scrapers (issue 36, docs/live-metrics.md):
a slowloris client, 1,000 connections at once and a huge request neither block the run nor
grow its memory without bound. The server's bounds are behaviour, checked as such: how many
connections it keeps, that it closes a connection that never finishes its request, that it
refuses a request over its size limit; the run then ends whole with its exit status 0.
Nothing is timed; every wait has a limit against a hang."""
import csv
import os
import re
import select
import socket
import subprocess
import tempfile
import time

import pytest

from pagebench_support import pagebench_binary

# The server's bounds (MetricsServer.Limits): connections open at once, request bytes.
CONNECTIONS = 64
REQUEST_BYTES = 16 * 1024


class Run:
    """`pagebench run` of `seconds` with --metrics-listen 127.0.0.1:0 and a long linger; `port`
    once it listens."""

    def __init__(self, directory, seconds=4):
        self.output = os.path.join(directory, "out.csv")
        self.process = subprocess.Popen(
            [pagebench_binary(), "run", "--duration", f"{seconds}s", "--warmup", "0", "--concurrency", "2",
             "--service-time", "fixed:1ms", "--output", self.output, "--quiet", "--metrics-listen", "127.0.0.1:0",
             "--metrics-linger", "120s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
        assert match, line + self.process.stderr.read()
        self.port = int(match.group(1))

    def resident_kib(self):
        with open(f"/proc/{self.process.pid}/status", encoding="utf-8") as status:
            return int(re.search(r"VmRSS:\s+(\d+) kB", status.read()).group(1))

    def scrape(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as connection:
            connection.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            return receive_all(connection)

    def finish(self):
        """Once the run has written its CSV (it lingers then), SIGTERM ends the linger; the
        run was whole, so it exits 0."""
        deadline = time.monotonic() + 120
        while not (os.path.exists(self.output) and os.path.getsize(self.output) > 0) and time.monotonic() < deadline:
            assert self.process.poll() is None, self.process.stderr.read()
            time.sleep(0.2)
        self.process.terminate()
        out, err = self.process.communicate(timeout=120)
        assert self.process.returncode == 0, err
        rows = list(csv.DictReader(open(self.output, encoding="utf-8")))
        assert len(rows) == 1 and rows[0]["partial"] == "0" and int(rows[0]["pages"]) > 0
        return rows[0]


def receive_all(connection, limit=8 << 20):
    data = b""
    while len(data) < limit:
        try:
            piece = connection.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not piece:
            break
        data += piece
    return data


@pytest.fixture
def directory():
    with tempfile.TemporaryDirectory(prefix="pagebench-hostile-") as path:
        yield path


def test_slowloris_is_closed_and_the_run_goes_on(directory):
    run = Run(directory)
    slow = socket.create_connection(("127.0.0.1", run.port), timeout=30)
    slow.sendall(b"GET /metrics HTTP/1.1\r\n")
    closed = False
    # One header byte a second: the server closes the connection, whatever it sends.
    for _ in range(40):
        try:
            slow.sendall(b"X")
            if slow.recv(1, socket.MSG_DONTWAIT) == b"":
                closed = True
                break
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(1)
    slow.close()
    assert closed, "a request that never ends keeps its connection"
    assert b"pagebench_pages_total" in run.scrape()
    run.finish()


def test_a_thousand_connections_are_bounded_and_the_run_goes_on(directory):
    run = Run(directory)
    before = run.resident_kib()
    sockets = []
    try:
        for _ in range(1000):
            sockets.append(socket.create_connection(("127.0.0.1", run.port), timeout=30))
        # The server keeps at most CONNECTIONS of them; the rest it closes as it accepts them.
        closed = set()
        deadline = time.monotonic() + 8
        while len(closed) < len(sockets) - CONNECTIONS and time.monotonic() < deadline:
            open_ones = [connection for connection in sockets if connection not in closed]
            readable, _, _ = select.select(open_ones, [], [], 0.5)
            for connection in readable:
                try:
                    if connection.recv(1) == b"":
                        closed.add(connection)
                except ConnectionResetError:
                    closed.add(connection)
        assert len(sockets) - len(closed) <= CONNECTIONS, len(sockets) - len(closed)
        during = run.resident_kib()
    finally:
        for connection in sockets:
            connection.close()
    # Memory: the connections cost at most their bounded buffers (generous: 64 MiB).
    assert during - before < 64 * 1024, (before, during)
    run.finish()


def test_a_huge_request_is_refused_unread_and_the_run_goes_on(directory):
    run = Run(directory)
    before = run.resident_kib()
    with socket.create_connection(("127.0.0.1", run.port), timeout=30) as connection:
        connection.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        refused = False
        header = b"X-Filler: " + b"a" * 8000 + b"\r\n"
        try:
            while sent < 64 << 20:
                connection.sendall(header)
                sent += len(header)
        except (BrokenPipeError, ConnectionResetError):
            refused = True
        answer = receive_all(connection)
        assert refused or answer.startswith(b"HTTP/1.1 431"), answer[:100]
        assert sent < 64 << 20, "the server read 64 MiB of one request"
    assert run.resident_kib() - before < 64 * 1024
    assert b"pagebench_pages_total" in run.scrape()
    run.finish()
