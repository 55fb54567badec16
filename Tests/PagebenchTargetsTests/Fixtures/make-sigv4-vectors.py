#!/usr/bin/env python3
"""Generates sigv4-vectors.json: AWS Signature Version 4 headers computed by botocore's
SigV4Auth for fixed requests, credentials and times. pagebench's SigV4Signer must produce
the same Authorization header (SigV4SignerTests). Run once; the output is committed.

    python3 Tests/PagebenchTargetsTests/Fixtures/make-sigv4-vectors.py > Tests/PagebenchTargetsTests/Fixtures/sigv4-vectors.json
"""
import datetime
import json
from unittest import mock

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

CASES = [
    dict(name="query", access="AKIDEXAMPLE", secret="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token=None,
         region="us-east-1", url="http://localhost:8000/", target="DynamoDB_20120810.Query",
         body={"TableName": "Items", "KeyConditionExpression": "pk = :pk", "Limit": 10,
               "ExpressionAttributeValues": {":pk": {"S": "p-1"}}},
         time="2026-11-23T12:34:56"),
    dict(name="scan-session-token", access="ASIAEXAMPLE", secret="secret/with+chars=", token="FQoGZXIvYXdzEXAMPLETOKEN==",
         region="eu-west-2", url="https://dynamodb.eu-west-2.amazonaws.com/", target="DynamoDB_20120810.Scan",
         body={"TableName": "T", "Segment": 1, "TotalSegments": 4, "ExclusiveStartKey": {"pk": {"S": "a b"}}},
         time="2027-01-02T03:04:05"),
    dict(name="midnight-port", access="AKID2", secret="s2", token=None,
         region="ap-southeast-1", url="http://127.0.0.1:5000/", target="DynamoDB_20120810.Query",
         body={"TableName": "Ünïcode", "Limit": 1},
         time="2026-02-28T23:59:59"),
]


def sign(case):
    body = json.dumps(case["body"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": case["target"]}
    request = AWSRequest(method="POST", url=case["url"], data=body, headers=headers)
    credentials = Credentials(case["access"], case["secret"], case["token"])
    when = datetime.datetime.fromisoformat(case["time"])
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=when):
        botocore.auth.SigV4Auth(credentials, "dynamodb", case["region"]).add_auth(request)
    host = request.url.split("/")[2]
    return {
        "name": case["name"],
        "accessKeyID": case["access"], "secretAccessKey": case["secret"], "sessionToken": case["token"],
        "region": case["region"], "service": "dynamodb",
        "host": host, "headers": headers, "body": body.decode(),
        "epochSeconds": int(when.replace(tzinfo=datetime.timezone.utc).timestamp()),
        "expected": {
            "X-Amz-Date": request.headers["X-Amz-Date"],
            "X-Amz-Security-Token": request.headers.get("X-Amz-Security-Token"),
            "Authorization": request.headers["Authorization"],
        },
    }


print(json.dumps({"botocore": botocore.__version__, "vectors": [sign(c) for c in CASES]}, indent=2, ensure_ascii=False))
