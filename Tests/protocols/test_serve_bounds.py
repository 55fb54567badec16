"""W7 from outside: a real `pagebench serve` gets the hostile requests of issue 24 — documents
that killed it (duplicate operation names, string forms hiding nesting, a short \\u escape),
documents that held it for minutes or gigabytes (nested list literals, quadratic validation,
100 aliased listItems(limit: 1000)) — and bodies up to 1 MiB of every bounded kind, over
GraphQL, DynamoDB's JSON API and REST. Every request gets its protocol's answer (the bound it
exceeds, named, or the protocol's own error), and the server is still up after each.
graphql-core is the reference: it counts tokens as the server does, finds the same duplicate
names invalid, and its introspection query (the one clients send) is within the bounds.
Nothing here is timed; what the requests cost is measured by results/serve-bounds/measure.py.
"""
import http.client
import json

import pytest
from graphql import GraphQLError, build_client_schema, get_introspection_query, parse, validate

from pagebench_support import ServedStore

MIB = 1 << 20


@pytest.fixture(scope="module")
def server():
    served = ServedStore("--partitions", "4", "--items-per-partition", "200", "--seed", "24")
    yield served
    served.stop()


def request(server, method, path, body=None, headers=None):
    host, port = server.endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def alive(server):
    assert server.process.poll() is None, "serve exited"
    assert request(server, "GET", "/health")[0] == 200


def graphql(server, query, variables=None):
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    status, answer = request(server, "POST", "/graphql", body, {"Content-Type": "application/json"})
    alive(server)
    return status, json.loads(answer)


def bound(answer):
    errors = answer.get("errors") or [{}]
    return (errors[0].get("extensions") or {}).get("bound")


