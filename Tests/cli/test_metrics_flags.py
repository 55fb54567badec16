"""The live-metrics flags refuse what they cannot use with a usage error (exit 64) naming the
flag, before anything is measured (issue 36, docs/live-metrics.md)."""
import socket
import subprocess

import pytest

from pagebench_support import pagebench_binary


def run(*flags):
    return subprocess.run([pagebench_binary(), "run", "--drains", "10", "--quiet", "--output", "/dev/null/x.csv", *flags],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flags, named", [
    (["--metrics-listen", "localhost"], "--metrics-listen"),
    (["--metrics-listen", "127.0.0.1:70000"], "--metrics-listen"),
    (["--remote-write", "ftp://127.0.0.1/x"], "--remote-write"),
    (["--metrics-interval", "10ms"], "--metrics-interval"),
    (["--metrics-linger", "-1s"], "--metrics-linger"),
])
def test_a_value_that_is_not_one_is_a_usage_error(flags, named):
    result = run(*flags)
    assert result.returncode == 64, result.stderr
    assert named in result.stderr


def test_an_address_in_use_stops_the_run_before_it_measures(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        output = tmp_path / "out.csv"
        result = subprocess.run([pagebench_binary(), "run", "--drains", "10", "--quiet", "--output", str(output),
                                 "--metrics-listen", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 64, result.stderr
    assert "--metrics-listen" in result.stderr and "cannot listen" in result.stderr
    assert not output.exists()
