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
import base64
import hashlib
import hmac
import json
import socket
import sys
import threading
from typing import List, Optional

import strawberry
import uvicorn
from graphql import GraphQLError
from strawberry.asgi import GraphQL

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
    body = base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode().rstrip("=")
    return body + "." + hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:16]


def unsign(token):
    body, _, mac = token.partition(".")
    if not hmac.compare_digest(hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:16], mac):
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except ValueError:
        return None


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
    app = GraphQL(strawberry.Schema(query=Query))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))

    def announce():
        while not server.started:
            threading.Event().wait(0.02)
        print(f"listening on http://127.0.0.1:{port}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        server.should_exit = True

    threading.Thread(target=announce, daemon=True).start()
    threading.Thread(target=watch_stdin, daemon=True).start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
