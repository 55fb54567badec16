"""HTTPS on the command line (issue 14, kept by issue 28's move to the system's OpenSSL):
`serve --tls-cert/--tls-key` refuses files that do not make a certificate and its key, and
`run --target-file` over https:// refuses a bad --ca-file (exit 64) and names the TLS
failure of a server that is not what the URL says (exit 69). The certificates are made with
the openssl command. The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading

import pytest

from pagebench_support import ServedStore, pagebench_binary

STORE = {"partitions": 2, "itemsPerPartition": 30, "itemSize": "fixed:64", "seed": 3}
SERVE = ["--host", "127.0.0.1", "--partitions", "2", "--items-per-partition", "30", "--item-size", "fixed:64", "--seed", "3"]


def run(*arguments, environment=None):
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(environment or {})})


def make_certificate(directory, name):
    """A self-signed P-256 certificate for localhost and 127.0.0.1: (certificate, key)."""
    certificate, key = directory / f"{name}-cert.pem", directory / f"{name}-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(certificate), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return str(certificate), str(key)


def target_run(tmp_path, endpoint, *options, environment=None):
    """`run --target-file` of a REST target at `endpoint` (a small scenario), with OPTIONS."""
    scenario = tmp_path / "rest.json"
    scenario.write_text(json.dumps({"name": "rest", "store": STORE, "workload": {
        "pager": "streaming", "concurrency": [1], "limit": 7, "drains": 3, "read": "partition:uniform",
        "warmupSeconds": 0}}))
    target = tmp_path / "target.json"
    target.write_text(json.dumps({
        "kind": "http", "endpoint": endpoint, "partitions": {"range": [0, 1]},
        "path": "/partitions/${partition}/items?limit=${limit}", "items": "/items", "continuation": "/nextToken",
        "continuationIn": {"query": "nextToken"}}))
    return run("run", str(scenario), "--target-file", str(target), "--quiet", "--output", str(tmp_path / "out.csv"),
               *options, environment=environment)


def test_serve_refuses_a_key_that_does_not_belong_to_the_certificate(tmp_path):
    certificate, _ = make_certificate(tmp_path, "a")
    _, other_key = make_certificate(tmp_path, "b")
    result = run("serve", "--port", "0", "--tls-cert", certificate, "--tls-key", other_key)
    assert result.returncode == 65, result.stderr
    assert f"--tls-cert {certificate} / --tls-key {other_key}" in result.stderr, result.stderr
    assert "does not belong to the certificate" in result.stderr, result.stderr


def test_serve_refuses_a_certificate_file_that_is_not_pem(tmp_path):
    _, key = make_certificate(tmp_path, "a")
    not_pem = tmp_path / "cert.txt"
    not_pem.write_text("not a certificate\n")
    result = run("serve", "--port", "0", "--tls-cert", str(not_pem), "--tls-key", key)
    assert result.returncode == 65, result.stderr
    assert "not a PEM certificate chain and its private key" in result.stderr, result.stderr


def test_a_missing_or_non_pem_ca_file_is_a_usage_error(tmp_path):
    missing = target_run(tmp_path, "https://127.0.0.1:9", "--ca-file", str(tmp_path / "missing.pem"))
    assert missing.returncode == 64, missing.stderr
    assert "missing.pem" in missing.stderr, missing.stderr
    not_pem = tmp_path / "ca.txt"
    not_pem.write_text("not a certificate\n")
    result = target_run(tmp_path, "https://127.0.0.1:9", "--ca-file", str(not_pem))
    assert result.returncode == 64, result.stderr
    assert "cannot set up TLS" in result.stderr and "is the CA file a PEM certificate?" in result.stderr, result.stderr


def test_https_to_serve_with_its_certificate_works_and_without_it_is_exit_69(tmp_path):
    certificate, key = make_certificate(tmp_path, "a")
    server = ServedStore(*SERVE, "--tls-cert", certificate, "--tls-key", key)
    try:
        assert server.endpoint.startswith("https://127.0.0.1:")
        trusted = target_run(tmp_path, server.endpoint, "--ca-file", certificate)
        assert trusted.returncode == 0, trusted.stderr
        untrusted = target_run(tmp_path, server.endpoint)
        assert untrusted.returncode == 69, untrusted.stderr
        assert "TLS failed: certificate verify failed: self-signed certificate" in untrusted.stderr, untrusted.stderr
        # By name: SNI, and the certificate's DNS name is checked instead of its address.
        by_name = target_run(tmp_path, server.endpoint.replace("127.0.0.1", "localhost"), "--ca-file", certificate)
        assert by_name.returncode == 0, by_name.stderr
        insecure = target_run(tmp_path, server.endpoint, "--insecure")
        assert insecure.returncode == 0, insecure.stderr
    finally:
        server.stop()


def test_pythons_ssl_client_verifies_serve_and_sees_close_notify_at_the_end(tmp_path):
    """An independent client (Python's ssl module on the system's OpenSSL) against `serve
    --tls-cert`: the certificate verifies for 127.0.0.1, the response arrives, and the server's
    close after `Connection: close` carries close_notify (a ragged EOF would raise SSLEOFError)."""
    certificate, key = make_certificate(tmp_path, "a")
    server = ServedStore(*SERVE, "--tls-cert", certificate, "--tls-key", key)
    try:
        port = int(server.endpoint.rsplit(":", 1)[1])
        context = ssl.create_default_context(cafile=certificate)
        with socket.create_connection(("127.0.0.1", port), timeout=120) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1", suppress_ragged_eofs=False) as tls:
                tls.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                received = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    received += chunk
        assert received.startswith(b"HTTP/1.1 200"), received[:200]
        assert b'"status":"ok"' in received, received
    finally:
        server.stop()


def test_the_system_trust_store_is_openssls_certificate_directory_or_ssl_cert_file(tmp_path):
    """Without --ca-file the server is checked against the system's trusted certificates, as
    OpenSSL finds them: the hashed directory (SSL_CERT_DIR, else /etc/ssl/certs), or the bundle
    SSL_CERT_FILE names."""
    certificate, key = make_certificate(tmp_path, "a")
    directory = tmp_path / "trusted"
    directory.mkdir()
    shutil.copy(certificate, directory / "serve.pem")
    subprocess.run(["openssl", "rehash", str(directory)], check=True, capture_output=True)
    server = ServedStore(*SERVE, "--tls-cert", certificate, "--tls-key", key)
    try:
        by_directory = target_run(tmp_path, server.endpoint, environment={"SSL_CERT_DIR": str(directory)})
        assert by_directory.returncode == 0, by_directory.stderr
        by_file = target_run(tmp_path, server.endpoint, environment={"SSL_CERT_FILE": certificate})
        assert by_file.returncode == 0, by_file.stderr
        system = target_run(tmp_path, server.endpoint)
        assert system.returncode == 69, system.stderr
    finally:
        server.stop()


def test_a_plain_http_server_behind_an_https_url_is_exit_69(tmp_path):
    server = ServedStore(*SERVE)
    try:
        result = target_run(tmp_path, server.endpoint.replace("http://", "https://"), "--insecure")
        assert result.returncode == 69, result.stderr
        assert "TLS failed" in result.stderr and "plain HTTP" in result.stderr, result.stderr
    finally:
        server.stop()


def closing_server(read_bytes):
    """A TCP listener on 127.0.0.1 that reads READ_BYTES of each connection (the start of a
    ClientHello) and closes it: with all of it read, a clean close; with bytes left unread,
    the kernel sends a reset. Returns (port, stop)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(120)

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connection.settimeout(60)
            try:
                connection.recv(read_bytes)
            except OSError:
                pass
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], listener.close


@pytest.mark.parametrize("read_bytes, reason", [
    (65536, "the peer closed the connection during the handshake"),  # all read: a clean close
    (1, ""),  # bytes left unread: a reset, or a close if the reset comes second
])
def test_a_server_that_closes_during_the_handshake_is_exit_69(tmp_path, read_bytes, reason):
    port, stop = closing_server(read_bytes)
    try:
        result = target_run(tmp_path, f"https://127.0.0.1:{port}", "--insecure")
    finally:
        stop()
    assert result.returncode == 69, result.stderr
    assert f"TLS failed: handshake failed: {reason}" in result.stderr, result.stderr
