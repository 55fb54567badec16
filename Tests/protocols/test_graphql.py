"""W6 from outside: graphql-core builds the client schema from `pagebench serve`'s
introspection, validates the queries against it, and both query styles are drained over
plain HTTP and compared, page for page and token for token, with `pagebench pages`.
"""
import json
import urllib.error
import urllib.request

import pytest
from graphql import build_client_schema, get_introspection_query, parse, validate

from pagebench_support import ServedStore, store_pages

STORE = ["--partitions", "4", "--items-per-partition", "150", "--item-size", "uniform:200-3000",
         "--budget-bytes", "16384", "--selectivity", "0.2", "--seed", "13"]

LIST = """
query List($p: Int, $s: Int, $n: Int, $f: ItemFilterInput, $l: Int, $t: String, $d: ModelSortDirection) {
  listItems(partition: $p, segment: $s, totalSegments: $n, filter: $f, limit: $l, nextToken: $t, sortDirection: $d) {
    items { partition sortKey sizeBytes category fingerprint }
    nextToken
    scannedCount
  }
}"""

CONNECTION = """
query Connection($p: Int, $f: ItemFilterInput, $first: Int, $after: String) {
  itemsConnection(partition: $p, filter: $f, first: $first, after: $after) {
    edges { cursor node { partition sortKey } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}"""

BACKWARD = """
query Backward($p: Int, $f: ItemFilterInput, $last: Int, $before: String) {
  itemsConnection(partition: $p, filter: $f, last: $last, before: $before) {
    edges { cursor node { partition sortKey } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}"""


@pytest.fixture(scope="module")
def server():
    served = ServedStore(*STORE)
    yield served
    served.stop()


