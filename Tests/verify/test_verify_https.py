"""`pagebench verify` over HTTPS (docs/verify.md): against `serve --tls-cert` whose certificate a
CA made with the openssl command signed, verify checks the certificate (--ca-file the CA) and
judges every rule; a certificate it cannot trust (no --ca-file, or another CA) stops it before
any rule with exit 69 and the TLS failure named, as `run` does. Traffic goes to 127.0.0.1 only."""
import json
import subprocess

import pytest

from pagebench_support import ServedStore, pagebench_binary

RULES = ["V1", "V2", "V3", "V4", "V5", "V6", "V7"]
SERVE = ["--host", "127.0.0.1", "--partitions", "3", "--items-per-partition", "25", "--item-size", "fixed:64",
         "--seed", "5"]
REST = {"kind": "http", "partitions": {"range": [0, 2]}, "path": "/partitions/${partition}/items?limit=${limit}",
        "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"},
        "scannedCount": "/scanned", "itemKey": "/sortKey", "tokensBind": ["limit"]}


def openssl(*arguments):
    subprocess.run(["openssl", *arguments], check=True, capture_output=True)


def make_authority(directory, name):
    """A CA (P-256, self-signed, CA:true): (certificate, key)."""
    certificate, key = directory / f"{name}-ca.pem", directory / f"{name}-ca-key.pem"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key),
            "-out", str(certificate), "-days", "2", "-subj", f"/CN=pagebench test CA {name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return certificate, key


def make_server_certificate(directory, authority):
    """A certificate for 127.0.0.1 and localhost signed by `authority`: (certificate, key)."""
    certificate, key, request = directory / "server.pem", directory / "server-key.pem", directory / "server.csr"
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key),
            "-out", str(request), "-subj", "/CN=localhost")
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
                          "basicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", str(request), "-CA", str(authority[0]), "-CAkey", str(authority[1]),
            "-CAcreateserial", "-out", str(certificate), "-days", "2", "-extfile", str(extensions))
    return str(certificate), str(key)


@pytest.fixture(scope="module")
def https_serve(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tls")
    authority = make_authority(directory, "a")
    other = make_authority(directory, "b")
    certificate, key = make_server_certificate(directory, authority)
    server = ServedStore(*SERVE, "--tls-cert", certificate, "--tls-key", key)
    yield server, str(authority[0]), str(other[0])
    server.stop()


def verify(tmp_path, endpoint, *options):
    target = tmp_path / "target.json"
    target.write_text(json.dumps({**REST, "endpoint": endpoint}))
    return subprocess.run([pagebench_binary(), "verify", "--target-file", str(target), "--limits", "1,7,50",
                           "--rate", "300", "--max-seconds", "120", "--format", "json", *options],
                          capture_output=True, text=True, timeout=300)


def test_v1_to_v7_over_https_with_the_cas_certificate_every_rule_holds(tmp_path, https_serve):
    server, authority, _ = https_serve
    assert server.endpoint.startswith("https://127.0.0.1:")
    result = verify(tmp_path, server.endpoint, "--ca-file", authority)
    assert result.returncode == 0, result.stdout + result.stderr
    rules = {rule["id"]: rule for rule in json.loads(result.stdout)["rules"]}
    assert {rule: rules[rule]["verdict"] for rule in RULES} == {rule: "holds" for rule in RULES}, result.stdout
    assert f"first request: GET {server.endpoint}/partitions/0/items?limit=7" in result.stderr, result.stderr
    assert f"TLS: the server's certificate is verified against --ca-file {authority}" in result.stderr, result.stderr
    # By name: the certificate's DNS name is checked instead of its address.
    by_name = verify(tmp_path, server.endpoint.replace("127.0.0.1", "localhost"), "--ca-file", authority)
    assert by_name.returncode == 0, by_name.stdout + by_name.stderr


@pytest.mark.parametrize("trust", ["system", "another CA"])
def test_a_certificate_verify_cannot_trust_is_exit_69_before_any_rule(tmp_path, https_serve, trust):
    server, _, other = https_serve
    options = [] if trust == "system" else ["--ca-file", other]
    result = verify(tmp_path, server.endpoint, *options)
    assert result.returncode == 69, result.stdout + result.stderr
    if trust == "system":
        assert "TLS: the server's certificate is verified against the system's trusted certificates" in result.stderr
    assert result.stdout == "", result.stdout  # no report: nothing was judged
    assert "pagebench: error: target target: the first page failed: GET https://127.0.0.1:" in result.stderr
    assert ("TLS failed: certificate verify failed: unable to get local issuer certificate; the server's certificate is "
            "not trusted: give --ca-file with the CA that signed it (--insecure only for a test server)") in result.stderr, \
        result.stderr


def test_insecure_is_said_in_the_plan_before_anything_is_sent(tmp_path, https_serve):
    server, _, _ = https_serve
    result = verify(tmp_path, server.endpoint, "--insecure", "--max-requests", "10")
    assert "TLS: the server's certificate is NOT verified (--insecure: any certificate and host name is accepted)" \
        in result.stderr, result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
