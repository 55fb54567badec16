"""W1-W5 with the real clients: boto3's paginators and retry modes and the AWS CLI against
`pagebench serve`, every page compared with `pagebench pages` for the same request.

The store is small and deterministic (same options → same pages and tokens), so what
boto3 receives can be compared page by page with what the store itself says.
"""
import json
import math
import os
import subprocess

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from pagebench_support import ServedStore
from pagebench_support import store_pages as pagebench_pages

# 6 partitions of 120 items, sizes 200-3000 bytes, a 16 KB budget so that both Limit and
# the budget end pages, 20 % of items in category 0.
STORE = ["--partitions", "6", "--items-per-partition", "120", "--item-size", "uniform:200-3000",
         "--budget-bytes", "16384", "--selectivity", "0.2", "--seed", "11"]
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "pagebench", "AWS_SECRET_ACCESS_KEY": "pagebench",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}


class Server(ServedStore):
    """A served store with the test's store options; `client()` is a boto3 DynamoDB client for it."""

    def __init__(self, *options):
        super().__init__(*STORE, *options)

    def client(self, **config):
        return boto3.client("dynamodb", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="pagebench", aws_secret_access_key="pagebench",
                            config=botocore.config.Config(**config))


@pytest.fixture(scope="module")
def server():
    served = Server("--table", "catalog")
    yield served
    served.stop()


def store_pages(*arguments):
    """`pagebench pages` for the same request on the test's store."""
    return pagebench_pages(*STORE, *arguments)


def boto_keys(page):
    return [[int(item["pk"]["N"]), int(item["sk"]["N"])] for item in page.get("Items", [])]


def boto_last(page):
    key = page.get("LastEvaluatedKey")
    return None if key is None else [int(key["pk"]["N"]), int(key["sk"]["N"])]


def capacity_units(scanned_bytes, consistent):
    """W4: the page's evaluated bytes rounded up to 4 KB, one unit per 4 KB strongly
    consistent, half that eventually consistent."""
    blocks = math.ceil(scanned_bytes / 4096)
    return blocks if consistent else blocks / 2


def compare(boto_pages, expected, consistent=None):
    """W2-W4: every page's keys, Count, ScannedCount and LastEvaluatedKey; with `consistent`
    (the request's ConsistentRead, asked with ReturnConsumedCapacity TOTAL), its
    ConsumedCapacity too."""
    assert len(boto_pages) == len(expected)
    for number, (got, want) in enumerate(zip(boto_pages, expected), start=1):
        assert boto_keys(got) == want["keys"], f"page {number}"
        assert got["Count"] == want["returned"], f"page {number}"
        assert got["ScannedCount"] == want["scanned"], f"page {number}"
        assert boto_last(got) == want["lastEvaluatedKey"], f"page {number}"
        if consistent is not None:
            assert got["ConsumedCapacity"]["TableName"] == "catalog", f"page {number}"
            assert got["ConsumedCapacity"]["CapacityUnits"] == capacity_units(want["scannedBytes"], consistent), \
                f"page {number}: {want['scannedBytes']} bytes evaluated"


ALL = str(2**31 - 1)  # DynamoDB without Limit: only the budget ends a page


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("limit", [None, 7])
@pytest.mark.parametrize("filtered", [False, True])
def test_query_paginator_pages_are_the_store_pages(server, forward, limit, filtered):
    """W2, W3, W4, S13: get_paginator('query') forward and reverse, with and without a filter;
    ConsumedCapacity (ReturnConsumedCapacity TOTAL) strongly consistent forward, eventually
    consistent reverse."""
    arguments = {"TableName": "catalog", "KeyConditionExpression": "#p = :p AND sk BETWEEN :lo AND :hi",
                 "ExpressionAttributeNames": {"#p": "pk"},
                 "ExpressionAttributeValues": {":p": {"N": "2"}, ":lo": {"N": "10"}, ":hi": {"N": "100"}},
                 "ScanIndexForward": forward, "ReturnConsumedCapacity": "TOTAL", "ConsistentRead": forward}
    pages_arguments = ["--partition", "2", "--sort-key-min", "10", "--sort-key-max", "100",
                       "--limit", str(limit) if limit else ALL]
    if filtered:
        arguments["FilterExpression"] = "category = :c OR sizeBytes < :s"
        arguments["ExpressionAttributeValues"].update({":c": {"N": "0"}, ":s": {"N": "400"}})
        pages_arguments += ["--filter", "category=0 or size<400"]
    if not forward:
        pages_arguments.append("--reverse")
    paginator = server.client().get_paginator("query")
    config = {"PageSize": limit} if limit else {}
    got = list(paginator.paginate(**arguments, PaginationConfig=config))
    compare(got, store_pages(*pages_arguments), consistent=forward)


