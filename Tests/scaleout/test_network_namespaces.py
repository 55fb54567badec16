"""Workers on other hosts (issue 38): `serve` in one Linux network namespace, two shard
workers in two others, joined by veth pairs to a bridge that lives in a fourth namespace,
every namespace made by this test. Nothing is added to the machine's own namespace: each
veth pair is created inside the bridge's namespace with its peer moved straight into the
host's, and addresses exist only inside the namespaces. Deleting the namespaces removes
everything (their veths and the bridge go with them); the fixture does it also when the
test fails.

The workers start together with `--start-at`, write shard files, and `pagebench merge`
combines them: the deterministic columns equal one process's run of the same scenario, and
the merged percentiles are those of the shards' histograms added bucket by bucket.

Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and iproute2's `ip`; skipped, with the reason,
where namespaces cannot be made."""
import csv
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import time

import pytest

from pagebench_support import pagebench_binary

SUBNET = "10.38.{}.{}"
PORT = 8038
DETERMINISTIC = ["drains", "pages", "items", "scanned_items", "scanned_bytes", "empty_pages_wasted",
                 "empty_pages_final", "pages_per_drain_mean", "pages_per_drain_max", "target_drains", "concurrency"]


def ip(*arguments, check=True):
    return subprocess.run(["ip", *arguments], capture_output=True, text=True, timeout=30, check=check)


class Namespaces:
    """Four namespaces named after this process: `br` (the bridge), `srv`, `w0`, `w1`."""

    def __init__(self):
        prefix = f"pb38-{os.getpid()}"
        self.names = {role: f"{prefix}-{role}" for role in ("br", "srv", "w0", "w1")}
        self.addresses = {role: SUBNET.format(os.getpid() % 250, index + 1)
                          for index, role in enumerate(("srv", "w0", "w1"))}
        self.made = []

    def make(self):
        bridge = self.names["br"]
        for role, name in self.names.items():
            ip("netns", "add", name)
            self.made.append(name)
        ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        ip("-n", bridge, "link", "set", "br0", "up")
        for role, address in self.addresses.items():
            host = self.names[role]
            # Made inside the bridge's namespace, its peer moved into the host's at once.
            ip("-n", bridge, "link", "add", f"to-{role}", "type", "veth", "peer", "name", "eth0", "netns", host)
            ip("-n", bridge, "link", "set", f"to-{role}", "master", "br0")
            ip("-n", bridge, "link", "set", f"to-{role}", "up")
            ip("-n", host, "addr", "add", f"{address}/24", "dev", "eth0")
            ip("-n", host, "link", "set", "eth0", "up")
            ip("-n", host, "link", "set", "lo", "up")

    def remove(self):
        failures = []
        for name in reversed(self.made):
            result = ip("netns", "del", name, check=False)
            if result.returncode != 0:
                failures.append(f"{name}: {result.stderr.strip()}")
        self.made = []
        return failures

    def command(self, role, *arguments):
        return ["ip", "netns", "exec", self.names[role], *arguments]


def namespaces_unavailable():
    if os.geteuid() != 0:
        return "needs root to make network namespaces (ip netns add); run as root or in CI"
    if shutil.which("ip") is None:
        return "needs iproute2's `ip` (apt-get install iproute2; .ci/install-deps installs it)"
    probe = f"pb38-probe-{os.getpid()}"
    result = ip("netns", "add", probe, check=False)
    if result.returncode != 0:
        return f"cannot make a network namespace here: ip netns add: {result.stderr.strip()}"
    ip("netns", "del", probe, check=False)
    return None


@pytest.fixture
def namespaces():
    reason = namespaces_unavailable()
    if reason:
        pytest.skip(reason)
    made = Namespaces()
    try:
        made.make()
        yield made
    finally:
        failures = made.remove()
        assert not failures, "could not remove the test's namespaces: " + "; ".join(failures)
        left = ip("netns", "list").stdout
        assert not any(name in left for name in made.names.values()), left


