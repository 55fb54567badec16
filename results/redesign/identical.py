#!/usr/bin/env python3
"""Behaviour of two pagebench binaries, compared byte for byte (issue 28).

    python3 results/redesign/identical.py OLD_BINARY NEW_BINARY [WORKDIR] [--only commands,runs,serve,targets,reports]

Runs the same commands with both binaries and compares:
  - every command's help text, stdout, stderr and exit code for deterministic commands
    (`pages`, `items`, `--print-scenarios`, bad input of every kind);
  - the results CSV of `run` over the CI scenario set and a few flag combinations: every
    column the registry calls deterministic, and the context columns that do not name
    the time, the build or the machine;
  - what `serve` answers (status, content type, body) to a fixed list of REST, DynamoDB
    and GraphQL requests, good and bad;
  - the CSV of `run --target` (the served store over HTTP) and `run --target-file` (a
    dynamodb, an http and a graphql target file against a served store);
  - the HTML `report` writes, byte for byte, for committed results files that between them
    draw every plot (plain rows, a limit sweep, a baseline and a current file, knee steps,
    stages with their time series, a history).
Prints one line per comparison and a total; exits 1 when anything differs.
"""
import csv
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def column_kinds():
    """Column name → kind, from docs/csv-columns.md (generated from the registry)."""
    kinds = {}
    for line in open(os.path.join(ROOT, "docs", "csv-columns.md"), encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].startswith("`") and cells[0].endswith("`"):
            kinds.setdefault(cells[0].strip("`"), cells[4])
    return kinds


KINDS = column_kinds()
# Context columns that name the moment, the build or the machine, not the behaviour.
VOLATILE_CONTEXT = {
    "timestamp_utc", "pagebench_version", "git_commit", "swift_version", "hostname", "os",
    "cpu_model", "cores", "build_configuration", "kernel", "machine", "load_average",
}


def comparable_columns(header):
    chosen = []
    for name in header:
        kind = KINDS.get(name)
        if kind == "deterministic":
            chosen.append(name)
        elif kind == "context" and name not in VOLATILE_CONTEXT and not name.endswith("_utc"):
            chosen.append(name)
    return chosen


def csv_view(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return ([], [])
    columns = comparable_columns(list(rows[0].keys()))
    return (columns, [[row[c] for c in columns] for row in rows])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Results:
    def __init__(self):
        self.same = 0
        self.different = []

    def compare(self, name, old, new):
        if old == new:
            self.same += 1
            print(f"same       {name}")
        else:
            self.different.append(name)
            print(f"DIFFERENT  {name}")
            if isinstance(old, tuple) and isinstance(new, tuple) and len(old) == 2 and isinstance(old[1], tuple) \
                    and isinstance(new[1], tuple) and old[1][0] == new[1][0]:
                columns = old[1][0]
                for a, b in zip(old[1][1], new[1][1]):
                    print("  columns:", [(c, x, y) for c, x, y in zip(columns, a, b) if x != y][:8])
                return
            print(f"  old: {str(old)[:600]}")
            print(f"  new: {str(new)[:600]}")


def run(binary, args, cwd, env=None):
    full_env = dict(os.environ)
    full_env.pop("CI", None)
    full_env["NO_COLOR"] = "1"
    if env:
        full_env.update(env)
    done = subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True, timeout=600, env=full_env)
    return done.returncode, done.stdout, done.stderr


def normalise(text, workdir):
    return text.replace(workdir, "WORKDIR")


SMALL = ["--partitions", "4", "--items-per-partition", "300", "--item-size", "uniform:100-2000"]