def test_documents_that_killed_serve_are_answered(server):
    """W7: duplicate operation and fragment names (SIGILL in GraphQLSwift's validation), string
    forms before deep nesting (SIGSEGV in its parser), a short \\u escape at the end (its lexer
    reads past the text): each is a GraphQL error, and graphql-core agrees on the duplicates."""
    schema = build_client_schema(graphql(server, get_introspection_query())[1]["data"])
    for round_ in range(40):
        space = " " * (round_ % 5 + 1) + "\n" * (round_ // 5)
        for document in [f"query A {{ __typename }}{space}query A {{ __typename }}",
                         f"{{ __typename }}{space}{{ __typename }}",
                         f"fragment F on Query {{ __typename }}{space}fragment F on Query {{ __typename }} {{ ...F }}"]:
            status, answer = graphql(server, document)
            assert status == 200 and answer["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED", answer
            reference = validate(schema, parse(document))
            assert reference, document
            assert answer["errors"][0]["message"].split('"')[0] in reference[0].message.replace("'", '"'), (answer, reference)
    for form in ['"a""b"', '""" \\""" """', '"\\\\"', '""""""', '"" ""', '""" ]]]}}} """', '"#"']:
        for document in ["{ a(b: [ " + form + " " + "[" * 200_000 + "]" * 200_000 + " ]) }",
                         "{ a(b: " + form + ") " + "{ a " * 100_000 + "}" * 100_001]:
            status, answer = graphql(server, document)
            assert status == 200 and bound(answer) == "depth", answer
    for document in ['{ a(b: "\\u', '{ a(b: "\\u1', '{ a(b: "\\u12', '{ a(b: "\\u123']:
        status, answer = graphql(server, document)
        assert answer["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED", answer


def test_documents_that_held_serve_are_refused_by_a_named_bound(server):
    """W7: nested list literals, quadratic validation, aliased lists and fragment fan-out get
    the bound they exceed, named with its flag; graphql-core counts the same tokens."""
    cases = [
        ("{ listItems(limit: " + "[" * 62 + "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14" + "]" * 62 + ") { scannedCount } }", "depth"),
        ("{ __typename @skip(if: false) }\n" * 10_000, "tokens"),
        ("{ __typename @skip(if: false) }\n" * 101, "definitions"),
        ("".join(f"fragment F{i} on Query {{ __typename }}\n" for i in range(101)) + "{ __typename }", "definitions"),
        ("query(" + ", ".join(f"$v{i}: Int" for i in range(5_000)) + ") { __typename }", "tokens"),
        ("{ " + " ".join(f"a{i}: listItems(limit: 1000) {{ items {{ partition sortKey sizeBytes category fingerprint }} }}"
                         for i in range(100)) + " }", "cost"),
        ("{ " + " ".join(f"a{i}: listItems(limit: 1000) {{ items {{ partition sortKey sizeBytes category fingerprint }} }}"
                         for i in range(30)) + " }", "cost"),
        ("{ ...A0 }\n" + "\n".join(f"fragment A{i} on Query {{ ...A{i+1} ...B{i+1} }} fragment B{i} on Query {{ ...A{i+1} ...B{i+1} }}"
                                   for i in range(20)) + "\nfragment A20 on Query { __typename } fragment B20 on Query { __typename }",
         "fields"),
        ("{ " + " ".join(f"a{i}: __schema {{ types {{ fields {{ name type {{ name }} }} }} }}" for i in range(100)) + " }", "cost"),
        ("{" + " __typename @skip(if: false)" * 101 + " }", "directives"),
        ("[" * (MIB - 100), "depth"),
    ]
    for document, expected in cases:
        status, answer = graphql(server, document)
        assert status == 200 and bound(answer) == expected, (document[:120], answer)
        assert "serve --" in answer["errors"][0]["message"], answer
    # A nested literal within the depth bound: GraphQL's message, the literal printed once.
    status, answer = graphql(server, "{ listItems(limit: " + "[" * 25 + "1, " * 10_000 + "1" + "]" * 25 + ") { scannedCount } }")
    assert answer["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED" and len(answer["errors"][0]["message"]) < 400
    # Tokens: graphql-core's count (max_tokens) and the server's agree at the bound.
    for count in (14_999, 15_000, 15_001):
        document = "{" + " a" * (count - 2) + " }"
        try:
            parse(document, max_tokens=15_000)
            over = False
        except GraphQLError:
            over = True
        status, answer = graphql(server, document)
        assert (bound(answer) == "tokens") == over, (count, answer["errors"][0])


def test_the_introspection_query_clients_send_is_within_the_bounds(server):
    """W6, W7: graphql-core's introspection query costs less than the default cost bound."""
    status, answer = graphql(server, get_introspection_query(descriptions=True))
    assert status == 200 and "errors" not in answer, answer
    build_client_schema(answer["data"])


def test_bodies_and_expressions_are_bounded_in_every_protocol(server):
    """W7: bodies over 1 MiB are refused (413 GraphQL error list; DynamoDB ValidationException),
    DynamoDB expressions over 4 KB are ValidationExceptions, and hostile bodies up to 1 MiB get
    DynamoDB's own errors; REST answers a 1 MiB URL without dying."""
    status, answer = request(server, "POST", "/graphql", b'{"query": "' + b" " * (MIB + 10) + b'{ __typename }"}',
                             {"Content-Type": "application/json"})
    assert status == 413 and b"--max-body-bytes" in answer
    dynamo = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.Scan"}
    status, answer = request(server, "POST", "/", b'{"TableName": "pagebench"' + b" " * (MIB + 10) + b"}", dynamo)
    assert status == 400 and b"--max-body-bytes" in answer, answer[:200]
    for body in [
        {"TableName": "pagebench", "ProjectionExpression": "pk, " * (MIB // 5)},
        {"TableName": "pagebench", "FilterExpression": "(" * 2000 + "category = :c" + ")" * 2000,
         "ExpressionAttributeValues": {":c": {"N": "1"}}},
        {"TableName": "pagebench", "FilterExpression": "category = :v0",
         "ExpressionAttributeValues": {f":v{i}": {"N": "1"} for i in range(MIB // 24)}},
    ]:
        status, answer = request(server, "POST", "/", json.dumps(body).encode(), dynamo)
        parsed = json.loads(answer)
        assert (status == 200 and "Items" in parsed) or (status == 400 and parsed["__type"].endswith("#ValidationException")), \
            answer[:300]
        alive(server)
    status, answer = request(server, "GET", "/scan?filter=" + "x" * MIB)
    assert status in (400, 414, 431), (status, answer[:200])
    alive(server)