@pytest.mark.parametrize("segment", [None, 0, 2])
@pytest.mark.parametrize("filtered", [False, True])
def test_scan_paginator_pages_are_the_store_pages(server, segment, filtered):
    """W2, W4, S14, S15: get_paginator('scan'), whole and by segment, with and without a filter;
    ConsumedCapacity at the default (eventually consistent) read."""
    arguments = {"TableName": "catalog", "ReturnConsumedCapacity": "TOTAL"}
    pages_arguments = ["--limit", "25"]
    if segment is not None:
        arguments.update(Segment=segment, TotalSegments=3)
        pages_arguments += ["--segment", str(segment), "--total-segments", "3"]
    if filtered:
        arguments.update(FilterExpression="NOT (category <> :c)", ExpressionAttributeValues={":c": {"N": "0"}})
        pages_arguments += ["--filter", "category=0"]
    got = list(server.client().get_paginator("scan").paginate(**arguments, PaginationConfig={"PageSize": 25}))
    compare(got, store_pages(*pages_arguments), consistent=False)
    assert len(got) > 1


def test_selective_filter_gives_empty_pages_with_a_last_evaluated_key(server):
    """S3, W3: a filter that matches few items still charges the budget: empty pages that continue."""
    arguments = {"TableName": "catalog", "KeyConditionExpression": "pk = :p",
                 "FilterExpression": "category = :c AND sizeBytes > :s",
                 "ExpressionAttributeValues": {":p": {"N": "4"}, ":c": {"N": "0"}, ":s": {"N": "2500"}}}
    got = list(server.client().get_paginator("query").paginate(**arguments, PaginationConfig={"PageSize": 10}))
    empty = [page for page in got if page["Count"] == 0 and "LastEvaluatedKey" in page]
    assert empty, "expected empty pages that still carry a LastEvaluatedKey"
    compare(got, store_pages("--partition", "4", "--limit", "10", "--filter", "category=0 and size>2500"))


def test_exact_end_gives_a_final_empty_page():
    """S6, W3: under --exact-end continuation a page ending exactly at the range's end still has a
    LastEvaluatedKey, and the next page is empty without one; under final there is no such page."""
    for mode, expect_empty_last in (("continuation", True), ("final", False)):
        served = Server("--exact-end", mode)
        try:
            # 8 keys at 4 a page (4 items of at most 3000 bytes stay under the 16 KB budget).
            got = list(served.client().get_paginator("query").paginate(
                TableName="pagebench", KeyConditionExpression="pk = :p AND sk < :n",
                ExpressionAttributeValues={":p": {"N": "1"}, ":n": {"N": "8"}}, PaginationConfig={"PageSize": 4}))
            assert sum(page["Count"] for page in got) == 8
            assert len(got) == (3 if expect_empty_last else 2)
            last = got[-1]
            assert "LastEvaluatedKey" not in last
            assert (last["Count"] == 0 and last["ScannedCount"] == 0) == expect_empty_last
            compare(got, store_pages("--partition", "1", "--sort-key-max", "7", "--limit", "4", "--exact-end", mode))
        finally:
            served.stop()


def test_boto3_retries_throttling_and_gives_up_on_validation_errors():
    """W5, S21: ProvisionedThroughputExceededException is retried by boto3's standard retry
    mode (and counted in RetryAttempts); a ValidationException is not retried."""
    served = Server("--throttle-rate", "0.5", "--seed", "5")
    try:
        client = served.client(retries={"mode": "standard", "max_attempts": 20})
        retried = 0
        for partition in range(6):
            page = client.query(TableName="pagebench", KeyConditionExpression="pk = :p",
                                ExpressionAttributeValues={":p": {"N": str(partition)}}, Limit=5)
            assert page["Count"] == 5
            retried += page["ResponseMetadata"]["RetryAttempts"]
        assert retried > 0, "at a 50 % throttle rate some query must have been retried"

        no_retries = served.client(retries={"mode": "standard", "max_attempts": 1})
        with pytest.raises(ClientError) as throttled:
            for _ in range(40):
                no_retries.scan(TableName="pagebench", Limit=1)
        assert throttled.value.response["Error"]["Code"] == "ProvisionedThroughputExceededException"

        with pytest.raises(ClientError) as invalid:
            client.query(TableName="pagebench", KeyConditionExpression="pk = :p AND begins_with(sk, :p)",
                         ExpressionAttributeValues={":p": {"N": "1"}})
        assert invalid.value.response["Error"]["Code"] == "ValidationException"
        assert "begins_with" in invalid.value.response["Error"]["Message"]
        assert invalid.value.response["ResponseMetadata"]["RetryAttempts"] == 0
    finally:
        served.stop()


