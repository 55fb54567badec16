"""Issue 38: 10,000 pagers, each with its own connection, against `pagebench serve`, through
`run --target-file` (the target's REST endpoint). While the run holds its connections this
samples the established connections to the server's port (ss), the server's resident memory
(VmRSS) and asks the server's /health every 200 ms. Usage: connections.py BIN PAGERS OUTDIR"""
import csv
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

binary, pagers, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pages_per_drain = 20


def rss(pid):
    with open(f"/proc/{pid}/status") as handle:
        return int(re.search(r"VmRSS:\s+(\d+) kB", handle.read()).group(1)) * 1024


server = subprocess.Popen([binary, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = server.stdout.readline()
endpoint = re.search(r"listening on (http://[\d.]+:(\d+))", line)
url, port = endpoint.group(1), endpoint.group(2)
time.sleep(1)
server_idle = rss(server.pid)
target = os.path.join(out, "connections-target.json")
with open(target, "w") as handle:
    json.dump({"kind": "http", "name": "served", "endpoint": url, "partitions": {"range": [0, 63]},
               "path": "/partitions/${partition}/items?limit=${limit}", "items": "/items",
               "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned",
               "timeoutSeconds": 60}, handle, indent=2)
csv_path = os.path.join(out, f"connections-{pagers}.csv")
stop = threading.Event()
samples = {"connections": 0, "server_rss": server_idle, "health_ok": 0, "health_failed": 0, "health_max_s": 0.0}


def sample():
    while not stop.is_set():
        established = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                                     capture_output=True, text=True).stdout.count("\n")
        samples["connections"] = max(samples["connections"], established)
        samples["server_rss"] = max(samples["server_rss"], rss(server.pid))
        began = time.monotonic()
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as response:
                ok = response.status == 200 and json.load(response)["status"] == "ok"
        except Exception:
            ok = False
        samples["health_ok" if ok else "health_failed"] += 1
        samples["health_max_s"] = max(samples["health_max_s"], time.monotonic() - began)
        stop.wait(0.2)


sampler = threading.Thread(target=sample)
sampler.start()
run = subprocess.run([binary, "run", "--target-file", target, "--concurrency", str(pagers), "--drains", str(pagers),
                      "--drain", f"first:{pages_per_drain}", "--warmup", "0", "--quiet", "--output", csv_path],
                     capture_output=True, text=True)
stop.set()
sampler.join()
server.terminate()
server.wait(timeout=30)
print(run.stderr[-2000:], end="")
row = list(csv.DictReader(open(csv_path)))[0]
client_base = 45 << 20  # a process with one pager (results/crowd.md)
print(f"exit {run.returncode}; pages {row['pages']} (expected {pagers * pages_per_drain}), drains {row['drains']}, "
      f"errors {sum(int(v) for k, v in row.items() if k.startswith('errors_') and v)}, http_responses {row['http_responses']}")
print(f"established connections to the server, most seen at once: {samples['connections']}")
print(f"server VmRSS idle {server_idle} B, most while held {samples['server_rss']} B: "
      f"{(samples['server_rss'] - server_idle) / max(1, samples['connections']):.0f} B per connection")
print(f"client peak_rss_bytes {row['peak_rss_bytes']}: "
      f"{(int(row['peak_rss_bytes']) - client_base) / pagers:.0f} B per pager and connection above a 45 MiB base")
print(f"/health while held: {samples['health_ok']} answered ok, {samples['health_failed']} failed, "
      f"slowest {samples['health_max_s'] * 1000:.0f} ms")
