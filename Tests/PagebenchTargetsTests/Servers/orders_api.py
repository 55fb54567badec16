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
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

ORDERS_PER_PARTITION = 40


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def send(self, status, document):
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 2 or parts[0] != "orders" or not parts[1].isdigit() or int(parts[1]) > 3:
            return self.send(404, {"message": "no such partition"})
        query = parse_qs(url.query)
        try:
            limit = int(query.get("limit", ["10"])[0])
            start = int(query.get("next", ["0"])[0])
        except ValueError:
            return self.send(400, {"message": "limit and next are numbers"})
        category = None
        text = query.get("filter", [""])[0]
        if text:
            name, _, value = text.partition("=")
            if name != "category" or not value.isdigit():
                return self.send(400, {"message": f"unsupported filter {text!r}"})
            category = int(value)
        end = min(start + limit, ORDERS_PER_PARTITION)
        evaluated = range(start, end)
        items = [{"partition": int(parts[1]), "order": i, "category": i % 25}
                 for i in evaluated if category is None or i % 25 == category]
        document = {"items": items, "scannedCount": len(evaluated)}
        if end < ORDERS_PER_PARTITION:
            document["next"] = str(end)
        self.send(200, document)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