DETERMINISTIC_COMMANDS = [
    ["pages"] + SMALL,
    ["pages"] + SMALL + ["--filter", "match", "--limit", "50"],
    ["pages"] + SMALL + ["--filter", "category=0 and size>=1000", "--reverse"],
    ["pages"] + SMALL + ["--partition", "2", "--limit", "7"],
    ["pages"] + SMALL + ["--segment", "1/3", "--budget-bytes", "20000"],
    ["pages"] + SMALL + ["--insert-rate", "0.5", "--delete-rate", "0.3", "--limit", "40"],
    ["pages"] + SMALL + ["--continuation", "offset", "--update-rate", "1", "--limit", "40"],
    ["pages"] + SMALL + ["--throttle-rate", "0.3", "--fault-rate", "0.2"],
    ["items"] + SMALL + ["--partition", "1"],
    ["items"] + SMALL + ["--filter", "match"],
    ["pages", "--items-per-partition", "zipf:200:1.2", "--partitions", "3", "--clustering", "runs:5", "--exact-end", "final"],
    # bad input: the error text and the exit code
    ["pages", "--limit", "0"],
    ["pages", "--partitions", "-3"],
    ["pages", "--token", "not-a-token"],
    ["pages", "--filter", "colour=red"],
    ["pages", "--item-size", "lognormal:median=x"],
    ["pages", "--config", "/nonexistent/store.json"],
    ["run", "--concurrency", "0"],
    ["run", "--load", "open-fixed:-1"],
    ["run", "--stages", "bogus"],
    ["run", "--slo", "p99<"],
    ["run", "/nonexistent/scenario.json"],
    ["run", "--target", "ftp://x"],
    ["run", "--target-file", "/nonexistent/target.json"],
    ["run", "--shard", "3/2"],
    ["check", "--baseline", "/nonexistent.csv", "--current", "/nonexistent2.csv"],
    ["knee", "--slo", "nonsense"],
    ["serve", "--port", "-1"],
    ["http-bench", "--target", "nonsense"],
    ["merge"],
    ["run", "Benchmarks/Scenarios/ci", "--print-scenarios"],
    ["run", "--print-scenarios", "--concurrency", "1,4", "--filter", "match", "--stages", "ramp:2:2s,hold:2s"],
]

HELP_COMMANDS = [["--help"]] + [[c, "--help"] for c in [
    "items", "pages", "run", "knee", "check", "baseline", "compare", "report", "serve", "http-bench", "merge",
]] + [["baseline", "update", "--help"]]

RUNS = [
    ["run", "Benchmarks/Scenarios/ci", "--repetitions", "1", "--quiet"],
    ["run", "--partitions", "8", "--items-per-partition", "500", "--concurrency", "1,3", "--filter", "match",
     "--limit", "100", "--drains", "6", "--quiet", "--pager", "streaming"],
    ["run", "--partitions", "8", "--items-per-partition", "500", "--concurrency", "2", "--read", "scan:segments=4",
     "--drains", "8", "--quiet", "--pager", "apollo-loadAll", "--throttle-rate", "0.1", "--max-retries", "5"],
    ["run", "--partitions", "8", "--items-per-partition", "500", "--concurrency", "2", "--drains", "8", "--quiet",
     "--insert-rate", "0.5", "--delete-rate", "0.2", "--drain", "first:3"],
]


# Results files read by `report`: committed fixtures, and knee steps and stages measured once
# (by the old binary, into WORKDIR) and then read by both. Between them every plot, the gate's
# verdict and its refusal.
REPORT_INPUTS = [
    ["knee", "--slo", "drain_latency_corrected_p99_ns<100ms", "--from", "20", "--max-rate", "2000",
     "--step-duration", "0.5s", "--max-steps", "5", "--pagers", "8", "--output", "WORKDIR/knee.csv", "--quiet",
     "--", "--partitions", "4", "--items-per-partition", "200", "--service-time", "fixed:1ms"],
    ["run", "--partitions", "4", "--items-per-partition", "200", "--stages", "1s:0-4,1s:4",
     "--timeseries", "WORKDIR/stages-timeseries.csv", "--output", "WORKDIR/stages.csv", "--quiet",
     "--slo", "page_latency_p99_ns<50ms"],
    ["run", "--partitions", "4", "--items-per-partition", "200", "--concurrency", "8",
     "--stages", "1s:50/s-200/s,1s:200/s", "--timeseries", "WORKDIR/rate-timeseries.csv",
     "--output", "WORKDIR/rate.csv", "--quiet"],
]
REPORTS = [
    ["Tests/Fixtures/report/configurations.csv"],
    ["Tests/Fixtures/report/configurations.csv", "--timeseries", "Tests/Fixtures/report/timeseries.csv",
     "--history", "Tests/Fixtures/report/history.csv", "--title", "all <three> & more"],
    ["Tests/Fixtures/check/baseline.csv", "Tests/Fixtures/check/current-regression.csv"],
    ["Tests/Fixtures/check/baseline.csv", "Tests/Fixtures/check/current-behaviour-change.csv", "--gate-wall-clock"],
    ["Tests/Fixtures/check/baseline-schema1.csv", "Tests/Fixtures/check/current-same.csv",
     "Tests/Fixtures/check/current-busy-machine.csv"],
    ["Tests/Fixtures/check/current-same.csv", "Tests/Fixtures/check/current-same.csv"],
    ["results/baselines/ci.csv", "Tests/Fixtures/report/configurations.csv"],
    ["WORKDIR/knee.csv"],
    ["WORKDIR/knee.csv", "--slo", "drain_latency_corrected_p99_ns<50ms"],
    ["WORKDIR/stages.csv", "--timeseries", "WORKDIR/stages-timeseries.csv"],
    ["WORKDIR/stages.csv", "WORKDIR/rate.csv", "--timeseries", "WORKDIR/rate-timeseries.csv",
     "--slo", "page_latency_p99_ns<10ms"],
]


