#!/usr/bin/env python3
"""A GraphQL list API written with strawberry (served by uvicorn on a free loopback port) whose
refusals carry `extensions.code` as real servers set it, or not at all, for `pagebench verify`.

`listItems(partition: Int!, limit: Int!, nextToken: String)` answers an AppSync-style page
`{items {id}, nextToken}`. Partitions 0, 1 and 2 hold 12 items each. Tokens are base64url JSON
{p, o (next item), l (limit)} with an HMAC: a token that does not verify, or of another
partition or limit, a limit below 1 and an unknown partition are refused with HTTP 200 and an
`errors` entry (GraphQL's way). Limits above 1000 are capped; graphql-core itself refuses a
limit beyond 32 bits (a validation error without a code).

Modes (argv[1]), how a refusal is said:
  coded      extensions.code BAD_USER_INPUT (Apollo Server's code for bad arguments)
  uncoded    a plain exception: strawberry's error entry carries no extensions.code
  internal   as coded, but a token that does not verify is INTERNAL_SERVER_ERROR (a server fault)
  throttle_once  as coded, but the first request with a token is refused with THROTTLED (a retry works)

Prints `listening on http://127.0.0.1:PORT` once it accepts connections; stops when stdin closes.
"""
import os
import sys
from typing import List, Optional

import strawberry
from graphql import GraphQLError
from strawberry.asgi import GraphQL

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "PagebenchTargetsTests", "Servers"))
from local_server import serve_asgi  # noqa: E402  (the test servers' shared loop)

import signed_tokens  # noqa: E402  (a neighbour of this script)

MODE = sys.argv[1] if len(sys.argv) > 1 else "coded"
ITEMS = 12
PARTITIONS = (0, 1, 2)
KEY = b"verify-graphql-fixture"
throttled = []


def refuse(message, code="BAD_USER_INPUT"):
    if MODE == "uncoded":
        raise ValueError(message)
    raise GraphQLError(message, extensions={"code": code})


def sign(payload):
    return signed_tokens.sign(payload, KEY)


def unsign(token):
    return signed_tokens.unsign(token, KEY)


@strawberry.type
class Item:
    id: str


@strawberry.type
class ItemPage:
    items: List[Item]
    nextToken: Optional[str]


@strawberry.type
class Query:
    @strawberry.field
    def listItems(self, partition: int, limit: int, nextToken: Optional[str] = None) -> ItemPage:
        if partition not in PARTITIONS:
            refuse(f"no partition {partition}")
        if limit < 1:
            refuse("limit must be at least 1")
        limit = min(limit, 1000)
        start = 0
        if nextToken is not None and MODE == "throttle_once" and not throttled:
            throttled.append(nextToken)
            refuse("slow down", "THROTTLED")
        if nextToken is not None:
            claims = unsign(nextToken)
            if claims is None:
                refuse("invalid token", "INTERNAL_SERVER_ERROR" if MODE == "internal" else "BAD_USER_INPUT")
            if claims["p"] != partition or claims["l"] != limit:
                refuse("token of another request")
            start = claims["o"]
        end = min(start + limit, ITEMS)
        items = [Item(id=f"{partition}-{i:02d}") for i in range(start, end)]
        following = sign({"p": partition, "o": end, "l": limit}) if end < ITEMS else None
        return ItemPage(items=items, nextToken=following)


def main():
    serve_asgi(GraphQL(strawberry.Schema(query=Query)))


if __name__ == "__main__":
    main()