def bucket_width(value):
    """Width of the HdrHistogram bucket (3 significant digits, lowest value 1) starting at `value`."""
    bucket = max(0, (value | 2047).bit_length() - 11)
    return 1 << bucket


def parse_histogram(text):
    tokens = text.split()
    assert tokens[0] == "hdr1", text
    header = dict(token.split("=", 1) for token in tokens[1:] if "=" in token)
    buckets = {}
    for token in tokens[1:]:
        if "=" not in token:
            value, count = token.split(":")
            buckets[int(value)] = buckets.get(int(value), 0) + int(count)
    return int(header["total"]), int(header["max"]), buckets


def percentile(buckets, total, maximum, p):
    """HdrHistogram's valueAtPercentile over added buckets (what `merge` must report)."""
    if p >= 100:
        return maximum
    rank = max(1, math.ceil(math.nextafter(p, 0) * total / 100))
    seen = 0
    for value in sorted(buckets):
        seen += buckets[value]
        if seen >= rank:
            return min(value + bucket_width(value) - 1, maximum)
    return 0


def rows(path):
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_shard_workers_in_other_namespaces_merge_to_one_process(namespaces, tmp_path):
    binary = pagebench_binary()
    scenario = ["--concurrency", "6", "--drains", "300", "--items-per-partition", "60", "--partitions", "20",
                "--seed", "38", "--warmup", "0", "--quiet"]
    server = subprocess.Popen(
        namespaces.command("srv", binary, "serve", "--host", namespaces.addresses["srv"], "--port", str(PORT),
                           "--items-per-partition", "60", "--partitions", "20", "--seed", "38"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    workers = []
    try:
        line = server.stdout.readline()
        assert re.search(r"listening on http://[\d.]+:\d+", line), line + server.stderr.read()
        target = f"http://{namespaces.addresses['srv']}:{PORT}"
        shards = tmp_path / "shards"
        start = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)).strftime(
            "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        for index, role in enumerate(("w0", "w1")):
            workers.append(subprocess.Popen(
                namespaces.command(role, binary, "run", *scenario, "--target", target, "--shard", f"{index}/2",
                                   "--start-at", start, "--shard-output", str(shards)),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for worker in workers:
            out, err = worker.communicate(timeout=300)
            assert worker.returncode == 0, err[-2000:]
        merged = tmp_path / "merged.csv"
        result = subprocess.run([binary, "merge", str(shards), "--output", str(merged), "--quiet"],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
        # One process, from the first worker's namespace, against the same server.
        single = tmp_path / "single.csv"
        result = subprocess.run(namespaces.command("w0", binary, "run", *scenario, "--target", target,
                                                   "--output", str(single)),
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
    finally:
        for process in workers + [server]:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)

    merged_row, = rows(merged)
    single_row, = rows(single)
    for column in DETERMINISTIC:
        assert merged_row[column] == single_row[column], (column, merged_row[column], single_row[column])
    assert int(merged_row["pages"]) > 0

    # The merged percentiles are those of the shards' histograms added bucket by bucket.
    files = sorted(shards.glob("shard-*-of-2.json"))
    assert len(files) == 2
    hosts = set()
    for kind, column in (("page", "page_latency"), ("drain", "drain_latency")):
        total, maximum, buckets = 0, 0, {}
        for path in files:
            document = json.loads(path.read_text(encoding="utf-8"))
            phase, = document["phases"]
            # Shard format 2: the phase's TaskMetrics as it codes itself (docs/scaling-out.md).
            shard_total, shard_max, shard_buckets = parse_histogram(phase["metrics"][f"{kind}Latency"])
            total += shard_total
            maximum = max(maximum, shard_max)
            for value, count in shard_buckets.items():
                buckets[value] = buckets.get(value, 0) + count
            hosts.add(document["shard"]["index"])
        assert total == int(merged_row["pages" if kind == "page" else "drains"])
        for suffix, p in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9), ("max", 100)):
            assert int(merged_row[f"{column}_{suffix}_ns"]) == percentile(buckets, total, maximum, p), (kind, suffix)
    assert hosts == {0, 1}
