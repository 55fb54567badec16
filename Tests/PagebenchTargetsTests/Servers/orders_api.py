#!/usr/bin/env python3
"""A small REST list API with a DynamoDB-like filter, for issue 35's first journey.

GET /orders/P?limit=L[&filter=category=K][&next=T]

Partition P (0-3) holds 40 orders; order i has category i % 25. Like a DynamoDB Query with a
FilterExpression, `limit` bounds the orders *evaluated* per page, and the filter is applied
after: a page evaluates orders [T, T+L), returns those of category K (all without a filter),
says how many it evaluated (`scannedCount`) and, while orders remain, the next offset as
`next`. So at limit 10 with category=0 every drain is 4 pages: 1 order, an empty page with a
token, 1 order, and an empty last page; 40 orders evaluated.

Prints `listening on http://127.0.0.1:PORT`; stops when stdin closes or on SIGTERM.
"""
from urllib.parse import parse_qs, urlparse

from local_server import JSONHandler, serve

ORDERS_PER_PARTITION = 40


class Handler(JSONHandler):
    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 2 or parts[0] != "orders" or not parts[1].isdigit() or int(parts[1]) > 3:
            return self.send_json(404, {"message": "no such partition"})
        query = parse_qs(url.query)
        try:
            limit = int(query.get("limit", ["10"])[0])
            start = int(query.get("next", ["0"])[0])
        except ValueError:
            return self.send_json(400, {"message": "limit and next are numbers"})
        category = None
        text = query.get("filter", [""])[0]
        if text:
            name, _, value = text.partition("=")
            if name != "category" or not value.isdigit():
                return self.send_json(400, {"message": f"unsupported filter {text!r}"})
            category = int(value)
        end = min(start + limit, ORDERS_PER_PARTITION)
        evaluated = range(start, end)
        items = [{"partition": int(parts[1]), "order": i, "category": i % 25}
                 for i in evaluated if category is None or i % 25 == category]
        document = {"items": items, "scannedCount": len(evaluated)}
        if end < ORDERS_PER_PARTITION:
            document["next"] = str(end)
        self.send_json(200, document)


if __name__ == "__main__":
    serve(Handler)
