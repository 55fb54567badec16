"""`run --workers N --metrics-listen HOST:PORT` (issue 36, docs/live-metrics.md): worker I
serves its shard's live metrics on PORT + I, and their counters add up to the merged row;
the fixed buckets make the page-latency histograms add up too. Every wait is bounded."""
import csv
import os
import re
import socket
import subprocess
import tempfile
import time
import urllib.request

from pagebench_support import pagebench_binary


def free_ports(count):
    """`count` consecutive free ports on 127.0.0.1 (checked by binding each)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if base + count > 65535:
            continue
        sockets = []
        try:
            for offset in range(count):
                candidate = socket.socket()
                sockets.append(candidate)
                candidate.bind(("127.0.0.1", base + offset))
            return base
        except OSError:
            continue
        finally:
            for candidate in sockets:
                candidate.close()
    raise AssertionError("no consecutive free ports")


def scrape(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            return answer.read().decode()
    except OSError:
        return None


def value(text, name):
    """The sum of every sample of `name` (no labels asked)."""
    return sum(float(match.group(1)) for match in re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


def test_each_worker_serves_its_shard_and_the_shards_add_up_to_the_merged_row():
    with tempfile.TemporaryDirectory(prefix="pagebench-metrics-workers-") as directory:
        port = free_ports(2)
        output = os.path.join(directory, "merged.csv")
        process = subprocess.Popen(
            [pagebench_binary(), "run", "--workers", "2", "--drains", "400", "--concurrency", "4", "--warmup", "0",
             "--quiet", "--output", output, "--shard-output", os.path.join(directory, "shards"),
             "--metrics-listen", f"127.0.0.1:{port}", "--metrics-linger", "15s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            finals = {}
            deadline = time.monotonic() + 180
            while len(finals) < 2 and time.monotonic() < deadline:
                for worker_port in (port, port + 1):
                    text = scrape(worker_port)
                    if text and 'pagebench_phase_state{state="done"} 1' in text:
                        finals[worker_port] = text
                time.sleep(0.2)
            assert len(finals) == 2, "both workers serve their final values while they linger"
            out, err = process.communicate(timeout=180)
            assert process.returncode == 0, err
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        row = next(csv.DictReader(open(output, encoding="utf-8")))
        for name, column in (("pagebench_pages_total", "pages"), ("pagebench_items_total", "items"),
                             ("pagebench_drains_total", "drains")):
            shares = [value(text, name) for text in finals.values()]
            assert all(share > 0 for share in shares), (name, shares)
            assert sum(shares) == float(row[column]), (name, shares, row[column])
        counts = sum(value(text, "pagebench_page_latency_seconds_count") for text in finals.values())
        assert counts == float(row["pages"])
