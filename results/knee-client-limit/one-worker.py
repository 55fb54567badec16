#!/usr/bin/env python3
"""A list API that saturates: one worker serves every request in turn (a lock around a fixed
service time), so it answers at most 1/SERVICE requests a second and, above that, requests
queue and page latency grows. The case the knee must call the API's own limit, not the pager
pool's (results/knee-client-limit.md).

    python3 one-worker.py PORT_FILE SERVICE_MS [PARTITIONS [ITEMS_PER_PARTITION]]

Serves GET /partitions/{p}/items?limit=N&nextToken=T on 127.0.0.1 (a free port, written to
PORT_FILE): `{"items": [...], "nextToken": "..."}`, the last page without nextToken, in the
shape of `pagebench serve`'s REST endpoint.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PORT_FILE = sys.argv[1]
SERVICE = float(sys.argv[2]) / 1000
PARTITIONS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
ITEMS = int(sys.argv[4]) if len(sys.argv) > 4 else 390
WORKER = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        query = parse_qs(url.query)
        if len(parts) != 3 or parts[0] != "partitions" or parts[2] != "items" or not parts[1].isdigit() or int(parts[1]) >= PARTITIONS:
            return self.answer(404, {"error": "no such path"})
        partition = int(parts[1])
        limit = int(query.get("limit", ["100"])[0])
        start = int(query.get("nextToken", ["0"])[0])
        with WORKER:
            time.sleep(SERVICE)
        end = min(start + limit, ITEMS)
        page = {"items": [{"pk": partition, "sk": sk} for sk in range(start, end)]}
        if end < ITEMS:
            page["nextToken"] = str(end)
        self.answer(200, page)

    def answer(self, status, body):
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled the drain at the end of a phase


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