def test_errors_are_recognised_by_boto3(server):
    """W5: unknown table, foreign start key (S19), unsupported parameter."""
    client = server.client()
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.query(TableName="nope", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"N": "1"}})
    with pytest.raises(ClientError) as foreign:
        client.query(TableName="catalog", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"N": "1"}},
                     ExclusiveStartKey={"pk": {"N": "3"}, "sk": {"N": "5"}})
    assert foreign.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as index:
        client.query(TableName="catalog", IndexName="byCategory", KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"N": "1"}})
    assert "IndexName" in index.value.response["Error"]["Message"]


@pytest.mark.parametrize("forward", [True, False])
def test_start_key_outside_a_between_window_is_a_validation_error(server, forward):
    """W3, S19: an ExclusiveStartKey in the queried partition but outside the BETWEEN window of
    the sort key is a ValidationException, below the window and above it, in both directions;
    the window's own ends are start keys like any other."""
    client = server.client()
    query = {"TableName": "catalog", "KeyConditionExpression": "pk = :p AND sk BETWEEN :lo AND :hi",
             "ExpressionAttributeValues": {":p": {"N": "2"}, ":lo": {"N": "10"}, ":hi": {"N": "100"}},
             "ScanIndexForward": forward, "Limit": 5}
    for outside in (3, 9, 101, 115):
        with pytest.raises(ClientError) as invalid:
            client.query(**query, ExclusiveStartKey={"pk": {"N": "2"}, "sk": {"N": str(outside)}})
        assert invalid.value.response["Error"]["Code"] == "ValidationException", outside
        assert invalid.value.response["ResponseMetadata"]["RetryAttempts"] == 0
    pages_arguments = ["--partition", "2", "--sort-key-min", "10", "--sort-key-max", "100", "--limit", "5"]
    if not forward:
        pages_arguments.append("--reverse")
    descending = not forward
    keys = [key for page in store_pages(*pages_arguments) for key in page["keys"]]
    for inside in (10, 55, 100):
        page = client.query(**query, ExclusiveStartKey={"pk": {"N": "2"}, "sk": {"N": str(inside)}})
        after = [key for key in keys if (key[1] < inside if descending else key[1] > inside)]
        assert boto_keys(page) == after[:5], inside


def test_get_item_describe_and_list(server):
    """W1: the point read is the store's item; the table is described with its key schema."""
    client = server.client()
    expected = store_pages("--partition", "5", "--sort-key-min", "42", "--sort-key-max", "42")
    item = client.get_item(TableName="catalog", Key={"pk": {"N": "5"}, "sk": {"N": "42"}})["Item"]
    assert [[int(item["pk"]["N"]), int(item["sk"]["N"])]] == expected[0]["keys"]
    assert client.get_item(TableName="catalog", Key={"pk": {"N": "5"}, "sk": {"N": "999"}}).get("Item") is None
    table = client.describe_table(TableName="catalog")["Table"]
    assert table["ItemCount"] == 720
    assert [key["AttributeName"] for key in table["KeySchema"]] == ["pk", "sk"]
    assert client.list_tables()["TableNames"] == ["catalog"]


def test_aws_cli_query(server):
    """W1-W3 with the AWS CLI: one `aws dynamodb query --endpoint-url`, which pages through
    LastEvaluatedKey itself, returns every item of the partition."""
    environment = dict(os.environ, **CREDENTIALS)
    result = subprocess.run(
        ["aws", "dynamodb", "query", "--endpoint-url", server.endpoint, "--table-name", "catalog",
         "--key-condition-expression", "pk = :p", "--expression-attribute-values", '{":p": {"N": "3"}}',
         "--page-size", "9", "--output", "json"],
        capture_output=True, text=True, env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    expected = [key for page in store_pages("--partition", "3", "--limit", "9") for key in page["keys"]]
    assert [[int(item["pk"]["N"]), int(item["sk"]["N"])] for item in answer["Items"]] == expected
    assert answer["Count"] == 120
