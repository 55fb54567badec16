"""Hostile requests against the protocol front ends (issue 13: "bad requests of every kind
get the protocol's own error and never crash or hang the server").

Seeded mutations of valid DynamoDB Query/Scan requests and GraphQL requests — values of the
wrong type, out-of-range numbers, unknown and missing members, expression and document
token soup, mangled start keys and tokens, bodies that are not JSON — are sent to one
`pagebench serve`. Every answer must be the protocol's own: a DynamoDB page or a DynamoDB
JSON error (`__type`, `message`) with status 400; a GraphQL response (`data` and/or
`errors`) with status 200, or a GraphQL error list with status 400/413 for a body that is
not a GraphQL request. No 5xx (the store here injects no faults), no hang (each request has
a deadline), and the server still answers afterwards. The seeds are fixed, so a failure
replays.
"""
import http.client
import json
import random

import pytest

from pagebench_support import ServedStore

STORE = ["--partitions", "4", "--items-per-partition", "50", "--budget-bytes", "8192", "--seed", "5"]
ROUNDS = 300

DYNAMO_TOKENS = ["pk", "sk", "category", "sizeBytes", "fingerprint", "#n", "#m", ":p", ":v", ":w", "=", "<>", "<", "<=",
                 ">", ">=", "AND", "OR", "NOT", "BETWEEN", "IN", "(", ")", ",", "begins_with", "size", "attribute_exists",
                 "0", "1", "-1", "\"x\"", "a.b", "[0]", ":", "#", "", "\u0000", "\u00e9", "pk = :p AND", "((((("]
GRAPHQL_TOKENS = ["{", "}", "(", ")", "[", "]", ":", "$", "!", "...", "@", "=", "query", "mutation", "fragment", "on",
                  "listItems", "itemsConnection", "items", "edges", "node", "cursor", "pageInfo", "nextToken",
                  "partition", "limit", "filter", "category", "eq", "not", "and", "or", "first", "after", "last",
                  "before", "$p", "Int", "String", "ItemFilterInput", "__typename", "__schema", "1", "-1", "2147483648",
                  "1.5", "\"s\"", "true", "null", "DESC", "ASC", "\\u0000", "#comment\n", "\"\"\"block\"\"\"", ","]
ODD_VALUES = [None, True, False, 0, -1, 1.5, 2**31, 2**63, 2**64, -(2**63) - 1, 1e308, "1e400", "", "x" * 70000, "\u0000",
              "NaN", [], [1, 2], {}, {"N": "1"}, {"S": "x"}, {"N": "1e400"}, {"N": "-0"}, {"N": "0x10"},
              {"N": "99999999999999999999999999"}, {"N": " 1"}, {"B": "!!"}, {"NULL": True}, {"N": "1", "S": "x"}]


def deep(depth):
    value = 0
    for _ in range(depth):
        value = {"a": [value]}
    return value


def mutate(rng, value, depth=0):
    """`value` with one of its members changed, removed or added, at a random depth."""
    if isinstance(value, dict) and value and rng.random() < 0.7 and depth < 4:
        key = rng.choice(sorted(value))
        choice = rng.random()
        out = dict(value)
        if choice < 0.15:
            del out[key]
        elif choice < 0.25:
            out[rng.choice(["Unknown", "limit", "Limit ", "", "\u0000", "KeyConditions"])] = rng.choice(ODD_VALUES)
        elif choice < 0.6:
            out[key] = mutate(rng, out[key], depth + 1)
        else:
            out[key] = rng.choice(ODD_VALUES + [deep(rng.choice([10, 70, 200]))])
        return out
    if isinstance(value, list) and value and rng.random() < 0.5:
        out = list(value)
        out[rng.randrange(len(out))] = mutate(rng, out[0], depth + 1)
        return out
    if isinstance(value, str) and rng.random() < 0.6:
        words = value.split(" ") if value else []
        for _ in range(rng.randint(1, 3)):
            position = rng.randint(0, len(words))
            tokens = GRAPHQL_TOKENS if "{" in value else DYNAMO_TOKENS
            if words and rng.random() < 0.4:
                del words[min(position, len(words) - 1)]
            else:
                words.insert(position, rng.choice(tokens))
        return " ".join(words)
    return rng.choice(ODD_VALUES)


def send(endpoint, path, body, headers, deadline=15):
    host, port = endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=deadline)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def encode(rng, request):
    """The request as bytes; now and then cut short, or not JSON at all."""
    data = json.dumps(request).encode()
    choice = rng.random()
    if choice < 0.05:
        return data[: rng.randrange(len(data) + 1)]
    if choice < 0.08:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    return data


@pytest.fixture(scope="module")
def server():
    served = ServedStore(*STORE)
    yield served
    served.stop()


def alive(server):
    """The server still runs and answers."""
    assert server.process.poll() is None, "serve exited"
    host, port = server.endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=15)
    connection.request("GET", "/health")
    assert connection.getresponse().status == 200
    connection.close()


