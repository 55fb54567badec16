#!/usr/bin/env python3
"""An independent GraphQL list API for pagebench's graphql kind (issue 14): strawberry-graphql
served by uvicorn on a free loopback port.

- `items(partition, first, after, last, before)`: a Relay connection built by strawberry's own
  `relay.ListConnection` (its cursors, its pageInfo), forward and backward.
- `listItems(partition, limit, nextToken)`: an AppSync-style page `{items, nextToken}`.
- `looping(limit, nextToken)`: returns the token it was sent, forever (P9).
- `failing(limit, nextToken)`: raises, so the response carries `errors` with HTTP 200 (T2).

Partition p holds 5*p + 3 items. Prints `listening on http://127.0.0.1:PORT` once it accepts
connections; stops when stdin closes or on SIGTERM.
"""
import base64
from typing import Iterable, List, Optional

import strawberry
from strawberry import relay
from strawberry.asgi import GraphQL

from local_server import serve_asgi


def count(partition: int) -> int:
    return 5 * partition + 3


@strawberry.type
class Item(relay.Node):
    key: relay.NodeID[str]
    partition: int
    sort: int

    @classmethod
    def resolve_nodes(cls, *, info, node_ids, required=False):
        return [None for _ in node_ids]


@strawberry.type
class ItemPage:
    items: List[Item]
    nextToken: Optional[str]


def page(partition: int, limit: int, token: Optional[str]) -> ItemPage:
    start = int(base64.b64decode(token).decode()) if token else 0
    end = min(start + limit, count(partition))
    items = [Item(key=f"{partition}-{i}", partition=partition, sort=i) for i in range(start, end)]
    more = end < count(partition)
    return ItemPage(items=items, nextToken=base64.b64encode(str(end).encode()).decode() if more else None)


@strawberry.type
class Query:
    @relay.connection(relay.ListConnection[Item])
    def items(self, partition: int) -> Iterable[Item]:
        return [Item(key=f"{partition}-{i}", partition=partition, sort=i) for i in range(count(partition))]

    @strawberry.field
    def listItems(self, partition: int, limit: int, nextToken: Optional[str] = None) -> ItemPage:
        return page(partition, limit, nextToken)

    @strawberry.field
    def looping(self, limit: int, nextToken: Optional[str] = None) -> ItemPage:
        return ItemPage(items=[], nextToken="again")

    @strawberry.field
    def failing(self, limit: int, nextToken: Optional[str] = None) -> ItemPage:
        raise ValueError("the list is unavailable")


def main():
    serve_asgi(GraphQL(strawberry.Schema(query=Query)))


if __name__ == "__main__":
    main()
