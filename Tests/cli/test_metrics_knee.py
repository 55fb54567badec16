"""`knee … -- --metrics-listen HOST:PORT --metrics-linger …` (issue 36): one server for all
steps, each step's phase labelled `stepN-…`, its counters equal to the step's row in the
knee's CSV once the search is over. Every wait is bounded."""
import csv
import os
import re
import subprocess
import tempfile
import time
import urllib.request

from pagebench_support import pagebench_binary


def scrape(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            return answer.read().decode()
    except OSError:
        return None


def test_knee_steps_are_served_by_one_server_and_end_equal_to_their_rows():
    with tempfile.TemporaryDirectory(prefix="pagebench-metrics-knee-") as directory:
        output = os.path.join(directory, "knee.csv")
        process = subprocess.Popen(
            [pagebench_binary(), "knee", "--slo", "drain_latency_corrected_p99_ns<50ms", "--from", "50",
             "--step-duration", "1s", "--max-steps", "3", "--pagers", "4", "--output", output, "--quiet", "--",
             "--service-time", "fixed:1ms", "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "60s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = process.stderr.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
            assert match, line
            port = int(match.group(1))
            final = None
            deadline = time.monotonic() + 180
            while final is None and time.monotonic() < deadline:
                text = scrape(port)
                if text and 'pagebench_phase_state{state="done"} 1' in text:
                    final = text
                time.sleep(0.2)
            assert final, "the knee's final values are served while it lingers"
        finally:
            process.terminate()
            process.communicate(timeout=120)
        rows = list(csv.DictReader(open(output, encoding="utf-8")))
        assert len(rows) == 3
        for step, row in enumerate(rows, start=1):
            match = re.search(rf'^pagebench_pages_total{{[^}}]*phase="step{step}-c4-r1"[^}}]*}} (\d+)$', final, re.M)
            assert match and int(match.group(1)) == int(row["pages"]), (step, row["pages"])
