"""Issue 38: PAGERS pagers, each with its own connection, against `pagebench serve`, through
`run --target-file` (the target's REST endpoint), and `serve`'s /health asked every 200 ms
while the run holds them.

Usage: connections.py BIN PAGERS OUTDIR [--duration SECONDS] [--health-port] [--label NAME]

Without --duration the run makes PAGERS drains of 20 pages (each pager one; exact counts);
with it, each pager drains for that long, so the connections are held and busy for the whole
phase. With --health-port, `serve --health-port 0` and the probe asks both the store's port
and the health port (each every 200 ms, each on its own thread, one new connection a probe,
as a Kubernetes probe does); without, the store's port only.

Each probe times its connect (SYN to established) and its whole answer (connect to the last
byte), with a 10 s timeout; a probe is ok when the answer is 200 with {"status": "ok"}. A
sampler (its own thread, every 0.5 s) reads the established connections to the store's port
and the listener's accept queue (`ss`: Recv-Q waiting to be accepted, Send-Q the backlog; the
connections the server has accepted are the established ones less that queue) and the
server's VmRSS. The kernel's TCP counters (ListenOverflows, ListenDrops, TCPSynRetrans,
SyncookiesSent: the whole machine's, read before and after) say whether connections waited
for the accept queue. Writes OUTDIR/connections-PAGERS[-LABEL].csv (the run's rows),
…-probes.csv (every probe), …-samples.csv (every sample) and prints the summary.
"""
import argparse
import csv
import json
import os
import re
import socket
import subprocess
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("pagers", type=int)
parser.add_argument("out")
parser.add_argument("--duration", type=float)
parser.add_argument("--health-port", action="store_true")
parser.add_argument("--label", default="")
arguments = parser.parse_args()
binary, pagers, out = arguments.binary, arguments.pagers, arguments.out
pages_per_drain = 20
probe_every, probe_timeout, sample_every = 0.2, 10.0, 0.5
name = f"connections-{pagers}" + (f"-{arguments.label}" if arguments.label else "")


def rss(pid):
    with open(f"/proc/{pid}/status") as handle:
        return int(re.search(r"VmRSS:\s+(\d+) kB", handle.read()).group(1)) * 1024


def tcp_counters():
    """TcpExt's and Tcp's counters by name (/proc/net/netstat, /proc/net/snmp)."""
    counters = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        with open(path) as handle:
            lines = handle.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2]):
            prefix, names = names.split(":", 1)
            counters.update({f"{prefix}{n}": int(v) for n, v in zip(names.split(), values.split(":", 1)[1].split())})
    return counters


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


serve = [binary, "serve", "--port", "0"] + (["--health-port", "0"] if arguments.health_port else [])
server = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
banner = server.stdout.readline()
endpoint = re.search(r"listening on (http://([\d.]+):(\d+))", banner)
url, host, port = endpoint.group(1), endpoint.group(2), int(endpoint.group(3))
listeners = {"store port": port}
if arguments.health_port:
    listeners["health port"] = int(re.search(r"/health also on http://[\d.]+:(\d+)/health", banner).group(1))
time.sleep(1)
server_idle = rss(server.pid)
target = os.path.join(out, "connections-target.json")
with open(target, "w") as handle:
    json.dump({"kind": "http", "name": "served", "endpoint": url, "partitions": {"range": [0, 63]},
               "path": "/partitions/${partition}/items?limit=${limit}", "items": "/items",
               "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned",
               "timeoutSeconds": 60}, handle, indent=2)
csv_path = os.path.join(out, f"{name}.csv")
stop = threading.Event()
began = time.monotonic()
probes, samples = [], []
request = b"GET /health HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host.encode()


def probe(listener, probe_port):
    while not stop.is_set():
        start = time.monotonic()
        connected, ok, error = None, False, ""
        try:
            with socket.create_connection((host, probe_port), timeout=probe_timeout) as connection:
                connected = time.monotonic()
                connection.settimeout(max(0.001, probe_timeout - (connected - start)))
                connection.sendall(request)
                answer = b""
                while chunk := connection.recv(65536):
                    answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            ok = head.startswith(b"HTTP/1.1 200") and json.loads(body)["status"] == "ok"
            error = "" if ok else head.split(b"\r\n")[0].decode(errors="replace")
        except Exception as failure:
            error = type(failure).__name__
        end = time.monotonic()
        probes.append({"listener": listener, "at_s": round(start - began, 3),
                       "connect_s": round(connected - start, 6) if connected else "",
                       "total_s": round(end - start, 6), "ok": int(ok), "error": error})
        stop.wait(max(0.0, probe_every - (end - start)))


