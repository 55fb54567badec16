"""`run --timeseries FILE` writes each row as its interval ends (issue 36): while the run
goes, the file already holds the seconds that passed (what `tail -f` shows); an interrupted
run keeps them. Nothing is timed; every wait has a limit against a hang."""
import csv
import os
import signal
import subprocess
import tempfile
import time

from pagebench_support import default_signals, pagebench_binary


def data_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_rows_are_in_the_file_while_the_run_goes_and_stay_after_a_signal():
    with tempfile.TemporaryDirectory(prefix="pagebench-timeseries-") as directory:
        series = os.path.join(directory, "ts.csv")
        output = os.path.join(directory, "out.csv")
        process = subprocess.Popen(
            [pagebench_binary(), "run", "--duration", "60s", "--warmup", "0", "--concurrency", "2", "--quiet",
             "--service-time", "fixed:1ms", "--timeseries", series, "--output", output],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_signals)
        try:
            deadline = time.monotonic() + 120
            while len(data_rows(series)) < 2 and time.monotonic() < deadline:
                assert process.poll() is None, process.stderr.read()
                time.sleep(0.2)
            seen = data_rows(series)
            # The run is still going (60 s) and two seconds are already in the file.
            assert process.poll() is None
            assert len(seen) >= 2
            assert [float(row["elapsed_s"]) for row in seen] == sorted(float(row["elapsed_s"]) for row in seen)
            assert all(float(row["pages_per_s"]) > 0 for row in seen)
        finally:
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        kept = data_rows(series)
        # Nothing written was lost: the rows seen are still there, first, unchanged.
        assert kept[:len(seen)] == seen
        rows = list(csv.DictReader(open(output, encoding="utf-8")))
        assert len(rows) == 1 and rows[0]["partial"] == "1"
