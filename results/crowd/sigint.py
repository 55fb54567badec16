"""Issue 38: SIGINT to `run` with a crowd of pagers; how long from the signal to the process's
exit with its CSV written. Usage: sigint.py BIN PAGERS CSV"""
import csv
import os
import signal
import subprocess
import sys
import time

binary, pagers, path = sys.argv[1], sys.argv[2], sys.argv[3]
if os.path.exists(path):
    os.remove(path)


def default_signals():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


started = time.monotonic()
process = subprocess.Popen([binary, "run", "--concurrency", pagers, "--duration", "600", "--warmup", "0",
                            "--output", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=default_signals)
for line in process.stderr:
    if "measuring" in line:
        break
measuring = time.monotonic()
process.send_signal(signal.SIGINT)
out, err = process.communicate(timeout=120)
ended = time.monotonic()
row = list(csv.DictReader(open(path)))[0]
print(f"{pagers} pagers: first progress line {measuring - started:.2f} s after the process started; "
      f"SIGINT to exit {ended - measuring:.3f} s; exit status {process.returncode}; "
      f"CSV row partial={row['partial']} pages={row['pages']} cancellations={row['cancellations']} "
      f"cancel_latency_p99_ns={row['cancel_latency_p99_ns']} peak_rss_bytes={row['peak_rss_bytes']}")
print(out.strip())