def compare_reports(results, old, new, workdir):
    for args in REPORT_INPUTS:
        code, _, err = run(old, [a.replace("WORKDIR", workdir) for a in args], ROOT)
        if code != 0:
            results.compare("report input: pagebench " + " ".join(args), (code, err), (0, ""))
    for args in REPORTS:
        outputs = []
        for tag, binary in (("old", old), ("new", new)):
            path = os.path.join(workdir, f"report-{tag}.html")
            if os.path.exists(path):
                os.remove(path)
            code, out, err = run(binary, ["report"] + [a.replace("WORKDIR", workdir) for a in args] + ["--output", path], ROOT)
            html = open(path, "rb").read() if os.path.exists(path) else None
            outputs.append((code, normalise(out, workdir).replace(f"report-{tag}", "report"), normalise(err, workdir), html))
        name = "report HTML: pagebench report " + " ".join(args)
        if outputs[0][3] is None:
            # A report that was not written compares nothing: say so rather than count it the same.
            results.compare(name + " (not written)", outputs[0][:3], (0, "written", ""))
        else:
            results.compare(name, outputs[0], outputs[1])


def compare_commands(results, old, new, workdir):
    for args in HELP_COMMANDS + DETERMINISTIC_COMMANDS:
        outputs = []
        for binary in (old, new):
            code, out, err = run(binary, args, ROOT)
            outputs.append((code, normalise(out, workdir), normalise(err, workdir)))
        results.compare("pagebench " + " ".join(args), outputs[0], outputs[1])


def compare_runs(results, old, new, workdir, extra, tag):
    for index, args in enumerate(RUNS):
        views = []
        for name, binary in (("old", old), ("new", new)):
            output = os.path.join(workdir, f"{tag}-{index}-{name}.csv")
            code, out, err = run(binary, args + extra + ["--output", output], ROOT)
            views.append((code, csv_view(output) if code == 0 and os.path.exists(output) else err))
        results.compare(f"{tag} CSV: pagebench " + " ".join(args + extra), views[0], views[1])


class Server:
    def __init__(self, binary, extra=(), port=None):
        self.port = port or free_port()
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port)] + SMALL + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        line = self.process.stdout.readline()
        if "listening" not in line:
            raise SystemExit(f"serve did not start: {line!r} {self.process.stderr.read()}")
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def request(url, method="GET", body=None, headers=None):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return answer(response.status, response.headers.get("Content-Type"), response.read().decode())
    except urllib.error.HTTPError as error:
        return answer(error.code, error.headers.get("Content-Type"), error.read().decode())


def answer(status, content_type, body):
    """Status, content type and body; a JSON body as its parsed value when it holds an
    object whose key order differs between processes of ONE binary (GraphQLSwift keeps a
    GraphQL error's `extensions` in a Swift Dictionary, whose order is seeded per process),
    else the exact text."""
    if '"extensions"' in body:
        try:
            return (status, content_type, json.loads(body))
        except ValueError:
            pass
    return (status, content_type, body)


def dynamo(target, body):
    return ("POST", "/", json.dumps(body), {
        "X-Amz-Target": f"DynamoDB_20120810.{target}", "Content-Type": "application/x-amz-json-1.0"})


def graphql(query, variables=None):
    return ("POST", "/graphql", json.dumps({"query": query, "variables": variables or {}}),
            {"Content-Type": "application/json"})


