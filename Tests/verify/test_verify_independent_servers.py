"""`pagebench verify` against servers it must find correct: `pagebench serve` in its three
protocols (REST, DynamoDB's JSON API, GraphQL AppSync and Relay) holds every rule V1-V7, and
moto's DynamoDB server (written by nobody here) holds every rule but two, which are moto's
real behaviour (docs/verify.md, "What it found"). Traffic goes to 127.0.0.1 only."""
import json
import os
import subprocess
import sys

import pytest

from pagebench_support import ServedStore, pagebench_binary, ROOT

RULES = ["V1", "V2", "V3", "V4", "V5", "V6", "V7"]
STORE = ["--partitions", "4", "--items-per-partition", "45", "--item-size", "fixed:200", "--seed", "7"]
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "AKIDVERIFY", "AWS_SECRET_ACCESS_KEY": "verify-secret"}


@pytest.fixture(scope="module")
def served():
    server = ServedStore(*STORE)
    yield server
    server.stop()


def verify(tmp_path, target, *options):
    path = tmp_path / "target.json"
    path.write_text(json.dumps(target))
    result = subprocess.run([pagebench_binary(), "verify", "--target-file", str(path), "--rate", "300", "--quiet",
                             "--format", "json", *options], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, **CREDENTIALS))
    report = json.loads(result.stdout)
    return result, report, {rule["id"]: rule for rule in report["rules"]}


REST = {"kind": "http", "partitions": {"range": [0, 3]}, "path": "/partitions/${partition}/items?limit=${limit}",
        "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"},
        "scannedCount": "/scanned", "itemKey": "/sortKey"}
DYNAMODB = {"kind": "dynamodb", "region": "us-east-1", "table": "pagebench", "partitions": {"range": [0, 3]},
            "keyConditionExpression": "pk = :p", "expressionAttributeValues": {":p": {"N": "${partition}"}},
            "itemKey": "/sk/N"}
APPSYNC = {"kind": "graphql", "partitions": {"range": [0, 3]},
           "query": "query($p: Int, $l: Int, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t) "
                    "{ items { partition sortKey } nextToken scannedCount } }",
           "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
           "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken",
           "scannedCount": "/data/listItems/scannedCount", "itemKey": "/sortKey"}
RELAY = {"kind": "graphql", "shape": "relay", "partitions": {"range": [0, 3]},
         "query": "query($p: Int, $first: Int, $after: String) { itemsConnection(partition: $p, first: $first, "
                  "after: $after) { edges { cursor node { sortKey } } pageInfo { hasNextPage endCursor } } }",
         "variables": {"p": "${partition}", "first": "${limit}"}, "items": "/data/itemsConnection/edges",
         "pageInfo": "/data/itemsConnection/pageInfo", "itemKey": "/node/sortKey"}


@pytest.mark.parametrize("name, target, path, options", [
    ("rest", REST, "", ["--token-binds-limit"]),  # serve's strict token policy binds the limit (S18)
    ("dynamodb", DYNAMODB, "", []),  # an ExclusiveStartKey is a key: any limit continues it
    ("appsync", APPSYNC, "/graphql", ["--token-binds-limit"]),
    ("relay", RELAY, "/graphql", ["--token-binds-limit"]),
])
def test_v1_to_v7_serve_holds_every_rule_in_every_protocol(tmp_path, served, name, target, path, options):
    result, report, rules = verify(tmp_path, dict(target, endpoint=served.endpoint + path), *options)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {rule: rules[rule]["verdict"] for rule in RULES} == {rule: "holds" for rule in RULES}, rules
    by_limit = {figure["limit"]: figure for figure in report["byLimit"]}
    # 45 items at limits 1 and... the store's exactEnd is `continuation` (S6): a full last page
    # costs one more request that returns nothing, at every limit dividing 45 (1 here, not 10).
    assert by_limit[1]["extraLastRequests"] == 3 and by_limit[1]["wastedRoundTripsPerDrain"] == 1
    assert by_limit[10]["extraLastRequests"] == 0 and by_limit[100]["pages"] == 3
    assert by_limit[1]["items"] == by_limit[10]["items"] == by_limit[100]["items"] == 3 * 45
    if name != "relay":  # V5 sends a token of partition 1 with partition 0: serve refuses it
        assert "partition 1's token with partition 0" in rules["V5"]["note"], rules["V5"]


def test_v1_to_v7_moto_holds_all_but_two_rules_and_its_500s_are_the_evidence(tmp_path):
    fixture = os.path.join(ROOT, "Tests", "PagebenchTargetsTests", "Servers", "moto_fixture.py")
    moto = subprocess.Popen([sys.executable, fixture, "3", "40", "7"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        boto3_view = json.loads(moto.stdout.readline())  # boto3's paginator over the same Query
        endpoint = moto.stdout.readline().split()[-1]
        target = {"kind": "dynamodb", "endpoint": endpoint, "region": "us-east-1", "table": "Items",
                  "partitions": {"values": ["user-0", "user-1", "user-2"]}, "keyConditionExpression": "pk = :pk",
                  "filterExpression": "kind = :k",
                  "expressionAttributeValues": {":pk": {"S": "${partition}"}, ":k": {"N": "0"}}, "itemKey": "/sk/N"}
        result, report, rules = verify(tmp_path, target, "--limits", "1,7,100")
    finally:
        moto.stdin.close()
        moto.wait(timeout=60)
    assert result.returncode == 1, result.stderr
    for rule in ["V1", "V2", "V3", "V4", "V7"]:
        assert rules[rule]["verdict"] == "holds", rules[rule]
    # moto 5.2.1 answers an ExclusiveStartKey whose attribute is renamed, and Limit 0, with an
    # HTML 500 page; DynamoDB answers both with a 400 ValidationException.
    assert rules["V5"]["verdict"] == "broken" and rules["V5"]["note"].startswith("a garbled token got HTTP 500"), rules["V5"]
    assert '"ExclusiveStartKey":{"pkx":{"S":"user-0"}' in rules["V5"]["evidence"][0]
    assert rules["V6"]["verdict"] == "broken" and rules["V6"]["note"].startswith("limit 0 got HTTP 500"), rules["V6"]
    # The items and pages are boto3's: at Limit 7 the same pages, empty ones with a key included.
    by_limit = {figure["limit"]: figure for figure in report["byLimit"]}
    assert by_limit[7]["items"] == sum(view["items"] for view in boto3_view.values())
    assert by_limit[7]["pages"] == sum(view["pages"] for view in boto3_view.values())
    assert by_limit[7]["emptyPagesWithToken"] == sum(view["emptyWithKey"] for view in boto3_view.values())