def post(server, query, variables=None):
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(server.endpoint + "/graphql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return json.loads(response.read())


@pytest.fixture(scope="module")
def schema(server):
    result = post(server, get_introspection_query())
    assert "errors" not in result
    return build_client_schema(result["data"])


def test_queries_validate_against_the_introspected_schema(schema):
    """W6: a valid schema with introspection; the queries a client would send validate."""
    for query in (LIST, CONNECTION):
        assert validate(schema, parse(query)) == []
    assert validate(schema, parse("{ listItems { noSuchField } }")) != []
    filter_fields = schema.type_map["ItemFilterInput"].fields
    assert set(filter_fields) == {"category", "sizeBytes", "and", "or", "not"}


@pytest.mark.parametrize("variables, pages_arguments", [
    ({"p": 1, "l": 10}, ["--partition", "1", "--limit", "10"]),
    ({"p": 1, "l": 10, "d": "DESC"}, ["--partition", "1", "--limit", "10", "--reverse"]),
    ({"p": 2, "l": 8, "f": {"category": {"eq": 0}, "sizeBytes": {"ge": 1000}}},
     ["--partition", "2", "--limit", "8", "--filter", "category=0 and size>=1000"]),
    ({"s": 1, "n": 3, "l": 30, "f": {"or": [{"category": {"eq": 0}}, {"sizeBytes": {"lt": 300}}]}},
     ["--segment", "1", "--total-segments", "3", "--limit", "30", "--filter", "category=0 or size<300"]),
])
def test_list_items_drains_are_the_store_pages(server, schema, variables, pages_arguments):
    """W6, S10, S13, S15: every listItems page equals pagebench pages, nextToken included."""
    assert validate(schema, parse(LIST)) == []
    expected = store_pages(*STORE, *pages_arguments)
    token = None
    for number, want in enumerate(expected, start=1):
        result = post(server, LIST, dict(variables, t=token))
        assert "errors" not in result, result
        page = result["data"]["listItems"]
        assert [[item["partition"], int(item["sortKey"])] for item in page["items"]] == want["keys"], f"page {number}"
        assert page["scannedCount"] == want["scanned"]
        assert page["nextToken"] == want["nextToken"]
        token = page["nextToken"]
    assert token is None
    assert len(expected) > 1


def test_items_connection_drains_with_end_cursor_on_empty_pages(server):
    """W6: hasNextPage ⇔ the store returned a token; endCursor carries it even on an empty page."""
    expected = store_pages(*STORE, "--partition", "3", "--limit", "3", "--filter", "category=0")
    after = None
    empty_with_next = 0
    for want in expected:
        result = post(server, CONNECTION, {"p": 3, "first": 3, "after": after, "f": {"category": {"eq": 0}}})
        connection = result["data"]["itemsConnection"]
        assert [[edge["node"]["partition"], int(edge["node"]["sortKey"])] for edge in connection["edges"]] == want["keys"]
        info = connection["pageInfo"]
        assert info["hasNextPage"] == (want["nextToken"] is not None)
        assert info["endCursor"] == want["nextToken"]
        if not connection["edges"] and info["hasNextPage"]:
            empty_with_next += 1
        after = info["endCursor"]
    assert empty_with_next > 0


def edge_keys(connection):
    return [[edge["node"]["partition"], int(edge["node"]["sortKey"])] for edge in connection["edges"]]


@pytest.mark.parametrize("variables, pages_arguments", [
    ({"p": 1, "last": 7}, ["--partition", "1", "--limit", "7"]),
    ({"p": 3, "last": 3, "f": {"category": {"eq": 0}}}, ["--partition", "3", "--limit", "3", "--filter", "category=0"]),
])
def test_items_connection_backward_drains_are_the_store_reverse_pages(server, schema, variables, pages_arguments):
    """W6, S13, S12: last/before pages are `pagebench pages --reverse`, page for page: a page's
    edges are the store's reverse page in ascending order (Relay); startCursor is the store's
    reverse token, even on an empty page, and hasPreviousPage ⇔ it exists; endCursor is the last
    edge's cursor; an edge's cursor, as `before`, resumes strictly below that edge's item."""
    assert validate(schema, parse(BACKWARD)) == []
    expected = store_pages(*STORE, *pages_arguments, "--reverse")
    before = None
    sample = None  # the first page with edges
    for number, want in enumerate(expected, start=1):
        result = post(server, BACKWARD, dict(variables, before=before))
        assert "errors" not in result, result
        connection = result["data"]["itemsConnection"]
        assert edge_keys(connection) == list(reversed(want["keys"])), f"page {number}"
        info = connection["pageInfo"]
        assert info["hasPreviousPage"] == (want["nextToken"] is not None), f"page {number}"
        assert info["startCursor"] == want["nextToken"], f"page {number}"
        assert info["hasNextPage"] is False
        edges = connection["edges"]
        assert info["endCursor"] == (edges[-1]["cursor"] if edges else None), f"page {number}"
        if "f" not in variables and info["hasPreviousPage"]:
            # Unfiltered, the lowest edge is the last item the store evaluated: its cursor is the token.
            assert edges[0]["cursor"] == info["startCursor"], f"page {number}"
        if sample is None and edges:
            sample = connection
        before = info["startCursor"]
    assert before is None
    assert len(expected) > 1
    # Every key of the range, descending; resuming backward from a middle edge of the first
    # page with edges gives exactly the keys below it.
    descending = [key for page in expected for key in page["keys"]]
    middle = sample["edges"][len(sample["edges"]) // 2]
    key = [middle["node"]["partition"], int(middle["node"]["sortKey"])]
    resumed = store_pages(*STORE, *pages_arguments, "--reverse", "--token", middle["cursor"])
    assert [k for page in resumed for k in page["keys"]] == descending[descending.index(key) + 1:]


def test_malformed_documents_and_forged_tokens_are_graphql_errors(server):
    """W6, S17: a malformed document and a forged nextToken get GraphQL errors with codes; the
    field is null; a body that is not a GraphQL request is a 400."""
    malformed = post(server, "{ listItems(partition: 1 { nextToken } }")
    assert malformed["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
    token = store_pages(*STORE, "--partition", "0", "--limit", "4", "--max-pages", "1")[0]["nextToken"]
    forged = token[:20] + ("A" if token[20] != "A" else "B") + token[21:]
    result = post(server, LIST, {"p": 0, "l": 4, "t": forged})
    assert result["data"]["listItems"] is None
    assert result["errors"][0]["extensions"]["code"] == "invalidToken"
    assert result["errors"][0]["path"] == ["listItems"]
    mismatch = post(server, LIST, {"p": 0, "l": 5, "t": token})
    assert mismatch["errors"][0]["extensions"]["code"] == "tokenMismatch"
    request = urllib.request.Request(server.endpoint + "/graphql", b"not json", {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as bad:
        urllib.request.urlopen(request, timeout=30)
    assert bad.value.code == 400
    assert "errors" in json.loads(bad.value.read())
    # The server still answers.
    assert post(server, "{ __typename }")["data"] == {"__typename": "Query"}