SERVE_REQUESTS = [
    ("GET", "/health", None, {}),
    ("GET", "/scan?limit=20", None, {}),
    ("GET", "/scan?limit=20&filter=match&reverse=true", None, {}),
    ("GET", "/partitions/1/items?limit=15&payload=true", None, {}),
    ("GET", "/partitions/99/items", None, {}),
    ("GET", "/scan/segments/1/3?limit=30", None, {}),
    ("GET", "/scan/segments/5/3", None, {}),
    ("GET", "/scan?limit=0", None, {}),
    ("GET", "/scan?nextToken=garbage", None, {}),
    ("GET", "/scan?filter=colour%3Dred", None, {}),
    ("GET", "/nowhere", None, {}),
    dynamo("DescribeTable", {"TableName": "items"}),
    dynamo("ListTables", {}),
    dynamo("Query", {"TableName": "items", "KeyConditionExpression": "pk = :p",
                     "ExpressionAttributeValues": {":p": {"N": "2"}}, "Limit": 11}),
    dynamo("Query", {"TableName": "items", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
                     "ExpressionAttributeValues": {":p": {"N": "2"}, ":a": {"N": "5"}, ":b": {"N": "40"}},
                     "FilterExpression": "category = :c", "ExpressionAttributeValues2": {}, "Limit": 20}),
    dynamo("Scan", {"TableName": "items", "Limit": 9, "Segment": 1, "TotalSegments": 4}),
    dynamo("Scan", {"TableName": "items", "Limit": 0}),
    dynamo("GetItem", {"TableName": "items", "Key": {"pk": {"N": "1"}, "sk": {"N": "3"}}}),
    dynamo("Query", {"TableName": "wrong"}),
    dynamo("Nope", {}),
    ("POST", "/", "{not json", {"X-Amz-Target": "DynamoDB_20120810.Scan"}),
    graphql("{ listItems(limit: 5) { items { partition sortKey sizeBytes category } nextToken } }"),
    graphql("query($t: String) { listItems(limit: 5, nextToken: $t) { nextToken } }", {"t": None}),
    graphql("{ itemsConnection(first: 4) { edges { cursor node { partition sortKey } } pageInfo { hasNextPage endCursor } } }"),
    graphql("{ listItems(limit: 5, filter: {category: {eq: 0}}) { items { sortKey } scannedCount } }"),
    graphql("{ nope }"),
    graphql("{ listItems(limit: -1) { nextToken } }"),
    graphql("{ " * 200 + "}" * 200),
    graphql("{ __schema { queryType { name } types { name kind } } }"),
    ("GET", "/graphql?query=%7B%20listItems(limit%3A%202)%20%7B%20nextToken%20%7D%20%7D", None, {}),
]


def compare_serve(results, old, new):
    answers = []
    for binary in (old, new):
        server = Server(binary)
        try:
            answers.append([request(server.url + path, method, body, headers)
                            for (method, path, body, headers) in SERVE_REQUESTS])
        finally:
            server.close()
    for index, (method, path, body, _) in enumerate(SERVE_REQUESTS):
        results.compare(f"serve {method} {path} {(body or '')[:80]}", answers[0][index], answers[1][index])


