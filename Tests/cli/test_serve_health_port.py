"""Issue 38, W8: `pagebench serve --health-port` answers GET /health on a port of its own (with
the store's port's body), the flag is checked, a port that cannot be bound is named, and SIGTERM
still lets a request in flight finish before both ports close.

The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import re
import signal
import socket
import subprocess
import threading
import urllib.error
import urllib.request

from pagebench_support import ServedStore, pagebench_binary


def health_url(served):
    banner_health = re.search(r"/health also on (http://127\.0\.0\.1:\d+)/health", served.banner)
    assert banner_health, served.banner
    return banner_health.group(1)


class ServedWithHealth(ServedStore):
    """ServedStore with --health-port 0, keeping the banner."""

    def __init__(self, *options):
        self.process = subprocess.Popen([pagebench_binary(), "serve", "--port", "0", "--health-port", "0", *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.banner = self.process.stdout.readline()
        match = re.search(r"listening on (http://[\d.]+:\d+)", self.banner)
        if not match:
            self.process.kill()
            raise AssertionError(f"serve did not start: {self.banner!r} {self.process.stderr.read()}")
        self.endpoint = match.group(1)


def test_w8_the_health_port_answers_health_with_the_store_ports_body():
    served = ServedWithHealth("--seed", "7")
    try:
        health = health_url(served)
        assert health != served.endpoint
        with urllib.request.urlopen(served.endpoint + "/health", timeout=30) as answer:
            expected = answer.read()
        with urllib.request.urlopen(health + "/health", timeout=30) as answer:
            assert answer.status == 200
            assert answer.headers["Content-Type"] == "application/json"
            assert answer.read() == expected
        try:
            urllib.request.urlopen(health + "/partitions/0/items", timeout=30)
            raise AssertionError("the health port answered a store request")
        except urllib.error.HTTPError as refused:
            assert refused.code == 404
    finally:
        served.stop()


def test_w8_health_port_flag_is_checked():
    for flags, message in ((["--port", "8123", "--health-port", "8123"], "--health-port must differ from --port"),
                           (["--health-port", "70000"], "--health-port must be between 0 and 65535")):
        result = subprocess.run([pagebench_binary(), "serve", *flags], capture_output=True, text=True, timeout=60)
        assert result.returncode == 64, result.stderr
        assert message in result.stderr


def test_w8_a_health_port_that_cannot_be_bound_is_named():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([pagebench_binary(), "serve", "--port", "0", "--health-port", str(port)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 69, result.stderr
    assert f"cannot listen for /health on 127.0.0.1:{port} (--health-port)" in result.stderr
    assert "listening on" not in result.stdout


def test_sigterm_lets_the_request_in_flight_finish_then_closes_both_ports():
    served = ServedWithHealth("--service-time", "fixed:2s")
    try:
        health = health_url(served)
        host, port = served.endpoint[len("http://"):].split(":")
        with socket.create_connection((host, int(port)), timeout=60) as connection:
            connection.sendall(b"GET /partitions/0/items?limit=2 HTTP/1.1\r\nHost: x\r\n\r\n")
            # The server reads the request long before its 2 s service time is over.
            threading.Event().wait(0.5)
            served.process.send_signal(signal.SIGTERM)
            answer = b""
            while b"\r\n\r\n" not in answer and (chunk := connection.recv(65536)):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200"), answer
        assert served.process.wait(timeout=60) == 0
        for url in (served.endpoint, health):
            host, port = url[len("http://"):].split(":")
            try:
                socket.create_connection((host, int(port)), timeout=5).close()
                raise AssertionError(f"{url} still accepts connections after SIGTERM")
            except ConnectionRefusedError:
                pass
    finally:
        if served.process.poll() is None:
            served.process.kill()


def read_responses(connection, count):
    """`count` whole responses (each with Content-Length) from `connection`: (status line,
    headers by lower-case name, body)."""
    buffer, responses = b"", []
    while len(responses) < count:
        while b"\r\n\r\n" not in buffer:
            chunk = connection.recv(65536)
            assert chunk, f"the connection closed after {len(responses)} responses"
            buffer += chunk
        head, _, buffer = buffer.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = 0 if lines[0].startswith("HEAD") else int(headers.get("content-length", "0"))
        while len(buffer) < length:
            chunk = connection.recv(65536)
            assert chunk, "the connection closed inside a body"
            buffer += chunk
        responses.append((lines[0], headers, buffer[:length]))
        buffer = buffer[length:]
    return responses


def test_health_on_the_store_port_answers_in_request_order():
    """/health on the store's port, pipelined between page requests on one keep-alive
    connection: each answer comes in its request's order, the HEAD without a body;
    `Connection: close` closes after the answer (a guard for the store's listener)."""
    served = ServedStore()
    try:
        with urllib.request.urlopen(served.endpoint + "/partitions/0/items?limit=2", timeout=30) as answer:
            page = answer.read()
        with urllib.request.urlopen(served.endpoint + "/health", timeout=30) as answer:
            health = answer.read()
        host, port = served.endpoint[len("http://"):].split(":")
        with socket.create_connection((host, int(port)), timeout=30) as connection:
            connection.sendall(b"GET /partitions/0/items?limit=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                               b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                               b"GET /partitions/0/items?limit=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                               b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            answers = read_responses(connection, 4)
            assert [a[2] for a in answers] == [page, health, page, health]
            assert all(a[0] == "HTTP/1.1 200 OK" for a in answers)
            assert all(a[1]["content-type"] == "application/json" and "date" in a[1] for a in answers)
        with socket.create_connection((host, int(port)), timeout=30) as connection:
            connection.sendall(b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n"
                               b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            buffer = b""
            while chunk := connection.recv(65536):
                buffer += chunk
            first, _, rest = buffer.partition(b"\r\n\r\n")
            assert first.startswith(b"HTTP/1.1 200"), buffer
            assert f"content-length: {len(health)}".encode() in first.lower()
            assert rest.startswith(b"HTTP/1.1 200"), buffer
            assert rest.endswith(health)  # and the server closed the connection after it
    finally:
        served.stop()
