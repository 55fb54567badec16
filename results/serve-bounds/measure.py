#!/usr/bin/env python3
"""What one hostile request costs `pagebench serve` (W7, issue 24).

For each request class below, starts a fresh release `pagebench serve` (default store and
bounds, or SERVE_OPTIONS), sends the request REPEAT times, one at a time, and records the
most CPU one request cost the server (utime + stime from /proc/PID/stat, before and after),
the server's peak RSS (VmHWM) and its RSS at rest, with the answer it got; then checks that
the server still answers /health. The classes are issue 24's (duplicate operations, string forms hiding
nesting, nested list literals, quadratic validation, 100 aliased listItems(limit: 1000)),
the largest requests each bound still lets through (the costliest accepted), and bodies up to
1 MiB of everything else. The goal: no request costs more than 1 s of CPU or 256 MiB.

    python3 results/serve-bounds/measure.py [REPEAT] > results/serve-bounds/serve-bounds-DATE.md

PAGEBENCH_BIN=path runs that binary instead of .build/release/pagebench.
"""
import http.client
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("PAGEBENCH_BIN", os.path.join(ROOT, ".build/release/pagebench"))
REPEAT = int(sys.argv[1]) if len(sys.argv) > 1 else 3
MIB = 1 << 20
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def status_kib(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def largest(make, limit=MIB):
    """`make(n)` for the largest n whose encoded request body is at most `limit` bytes."""
    low, high = 1, 1
    while len(make(high)[2] or b"") <= limit:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if len(make(middle)[2] or b"") <= limit:
            low = middle
        else:
            high = middle
    return make(low)


def graphql(query, variables=None, operation=None):
    body = {"query": query}
    if variables is not None:
        body["variables"] = variables
    if operation:
        body["operationName"] = operation
    return ("POST", "/graphql", json.dumps(body).encode(), {"Content-Type": "application/json"})


def dynamodb(operation, body):
    return ("POST", "/", json.dumps(body).encode(),
            {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{operation}"})


ITEM = "items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount"
FORM = '""" \\""" """'  # the block string form that fooled the old bracket counter


def classes():
    """(name, request) pairs; a request is (method, path, body, headers)."""
    fragments = lambda n, roots: graphql(
        "{ " + roots + " }\n" + "\n".join(f"fragment A{i} on Query {{ ...A{i+1} ...B{i+1} }} fragment B{i} on Query {{ ...A{i+1} ...B{i+1} }}"
                                       for i in range(n)) + f"\nfragment A{n} on Query {{ __typename }} fragment B{n} on Query {{ __typename }}")
    yield "duplicate operation names (killed serve: SIGILL)", graphql("query A { __typename }\n query A { __typename }")
    yield "duplicate anonymous operations x 10,000 (330 KB)", graphql("{ __typename @skip(if: false) }\n" * 10_000)
    yield "a \\u escape cut short at the end (killed serve)", graphql('{ listItems(nextToken: "\\u12')
    yield "string form, then [ up to 1 MiB (killed serve: SIGSEGV)", largest(
        lambda n: graphql("{ a(b: [ " + FORM + " " + "[" * n + "]" * n + " ]) }"))
    yield "string form, then nested selections up to 1 MiB", largest(
        lambda n: graphql('{ a(b: "a""b") ' + "{ a " * n + "}" * (n + 1)))
    yield "62 nested list literals (180 B; 2 min of CPU before)", graphql(
        "{ listItems(limit: " + "[" * 62 + "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21" + "]" * 62 + ") { scannedCount } }")
    yield "30 nested list literals around 1 MiB of values", largest(
        lambda n: graphql("{ listItems(limit: " + "[" * 30 + "1, " * n + "1" + "]" * 30 + ") { scannedCount } }"))
    yield "30 nested list literals around 14,000 values (under the token bound)", graphql(
        "{ listItems(limit: " + "[" * 30 + "1, " * 14_000 + "1" + "]" * 30 + ") { scannedCount } }")
    yield "{ __typename @skip(if: false) } x 100 (at the definitions bound)", graphql("{ __typename @skip(if: false) }\n" * 100)
    yield "unused fragments up to 1 MiB", largest(
        lambda n: graphql("".join(f"fragment F{i} on Query {{ __typename }}\n" for i in range(n)) + "{ __typename }"))
    yield "100 unused fragments after a comment, up to 1 MiB", largest(
        lambda n: graphql("#" + "x" * n + "\n" + "".join(f"fragment F{i} on Query {{ __typename }}\n" for i in range(99)) + "{ __typename }"))
    yield "unused variable definitions up to 1 MiB", largest(
        lambda n: graphql("query(" + ", ".join(f"$v{i}: Int" for i in range(n)) + ") { __typename }"))
    yield "3,700 unused variables (under the token bound)", graphql(
        "query(" + ", ".join(f"$v{i}: Int" for i in range(3_700)) + ") { __typename }")
    yield "3,700 unused variables after 1 MiB of comment lines", largest(
        lambda n: graphql("#\n" * n + "query(" + ", ".join(f"$v{i}: Int" for i in range(3_700)) + ") { __typename }"))
    yield "1,999 unknown fields after 1 MiB of comment lines", largest(
        lambda n: graphql("#\n" * n + "{" + " a" * 1_999 + " }"))
    yield "1 MiB of comment lines, then an invalid field", largest(lambda n: graphql("#\n" * n + "{ nope }"))
    yield "1 MiB of comment lines, then a syntax error", largest(lambda n: graphql("#\n" * n + "{ listItems(limit: ) }"))
    yield "1 MiB string literal argument", largest(lambda n: graphql('{ listItems(nextToken: "' + "A" * n + '") { scannedCount } }'))
    yield "1 MiB block string of line breaks", largest(
        lambda n: graphql('{ listItems(nextToken: """' + "\n" * n + '""") { scannedCount } }'))
    yield "1 MiB block string of line breaks, then a syntax error", largest(
        lambda n: graphql('{ listItems(nextToken: """' + "\n" * n + '""") { scannedCount } ]'))
    yield "100 aliased listItems(limit: 1000) (3.5 GB before)", graphql(
        "{ " + " ".join(f"a{i}: listItems(limit: 1000) {{ {ITEM} }}" for i in range(100)) + " }")
    yield "fragment fan-out 2^20", fragments(20, "...A0 ...B0")
    yield "[ up to 1 MiB (depth bound)", largest(lambda n: graphql("[" * n))
    yield "fields up to 1 MiB (token bound)", largest(lambda n: graphql("{" + " a" * n + " }"))
    yield "variables nested 40 deep (depth bound)", graphql(
        "query($f: ItemFilterInput) { listItems(filter: $f) { scannedCount } }", {"f": json.loads('{"not": ' * 40 + "{}" + "}" * 40)})
    yield "GET /graphql with a 1 MiB query string", ("GET", "/graphql?query=" + "%7B" * (MIB // 3), None, {})
    # The costliest requests the default bounds accept.
    yield "accepted: standard introspection query", graphql(INTROSPECTION)
    yield "accepted: 7 aliases of the introspection types (cost 9,700)", graphql(
        "{ " + " ".join(f"a{i}: __schema {{ types {{ ...FullType }} }}" for i in range(7)) + " }\n"
        + INTROSPECTION[INTROSPECTION.index("fragment FullType"):])
    yield "accepted: nested introspection lists", graphql(
        "{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }")
    yield "accepted: listItems(limit: 1650), 5 fields, generic executor", graphql(
        "{ listItems(limit: 1650) @skip(if: false) { " + ITEM + " } }")
    yield "accepted: listItems(limit: 1650), 5 fields, compiled", graphql("{ listItems(limit: 1650) { " + ITEM + " } }")
    yield "accepted: 100 aliases of listItems(limit: 15), generic", graphql(
        "{ " + " ".join(f"a{i}: listItems(limit: 15) @skip(if: false) {{ {ITEM} }}" for i in range(100)) + " }")
    yield "accepted: 100 aliases of itemsConnection(first: 11) with cursors, generic", graphql(
        "{ " + " ".join(f"a{i}: itemsConnection(first: 11) @skip(if: false) {{ edges {{ cursor node {{ partition sortKey sizeBytes "
                        f"category fingerprint }} }} pageInfo {{ hasNextPage endCursor }} }}" for i in range(100)) + " }")
    yield "accepted: 2,000 aliased __typename (fields bound)", graphql(
        "{ " + " ".join(f"a{i}: __typename" for i in range(100)) + " " + " __typename" * 1_900 + " }")
    yield "accepted: 14,999 tokens of one literal list", graphql("{ listItems(limit: [" + "1 " * 14_985 + "]) { scannedCount } }")
    yield "accepted: 1,999 unknown fields (errors at the fields bound)", graphql("{" + " a" * 1_999 + " }")
    yield "accepted: fragment fan-out under the fields bound", fragments(9, "...A0 ...B0")
    # DynamoDB and REST.
    yield "DynamoDB: ExpressionAttributeValues up to 1 MiB", largest(lambda n: dynamodb("Scan", {
        "TableName": "pagebench", "FilterExpression": "category = :v0",
        "ExpressionAttributeValues": {f":v{i}": {"N": "1"} for i in range(n)}}))
    yield "DynamoDB: 2,000 nested parentheses in a FilterExpression", dynamodb("Scan", {
        "TableName": "pagebench", "Limit": 10, "FilterExpression": "(" * 2000 + "category = :c" + ")" * 2000,
        "ExpressionAttributeValues": {":c": {"N": "1"}}})
    yield "DynamoDB: NOT x 1,000 in a FilterExpression", dynamodb("Scan", {
        "TableName": "pagebench", "Limit": 10, "FilterExpression": "NOT " * 1000 + "category = :c",
        "ExpressionAttributeValues": {":c": {"N": "1"}}})
    yield "DynamoDB: 4 KB FilterExpression of 230 ORs over a whole budget page", dynamodb("Scan", {
        "TableName": "pagebench", "FilterExpression": " OR ".join(["category = :c"] * 230),
        "ExpressionAttributeValues": {":c": {"N": "1"}}})
    yield "DynamoDB: Scan without Limit (a whole 1 MiB budget page)", dynamodb("Scan", {"TableName": "pagebench"})
    yield "DynamoDB: ProjectionExpression up to 1 MiB", largest(
        lambda n: dynamodb("Scan", {"TableName": "pagebench", "ProjectionExpression": "pk, " * n + "sk"}))
    yield "DynamoDB: JSON nested 70 deep", ("POST", "/", ('{"TableName": "pagebench", "X": ' + "[" * 70 + "]" * 70 + "}").encode(),
                                              {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.Scan"})
    yield "REST: scan, limit 1,000,000 (a whole budget page)", ("GET", "/scan?limit=1000000", None, {})
    yield "REST: 4 KB filter of 200 ORs over a whole budget page", (
        "GET", "/scan?limit=1000000&filter=" + "%20or%20".join(["category%3D1"] * 200), None, {})
    yield "REST: 1 MiB URL", ("GET", "/scan?filter=" + "x" * MIB, None, {})


INTROSPECTION = """query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
  types { ...FullType } directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue } interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name ofType { kind name } } } } } } } }"""


def summary(status, body):
    """What the answer was, in a few words."""
    try:
        data = json.loads(body)
    except ValueError:
        return f"{status} (not JSON: {body[:60]!r})"
    if isinstance(data, dict) and data.get("errors"):
        error = data["errors"][0]
        extensions = error.get("extensions") or {}
        label = extensions.get("bound") or extensions.get("code") or error.get("message", "")[:50]
        return f"{status} {label}"
    if isinstance(data, dict) and "__type" in data:
        return f"{status} {data['__type'].split('#')[-1]}: {data.get('message', '')[:60]}"
    if isinstance(data, dict) and "code" in data and "message" in data:
        return f"{status} {data['code']}: {data['message'][:60]}"
    return f"{status} ok ({len(body)} bytes)"


def start(options):
    """A fresh `serve` (so that each class's peak is its own), its port, and its RSS at rest."""
    server = subprocess.Popen([BIN, "serve", "--port", "0", *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = int(re.search(r":(\d+) ", server.stdout.readline()).group(1))
    time.sleep(0.5)
    return server, port, status_kib(server.pid, "VmRSS") / 1024


def send(port, method, path, body, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return summary(response.status, response.read())
    except (OSError, http.client.HTTPException) as error:
        return f"no answer: {error!r}"
    finally:
        connection.close()


def main():
    options = os.environ.get("SERVE_OPTIONS", "").split()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} commit {commit}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; {os.path.relpath(BIN, ROOT)} serve --port 0 {' '.join(options)}; "
          f"a fresh server per request class, {REPEAT} requests each\n")
    print("| request | body bytes | answer | CPU s (most of one request) | peak RSS MiB | RSS at rest MiB |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    worst_cpu = worst_rss = 0.0
    for name, (method, path, body, headers) in classes():
        server, port, rest = start(options)
        pid = server.pid
        cpu = 0.0
        answer = ""
        for _ in range(REPEAT):
            before = cpu_seconds(pid)
            answer = send(port, method, path, body, headers)
            time.sleep(0.05)  # the server finishes writing and freeing
            cpu = max(cpu, cpu_seconds(pid) - before)
            if server.poll() is not None:
                break
        alive = server.poll() is None and send(port, "GET", "/health", None, {}).startswith("200")
        peak = status_kib(pid, "VmHWM") / 1024 if server.poll() is None else float("nan")
        server.terminate()
        server.wait(timeout=30)
        if not alive:
            answer += f"; SERVER DIED ({server.returncode})"
        worst_cpu, worst_rss = max(worst_cpu, cpu), max(worst_rss, peak)
        print(f"| {name} | {len(body) if body else len(path)} | {answer} | {cpu:.2f} | {peak:.1f} | {rest:.1f} |", flush=True)
    print(f"\nWorst request: {worst_cpu:.2f} s of CPU; highest peak RSS of a server: {worst_rss:.1f} MiB.")


if __name__ == "__main__":
    main()