def target_files(url):
    """The four target files of Benchmarks/targets/protocols.sh, against one served store."""
    return {
        "http": {"kind": "http", "endpoint": url, "partitions": {"range": [0, 3]},
                 "path": "/partitions/${partition}/items?limit=${limit}&filter=category%3D0",
                 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"},
                 "scannedCount": "/scanned"},
        "dynamodb": {"kind": "dynamodb", "endpoint": url, "region": "us-east-1", "table": "pagebench",
                     "operation": "Query", "keyConditionExpression": "pk = :p", "filterExpression": "category = :c",
                     "expressionAttributeValues": {":p": {"N": "${partition}"}, ":c": {"N": "0"}},
                     "partitions": {"range": [0, 3]}},
        "appsync": {"kind": "graphql", "endpoint": url + "/graphql", "shape": "appsync",
                    "query": "query($p: Int, $l: Int, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t, filter: {category: {eq: 0}}) { items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount } }",
                    "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
                    "partitions": {"range": [0, 3]}, "items": "/data/listItems/items",
                    "continuation": "/data/listItems/nextToken", "scannedCount": "/data/listItems/scannedCount"},
        "relay": {"kind": "graphql", "endpoint": url + "/graphql", "shape": "relay",
                  "query": "query($p: Int, $first: Int, $after: String) { itemsConnection(partition: $p, first: $first, after: $after, filter: {category: {eq: 0}}) { edges { node { partition sortKey sizeBytes category fingerprint } } pageInfo { hasNextPage endCursor } } }",
                  "variables": {"p": "${partition}", "first": "${limit}"}, "partitions": {"range": [0, 3]},
                  "items": "/data/itemsConnection/edges", "pageInfo": "/data/itemsConnection/pageInfo"},
        "bad-pointer": {"kind": "http", "endpoint": url, "partitions": {"range": [0, 3]},
                        "path": "/partitions/${partition}/items?limit=${limit}", "items": "/nothing",
                        "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}},
    }


TARGET_RUNS = [
    ["run"] + SMALL + ["--concurrency", "1,3", "--filter", "match", "--limit", "100", "--drains", "6", "--quiet",
                       "--pager", "streaming"],
    ["run"] + SMALL + ["--concurrency", "2", "--read", "scan:segments=4", "--drains", "8", "--quiet",
                       "--pager", "apollo-loadAll"],
    ["run"] + SMALL + ["--concurrency", "2", "--drains", "8", "--quiet", "--drain", "first:3", "--reverse"],
]

TARGET_WORKLOAD = SMALL + ["--concurrency", "2", "--limit", "10", "--filter", "category=0", "--drains", "8", "--quiet"]


def compare_targets(results, old, new, workdir):
    """run --target and run --target-file, each run against a fresh `serve` of the old binary
    (a served store's injected throttling counts requests since it started)."""
    env = {"AWS_ACCESS_KEY_ID": "AKIDPAGEBENCH", "AWS_SECRET_ACCESS_KEY": "pagebench-local-secret"}
    for index, args in enumerate(TARGET_RUNS):
        views = []
        for tag, binary in (("old", old), ("new", new)):
            server = Server(old)
            try:
                output = os.path.join(workdir, f"target-{index}-{tag}.csv")
                code, out, err = run(binary, args + ["--target", server.url, "--output", output], ROOT)
                views.append((code, csv_view(output) if code == 0 and os.path.exists(output) else err))
            finally:
                server.close()
        results.compare("target CSV: pagebench " + " ".join(args) + " --target URL", views[0], views[1])
    for name in target_files("URL"):
        views = []
        port = free_port()  # the same endpoint both times: a target's hash covers its URL
        for tag, binary in (("old", old), ("new", new)):
            server = Server(old, port=port)
            try:
                os.makedirs(os.path.join(workdir, tag), exist_ok=True)
                path = os.path.join(workdir, tag, f"{name}.json")
                with open(path, "w") as f:
                    json.dump(target_files(server.url)[name], f)
                output = os.path.join(workdir, f"target-file-{name}-{tag}.csv")
                code, out, err = run(binary, ["run"] + TARGET_WORKLOAD + ["--target-file", path, "--output", output],
                                     ROOT, env)
                views.append((code, csv_view(output) if code == 0 and os.path.exists(output)
                              else re.sub(r"127\.0\.0\.1:[0-9]+", "HOST", normalise(err, workdir).replace(f"/{tag}/", "/"))))
            finally:
                server.close()
        results.compare(f"run --target-file ({name})", views[0], views[1])


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 64
    arguments = sys.argv[1:]
    only = None
    if "--only" in arguments:
        at = arguments.index("--only")
        only = set(arguments[at + 1].split(",")) if at + 1 < len(arguments) else set()
        del arguments[at:at + 2]
    old, new = os.path.abspath(arguments[0]), os.path.abspath(arguments[1])
    workdir = arguments[2] if len(arguments) > 2 else tempfile.mkdtemp(prefix="pagebench-identical-")
    os.makedirs(workdir, exist_ok=True)
    results = Results()
    comparisons = {
        "commands": lambda: compare_commands(results, old, new, workdir),
        "runs": lambda: compare_runs(results, old, new, workdir, [], "run"),
        "serve": lambda: compare_serve(results, old, new),
        "targets": lambda: compare_targets(results, old, new, workdir),
        "reports": lambda: compare_reports(results, old, new, workdir),
    }
    unknown = (only or set()) - comparisons.keys()
    if unknown:
        print(f"--only takes {', '.join(comparisons)}; not {', '.join(sorted(unknown))}")
        return 64
    for name, compare in comparisons.items():
        if only is None or name in only:
            compare()
    print(f"\n{results.same} same, {len(results.different)} different")
    for name in results.different:
        print(f"  different: {name}")
    return 1 if results.different else 0


if __name__ == "__main__":
    sys.exit(main())
