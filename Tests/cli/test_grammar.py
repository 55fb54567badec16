"""Issue 27's one CLI grammar, from outside: durations take units everywhere, rates take /s,
an unknown option gets the suggestion it needs, a refused connection is said in plain words."""
import os
import socket
import subprocess
import tempfile

from pagebench_support import pagebench_binary

SMALL_STORE = ["--partitions", "2", "--items-per-partition", "50", "--concurrency", "1", "--quiet"]


def pagebench(*arguments, cwd=None):
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_durations_take_units_and_bare_seconds():
    with tempfile.TemporaryDirectory() as directory:
        for duration in ("200ms", "0.2s", "0.2"):
            result = pagebench("run", *SMALL_STORE, "--duration", duration, "--warmup", "50ms",
                               "--output", os.path.join(directory, "r.csv"))
            assert result.returncode == 0, (duration, result.stderr)
            # The phase was as long as asked (target_duration_s is the configured length, not a timing).
            header, row = open(os.path.join(directory, "r.csv")).read().splitlines()[:2]
            assert float(dict(zip(header.split(","), row.split(",")))["target_duration_s"]) == 0.2


def test_a_duration_that_is_not_one_is_a_usage_error_naming_the_flag():
    for command in (["run", "--duration", "2x"], ["run", "--warmup", "5 minutes"], ["knee", "--step-duration", "fast"],
                    ["http-bench", "--target", "http://127.0.0.1:9", "--duration", "10sec"],
                    ["serve", "--idle-timeout", "1d"]):
        result = pagebench(*command)
        assert result.returncode == 64, (command, result.stderr)
        assert f"{command[-2]}: '{command[-1]}' is not a duration" in result.stderr, result.stderr


def test_durations_take_minutes_and_hours():
    # Issue 35: `--duration 2m` was refused; minutes and hours are durations on every flag.
    with tempfile.TemporaryDirectory() as directory:
        result = pagebench("run", *SMALL_STORE, "--duration", "0.002m", "--warmup", "0h",
                           "--output", os.path.join(directory, "r.csv"))
        assert result.returncode == 0, result.stderr
        header, row = open(os.path.join(directory, "r.csv")).read().splitlines()[:2]
        assert float(dict(zip(header.split(","), row.split(",")))["target_duration_s"]) == 0.12


def test_rates_take_per_second():
    with tempfile.TemporaryDirectory() as directory:
        result = pagebench("run", *SMALL_STORE, "--load", "open-fixed:200/s", "--duration", "100ms",
                           "--output", os.path.join(directory, "r.csv"))
        assert result.returncode == 0, result.stderr
    result = pagebench("knee", "--from", "5/min", "--slo", "error_rate<1%")
    assert result.returncode == 64 and "--from: '5/min' is not a rate" in result.stderr, result.stderr


def test_an_option_from_another_load_tester_gets_what_to_write():
    result = pagebench("run", "--rate", "500")
    assert result.returncode == 64
    assert "--load open-fixed:RATE" in result.stderr and "--pager" not in result.stderr, result.stderr
    result = pagebench("knee", "--rate", "500")
    assert result.returncode == 64 and "--from RATE" in result.stderr, result.stderr
    # A typo still gets swift-argument-parser's suggestion.
    result = pagebench("run", "--concurency", "4")
    assert result.returncode == 64 and "Did you mean '--concurrency'?" in result.stderr, result.stderr


def test_a_metric_stem_suggests_its_metrics():
    with tempfile.TemporaryDirectory() as directory:
        output = os.path.join(directory, "r.csv")
        assert pagebench("run", *SMALL_STORE, "--drains", "4", "--output", output).returncode == 0
        result = pagebench("compare", output, "--metrics", "pages_per_drain")
    assert result.returncode == 64, result.stderr
    assert "did you mean 'pages_per_drain_mean' or 'pages_per_drain_max'?" in result.stderr, result.stderr


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # bound, never listened on, closed: connecting is refused


def test_an_unreachable_target_says_connection_refused_in_plain_words():
    port = closed_port()
    result = pagebench("run", *SMALL_STORE, "--drains", "2", "--target", f"http://127.0.0.1:{port}")
    assert result.returncode == 69, result.stderr
    assert "connection refused" in result.stderr, result.stderr
    assert "errno" not in result.stderr and "(error set)" not in result.stderr, result.stderr