def test_dynamodb_hostile_requests_get_dynamodb_errors(server):
    """W2, W3, W5: every mutation is a page or a DynamoDB ValidationException-style error."""
    rng = random.Random(1301)
    valid = [
        ("Query", {"TableName": "pagebench", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
                   "FilterExpression": "(category = :c OR sizeBytes > :s) AND NOT #n = :c",
                   "ExpressionAttributeNames": {"#n": "category"},
                   "ExpressionAttributeValues": {":p": {"N": "1"}, ":a": {"N": "3"}, ":b": {"N": "40"}, ":c": {"N": "0"},
                                                 ":s": {"N": "500"}},
                   "Limit": 7, "ScanIndexForward": False, "ReturnConsumedCapacity": "TOTAL",
                   "ExclusiveStartKey": {"pk": {"N": "1"}, "sk": {"N": "30"}}}),
        ("Scan", {"TableName": "pagebench", "Segment": 1, "TotalSegments": 3, "Limit": 5,
                  "ProjectionExpression": "pk, sk, #s", "ExpressionAttributeNames": {"#s": "sizeBytes"},
                  "Select": "SPECIFIC_ATTRIBUTES"}),
        ("GetItem", {"TableName": "pagebench", "Key": {"pk": {"N": "2"}, "sk": {"N": "9"}}}),
        ("DescribeTable", {"TableName": "pagebench"}),
    ]
    kinds = {}
    for round_ in range(ROUNDS):
        operation, request = rng.choice(valid)
        if rng.random() < 0.05:
            operation = rng.choice(["Querry", "", "BatchGetItem", "Scan" * 100])
        body = encode(rng, mutate(rng, request))
        status, answer = send(server.endpoint, "/", body, {"Content-Type": "application/x-amz-json-1.0",
                                                           "X-Amz-Target": f"DynamoDB_20120810.{operation}"})
        assert status in (200, 400, 413), f"round {round_}: {status} {answer[:300]!r} for {body[:300]!r}"
        parsed = json.loads(answer)
        if status == 200:
            assert any(key in parsed for key in ("Items", "Count", "Item", "Table")) or parsed == {}, f"round {round_}: {parsed}"
        else:
            assert parsed.get("__type", "").startswith("com.amazonaws.dynamodb.v20120810#"), f"round {round_}: {parsed}"
            assert parsed.get("message"), f"round {round_}: {parsed}"
            kind = parsed["__type"].split("#")[1]
            kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds.get("ValidationException", 0) > ROUNDS // 3, kinds  # the mutations did reach validation
    alive(server)


def test_graphql_hostile_requests_get_graphql_errors(server):
    """W6: every mutation is a GraphQL response; a body that is not a GraphQL request is a 400 error list."""
    rng = random.Random(1302)
    valid = [
        {"query": "query L($p: Int, $f: ItemFilterInput, $t: String, $d: ModelSortDirection) { listItems(partition: $p, "
                  "limit: 5, filter: $f, nextToken: $t, sortDirection: $d) { items { partition sortKey sizeBytes category "
                  "fingerprint } nextToken scannedCount } }",
         "variables": {"p": 1, "f": {"or": [{"category": {"eq": 0}}, {"sizeBytes": {"between": [100, 900]}}]}, "d": "DESC"},
         "operationName": "L"},
        {"query": "query($a: String) { itemsConnection(partition: 2, first: 3, after: $a) { edges { cursor node { sortKey } } "
                  "pageInfo { hasNextPage endCursor } } }",
         "variables": {"a": None}},
    ]
    answered = {"data": 0, "errors": 0}
    for round_ in range(ROUNDS):
        body = encode(rng, mutate(rng, rng.choice(valid)))
        status, answer = send(server.endpoint, "/graphql", body, {"Content-Type": "application/json"})
        assert status in (200, 400, 413), f"round {round_}: {status} {answer[:300]!r} for {body[:300]!r}"
        parsed = json.loads(answer)
        assert isinstance(parsed, dict) and ("data" in parsed or "errors" in parsed), f"round {round_}: {parsed}"
        if status != 200:
            assert parsed.get("errors") and "data" not in parsed, f"round {round_}: {parsed}"
        for error in parsed.get("errors") or []:
            assert isinstance(error.get("message"), str) and error["message"], f"round {round_}: {error}"
        answered["errors" if parsed.get("errors") else "data"] += 1
    assert answered["errors"] > ROUNDS // 3 and answered["data"] > 0, answered
    alive(server)


# Bytes that are not UTF-8, each inside a JSON string: a lone continuation byte, a truncated
# two-byte sequence, an overlong encoding of '/', a surrogate encoded in UTF-8, 0xFF.
NOT_UTF8 = [b"\x80", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xff"]


@pytest.mark.parametrize("bad", NOT_UTF8, ids=lambda bad: bad.hex())
def test_request_bodies_that_are_not_utf8_are_refused_naming_the_byte(server, bad):
    """W2, W6 (issue 39): a body that is not UTF-8 is not JSON (RFC 8259 §8.1); DynamoDB
    answers a ValidationException and GraphQL a 400 error list, each naming the byte's
    offset; the server keeps serving."""
    dynamo = (b'{"TableName":"pagebench","KeyConditionExpression":"pk = :p",'
              b'"ExpressionAttributeValues":{":p":{"S":"' + bad + b'"}}}')
    status, answer = send(server.endpoint, "/", dynamo, {"Content-Type": "application/x-amz-json-1.0",
                                                         "X-Amz-Target": "DynamoDB_20120810.Query"})
    parsed = json.loads(answer)
    assert status == 400 and parsed["__type"].endswith("#ValidationException"), (status, parsed)
    assert f"invalid UTF-8 at byte {dynamo.index(bad)}" in parsed["message"], parsed
    graphql = b'{"query":"{ listItems(partition: 1) { nextToken } }","operationName":"' + bad + b'"}'
    status, answer = send(server.endpoint, "/graphql", graphql, {"Content-Type": "application/json"})
    parsed = json.loads(answer)
    assert status == 400 and "data" not in parsed, (status, parsed)
    assert f"invalid UTF-8 at byte {graphql.index(bad)}" in parsed["errors"][0]["message"], parsed
    alive(server)