def sample():
    while not stop.is_set():
        at = time.monotonic() - began
        established = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                                     capture_output=True, text=True).stdout.count("\n")
        listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout.split()
        waiting = int(listening[1])
        samples.append({"at_s": round(at, 3), "established": established, "accept_queue": waiting,
                        "accepted": established - waiting, "backlog": int(listening[2]),
                        "server_rss_bytes": rss(server.pid)})
        stop.wait(sample_every)


threads = [threading.Thread(target=sample)] + [threading.Thread(target=probe, args=item) for item in listeners.items()]
counters_before = tcp_counters()
for thread in threads:
    thread.start()
bound = ["--duration", str(arguments.duration)] if arguments.duration else ["--drains", str(pagers)]
command = [binary, "run", "--target-file", target, "--concurrency", str(pagers), *bound,
           "--drain", f"first:{pages_per_drain}", "--warmup", "0", "--quiet", "--output", csv_path]
run = subprocess.run(command, capture_output=True, text=True)
run_seconds = time.monotonic() - began
stop.set()
for thread in threads:
    thread.join()
counters_after = tcp_counters()
server.terminate()
server.wait(timeout=30)

if run.returncode != 0 or not samples:
    raise SystemExit(f"the run exited {run.returncode} ({len(samples)} samples): {run.stderr[-2000:]}")
for rows, suffix in ((probes, "probes"), (samples, "samples")):
    if not rows:
        continue
    with open(os.path.join(out, f"{name}-{suffix}.csv"), "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

print(run.stderr[-2000:], end="")
row = list(csv.DictReader(open(csv_path)))[0]
client_base = 45 << 20  # a process with one pager (results/crowd.md)
held = max(s["accepted"] for s in samples)
all_held_at = next((s["at_s"] for s in samples if s["accepted"] >= pagers), None)
print(f"$ {' '.join(serve)}\n$ {' '.join(command)}")
print(f"exit {run.returncode}; phase {row['duration_s']} s, process {run_seconds:.1f} s; pages {row['pages']}, "
      f"drains {row['drains']} ({pages_per_drain} pages each; {int(row['drains']) * pages_per_drain} pages), "
      f"errors {sum(int(v) for k, v in row.items() if k.startswith('errors_') and v)}, "
      f"http_responses {row['http_responses']}")
when = f"all {pagers} first at {all_held_at} s" if all_held_at is not None else f"never all {pagers}"
print(f"established connections to the store's port, most seen at once: "
      f"{max(s['established'] for s in samples)}; accepted by the server (established less the accept queue), "
      f"most at once: {held}; {when}")
late = [s["accept_queue"] for s in samples if s["at_s"] >= 5]
print(f"accept queue (ss Recv-Q) longest seen: {max(s['accept_queue'] for s in samples)} "
      f"of a backlog of {samples[0]['backlog']}; from 5 s on: {min(late, default=0)} to {max(late, default=0)}")
print("kernel TCP counters over the run (whole machine): " + ", ".join(
    f"{key} +{counters_after.get(key, 0) - counters_before.get(key, 0)}"
    for key in ("TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPSynRetrans", "TcpExtSyncookiesSent",
                "TcpRetransSegs")))
peak = max(s["server_rss_bytes"] for s in samples)
print(f"server VmRSS idle {server_idle} B, most while held {peak} B: {(peak - server_idle) / max(1, held):.0f} B "
      "per accepted connection")
print(f"client peak_rss_bytes {row['peak_rss_bytes']}: "
      f"{(int(row['peak_rss_bytes']) - client_base) / pagers:.0f} B per pager and connection above a 45 MiB base")
for listener in listeners:
    for phase, chosen in (("all", lambda p: True),
                          ("until the server had accepted all", lambda p: all_held_at is None or p["at_s"] < all_held_at),
                          ("once it had", lambda p: all_held_at is not None and p["at_s"] >= all_held_at)):
        mine = [p for p in probes if p["listener"] == listener and chosen(p)]
        if not mine:
            continue
        answered = [p for p in mine if p["ok"]]
        connects = [p["connect_s"] for p in mine if p["connect_s"] != ""]
        totals = [p["total_s"] for p in answered]
        ms = lambda values, fraction: f"{percentile(values, fraction) * 1000:.1f}"
        print(f"/health on the {listener}, {phase}: {len(answered)} of {len(mine)} ok, {len(mine) - len(answered)} "
              f"failed{' (' + ', '.join(sorted({p['error'] for p in mine if not p['ok']})) + ')' if len(answered) < len(mine) else ''}; "
              f"connect p50/p99/max {ms(connects, 0.5)}/{ms(connects, 0.99)}/{ms(connects, 1.0)} ms; "
              f"answer p50/p99/max {ms(totals, 0.5)}/{ms(totals, 0.99)}/{ms(totals, 1.0)} ms")
