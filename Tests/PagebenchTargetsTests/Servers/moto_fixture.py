#!/usr/bin/env python3
"""moto's DynamoDB server with a fixture table, for pagebench's dynamodb kind (issue 14).

Starts moto's server on a free loopback port, creates table `Items` (pk S HASH, sk N RANGE)
with PARTITIONS partitions `user-0`… of ITEMS_PER_PARTITION items each, attribute `kind` =
sk % 10, loaded with boto3. Then, for every partition, drains the Query pagebench will make
(`pk = :pk`, FilterExpression `kind = :k`, Limit LIMIT) with boto3's paginator and prints
one JSON line of what it saw: {"user-0": {"items": …, "pages": …, "emptyWithKey": …}, …}.
Then prints `listening on http://127.0.0.1:PORT`; stops when stdin closes or on SIGTERM.

Arguments: PARTITIONS ITEMS_PER_PARTITION LIMIT
"""
import json
import sys

import boto3
from moto.server import ThreadedMotoServer


def main():
    partitions, per_partition, limit = (int(a) for a in sys.argv[1:4])
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_port
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="AKIDMOTO", aws_secret_access_key="moto-secret")
    client.create_table(
        TableName="Items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST")
    for p in range(partitions):
        for s in range(per_partition):
            client.put_item(TableName="Items", Item={
                "pk": {"S": f"user-{p}"}, "sk": {"N": str(s)}, "kind": {"N": str(s % 10)},
                "body": {"S": "x" * (s % 7)}})
    expected = {}
    paginator = client.get_paginator("query")
    for p in range(partitions):
        seen = {"items": 0, "pages": 0, "emptyWithKey": 0, "capacityUnits": 0.0}
        for response in paginator.paginate(
                TableName="Items", KeyConditionExpression="pk = :pk", FilterExpression="kind = :k",
                ExpressionAttributeValues={":pk": {"S": f"user-{p}"}, ":k": {"N": "0"}},
                ReturnConsumedCapacity="TOTAL", PaginationConfig={"PageSize": limit}):
            seen["pages"] += 1
            seen["items"] += len(response["Items"])
            if not response["Items"] and "LastEvaluatedKey" in response:
                seen["emptyWithKey"] += 1
            seen["capacityUnits"] += response.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0)
        expected[f"user-{p}"] = seen
    print(json.dumps(expected), flush=True)
    print(f"listening on {endpoint}", flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
