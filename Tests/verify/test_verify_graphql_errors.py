"""`pagebench verify` reads a GraphQL error answer (HTTP 200 with `errors`) by its entries'
`extensions.code` (V5, V6; docs/verify.md, "GraphQL error answers"): BAD_USER_INPUT is a
refusal as a 4xx is, INTERNAL_SERVER_ERROR a server fault as a 5xx is, and an entry without a
code is read as a refusal and said so. The API is strawberry's (graphql_api.py), its errors
made by graphql-core. Traffic goes to 127.0.0.1 only; verify's own bounds bound each run."""
import json
import os
import subprocess
import sys

from pagebench_support import pagebench_binary

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = ["V1", "V2", "V3", "V4", "V5", "V6", "V7"]
QUERY = ("query($p: Int!, $l: Int!, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t) "
         "{ items { id } nextToken } }")


def verify_graphql(tmp_path, mode):
    api = subprocess.Popen([sys.executable, os.path.join(HERE, "graphql_api.py"), mode], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = api.stdout.readline()
        assert line.startswith("listening on "), line
        target = tmp_path / "graphql.json"
        target.write_text(json.dumps({
            "kind": "graphql", "endpoint": line.split()[-1] + "/graphql", "partitions": {"values": [0, 1, 2]},
            "query": QUERY, "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
            "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken", "itemKey": "/id",
            "tokensBind": ["limit"]}))
        result = subprocess.run([pagebench_binary(), "verify", "--target-file", str(target), "--limits", "1,5,50",
                                 "--partitions", "2", "--rate", "200", "--max-seconds", "120", "--format", "json"],
                                capture_output=True, text=True, timeout=300)
    finally:
        api.stdin.close()
        api.wait(timeout=30)
    report = json.loads(result.stdout)
    return result, {rule["id"]: rule for rule in report["rules"]}


def test_v5_v6_bad_user_input_is_a_refusal_as_a_4xx_is(tmp_path):
    result, rules = verify_graphql(tmp_path, "coded")
    assert result.returncode == 0, result.stdout + result.stderr
    assert {rule: rules[rule]["verdict"] for rule in RULES} == {rule: "holds" for rule in RULES}, result.stdout
    v5 = rules["V5"]["note"]
    assert "a garbled token 200 with errors BAD_USER_INPUT" in v5, v5
    assert "partition 1's token with partition 0 200 with errors BAD_USER_INPUT" in v5, v5
    assert "a limit-5 token at limit 1 200 with errors BAD_USER_INPUT" in v5, v5
    v6 = rules["V6"]["note"]
    assert "limit 0 200 with errors BAD_USER_INPUT" in v6, v6
    # graphql-core refuses a limit beyond 32 bits itself, with no code: read as a refusal, and said so.
    assert "limit 2147483648 200 with errors without a code" in v6, v6
    assert v6.endswith("; GraphQL errors without extensions.code are read as refusals (a server fault cannot be "
                       "told from them)"), v6
    assert "without extensions.code" not in v5, v5


def test_v5_errors_without_extensions_code_are_read_as_refusals_and_said_so(tmp_path):
    result, rules = verify_graphql(tmp_path, "uncoded")
    assert result.returncode == 0, result.stdout + result.stderr
    assert rules["V5"]["verdict"] == "holds", rules["V5"]
    for rule, probe in [("V5", "a garbled token"), ("V6", "limit 0")]:
        note = rules[rule]["note"]
        assert f"{probe} 200 with errors without a code" in note, note
        assert note.endswith("; GraphQL errors without extensions.code are read as refusals (a server fault cannot be "
                             "told from them)"), note


def test_v5_internal_server_error_is_a_server_fault_with_its_evidence_and_the_others_hold(tmp_path):
    result, rules = verify_graphql(tmp_path, "internal")
    assert result.returncode == 1, result.stdout + result.stderr
    assert rules["V5"]["verdict"] == "broken", rules["V5"]
    # A truncated token does not verify either: both are listed, the other probes were refused.
    assert rules["V5"]["note"] == ("a garbled token got GraphQL errors with extensions.code INTERNAL_SERVER_ERROR, "
                                   "a server error (and 1 more)"), rules["V5"]
    evidence = rules["V5"]["evidence"]
    assert [line.split(":")[0] for line in evidence] == ["a garbled token", "a truncated token"], evidence
    assert all("→ HTTP 200" in line and '"code":"INTERNAL_SERVER_ERROR"' in line for line in evidence), evidence
    assert {rule: rules[rule]["verdict"] for rule in RULES if rule != "V5"} == {r: "holds" for r in RULES if r != "V5"}


def test_a_graphql_target_whose_document_holds_a_mutation_is_refused_before_anything_is_sent(tmp_path):
    target = tmp_path / "mutation.json"
    target.write_text(json.dumps({
        "kind": "graphql", "endpoint": "http://127.0.0.1:9/graphql", "partitions": {"values": [0]},
        "query": "mutation($p: Int!, $l: Int!, $t: String) { purge(partition: $p, limit: $l, nextToken: $t) "
                 "{ items { id } nextToken } }",
        "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
        "items": "/data/purge/items", "continuation": "/data/purge/nextToken"}))
    result = subprocess.run([pagebench_binary(), "verify", "--target-file", str(target)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 65, result.stderr
    assert "query: the document holds a mutation; verify sends only reads" in result.stderr, result.stderr
    assert "first request" not in result.stderr, result.stderr


def test_v3_a_throttled_code_is_waited_out_and_retried_as_a_429(tmp_path):
    result, rules = verify_graphql(tmp_path, "throttle_once")
    assert result.returncode == 0, result.stdout + result.stderr
    assert {rule: rules[rule]["verdict"] for rule in RULES} == {rule: "holds" for rule in RULES}, result.stdout
