"""Live metrics checked by their real consumer (issue 36, docs/live-metrics.md): Debian's
Prometheus server scrapes a running `pagebench run --metrics-listen … --metrics-linger …`, and
receives the remote writes of another (`--remote-write …/api/v1/write`); the test asks
Prometheus's HTTP API for what it stored. `promtool check metrics` checks the exposition.

Everything is on 127.0.0.1; every wait is bounded (no timing is asserted)."""
import csv
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

import pytest

from pagebench_support import pagebench_binary

# Debian's prometheus package (.ci/install-deps installs it).
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"

# A store with service time, so that page latencies spread over several buckets, and
# throttling, so that retries, throttles and errors are not all zero.
RUN = ["--duration", "3s", "--warmup", "500ms", "--concurrency", "4", "--quiet",
       "--service-time", "lognormal:median=2ms,sigma=0.6,max=80ms", "--throttle-rate", "0.02"]
COUNTERS = {"pagebench_pages_total": "pages", "pagebench_items_total": "items",
            "pagebench_drains_total": "drains", "pagebench_retries_total": "retries",
            "pagebench_throttles_total": "throttles", "pagebench_cancellations_total": "cancellations"}
BOUNDS = [1e-05, 2.5e-05, 5e-05, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
          0.5, 1, 2.5, 5, 10, 30, 60]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, what, limit=60):
    """Polls `condition` (returning a value or None) every 0.2 s for at most `limit` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = condition()
        if value is not None:
            return value
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what} after {limit} s")


def targets(prometheus):
    return http_get(f"http://127.0.0.1:{prometheus.port}/api/v1/targets")


def http_get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


class Prometheus:
    """`prometheus` on 127.0.0.1 with the remote-write receiver, scraping `target` every second."""

    def __init__(self, directory, target):
        self.port = free_port()
        config = os.path.join(directory, "prometheus.yml")
        with open(config, "w", encoding="utf-8") as file:
            file.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                       "scrape_configs:\n  - job_name: pagebench-scrape\n"
                       f"    static_configs:\n      - targets: ['{target}']\n")
        self.log = open(os.path.join(directory, "prometheus.log"), "w", encoding="utf-8")
        self.process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={directory}/data",
             f"--web.listen-address=127.0.0.1:{self.port}", "--web.enable-remote-write-receiver"],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(self.ready, "prometheus to be ready")

    def ready(self):
        try:
            return True if http_get(f"http://127.0.0.1:{self.port}/-/ready") else None
        except OSError:
            assert self.process.poll() is None, open(self.log.name, encoding="utf-8").read()
            return None

    def query(self, expression):
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
        answer = json.loads(http_get(url))
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def scalar(self, expression):
        result = self.query(expression)
        return float(result[0]["value"][1]) if len(result) == 1 else None

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture
def directory():
    path = tempfile.mkdtemp(prefix="pagebench-prometheus-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def read_row(path):
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    assert len(rows) == 1
    return rows[0]


def bucket_of(seconds):
    """The (lower, upper] bounds of the fixed bucket holding `seconds`."""
    lower = 0.0
    for upper in BOUNDS:
        if seconds <= upper:
            return lower, upper
        lower = upper
    return lower, float("inf")


def check_against_row(prometheus, row, selector):
    """Counters equal the row's columns; histogram_quantile of page latency falls in the
    bucket that holds the row's p50 / p99 (the buckets' resolution)."""
    for metric, column in COUNTERS.items():
        assert prometheus.scalar(f"{metric}{selector}") == float(row[column]), metric
    errors = sum(int(row[column]) for column in row if column.startswith("errors_") and row[column].isdigit())
    assert prometheus.scalar(f"sum(pagebench_errors_total{selector})") == float(errors)
    assert int(row["retries"]) > 0, "the store throttled and the pagers retried"
    for quantile, column in ((0.5, "page_latency_p50_ns"), (0.99, "page_latency_p99_ns")):
        estimate = prometheus.scalar(
            f"histogram_quantile({quantile}, sum by (le) (pagebench_page_latency_seconds_bucket{selector}))")
        lower, upper = bucket_of(int(row[column]) / 1e9)
        assert lower <= estimate <= upper, (quantile, estimate, row[column])


def test_prometheus_scrapes_a_running_run_and_its_lingering_final_values(directory):
    port = free_port()
    prometheus = Prometheus(directory, f"127.0.0.1:{port}")
    # Prometheus takes up to 5 s to start scraping a new target: start the run once it tries.
    wait_for(lambda: True if '"health":"down"' in targets(prometheus) else None, "prometheus's first scrape")
    output = os.path.join(directory, "scraped.csv")
    run = subprocess.Popen([pagebench_binary(), "run", *RUN, "--output", output,
                            "--metrics-listen", f"127.0.0.1:{port}", "--metrics-linger", "20s"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        selector = '{job="pagebench-scrape"}'
        # While the run goes: Prometheus sees it measuring.
        wait_for(lambda: prometheus.scalar(f'pagebench_phase_state{{job="pagebench-scrape",state="measured"}} == 1'),
                 "a scrape during the measured phase")
        # After it: the CSV is written, the server lingers, and the last scrape has its values.
        wait_for(lambda: True if os.path.exists(output) and os.path.getsize(output) > 0 else None, "the CSV")
        row = read_row(output)
        wait_for(lambda: prometheus.scalar(f'pagebench_phase_state{{job="pagebench-scrape",state="done"}} == 1'),
                 "a scrape after the run ended")
        check_against_row(prometheus, row, selector)
        # The exposition itself passes promtool, in both formats pagebench serves.
        text = http_get(f"http://127.0.0.1:{port}/metrics")
        lint = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        assert lint.returncode == 0, lint.stdout + lint.stderr
        assert "pagebench_run_info{" in text and "http://" not in text
        openmetrics = http_get(f"http://127.0.0.1:{port}/metrics",
                               {"Accept": "application/openmetrics-text;version=1.0.0"})
        assert openmetrics.endswith("# EOF\n")
    except AssertionError:
        print(targets(prometheus))
        run.terminate()
        print(run.communicate(timeout=60), run.returncode, run.args)
        raise
    finally:
        run.terminate()
        run.wait(timeout=60)
        prometheus.stop()


def test_prometheus_receives_remote_writes_up_to_the_final_values(directory):
    prometheus = Prometheus(directory, "127.0.0.1:9")  # nothing to scrape there
    output = os.path.join(directory, "pushed.csv")
    try:
        result = subprocess.run(
            [pagebench_binary(), "run", *RUN, "--output", output, "--metrics-interval", "1s",
             "--remote-write", f"http://127.0.0.1:{prometheus.port}/api/v1/write"],
            capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert "push failed" not in result.stderr, result.stderr
        row = read_row(output)
        selector = '{job="pagebench"}'
        # The last push came after the CSV was written; Prometheus answers with it at once.
        wait_for(lambda: prometheus.scalar(f'pagebench_phase_state{{job="pagebench",state="done"}} == 1'),
                 "the final push")
        check_against_row(prometheus, row, selector)
        # Pushed during the run too, not only at its end: several samples of the page counter.
        samples = prometheus.query(f'count_over_time(pagebench_pages_total{selector}[5m])')
        assert samples and float(samples[0]["value"][1]) >= 3, samples
    finally:
        prometheus.stop()
