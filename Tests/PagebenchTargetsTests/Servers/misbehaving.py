#!/usr/bin/env python3
"""A JSON list API that misbehaves on purpose, for pagebench's T2/T3 tests (issue 14).

GET /ok?limit=N[&nextToken=T]   20 items, pages of N, nextToken = next offset as a string
GET /auth?...                   as /ok, but 401 unless `Authorization: Bearer $EXPECTED_SECRET`
GET /forbidden                  403
GET /echo                       403 echoing the request's Authorization header (JSON, non-ASCII as \\u)
GET /echo/FORM                  403 echoing it as FORM: lower, upper, base64, or basic (the
                                text a Basic credential decodes to)
GET /notjson                    200 with an HTML body
GET /noitems                    200 {"data": []}
GET /badtoken                   200 with a numeric nextToken
GET /repeat?[nextToken=T]       200 {"items": [], "nextToken": "same"} forever (P9)
GET /pagetwo/KIND?[nextToken=T] a good first page with a token; the second page is KIND:
                                `notjson` (HTML), `500`, or `echo` (403 echoing the request's
                                Authorization header, as a careless server does)
GET /throttle?...               as /ok, but the first request for each token answers 429 Retry-After: 1
GET /unavailable                503 without Retry-After, always
GET /status/CODE                that status with a small JSON body
GET /okthenexit/N?...           as /ok, but the process exits right after the Nth page it answered
                                on this path (a server that goes away mid-run at a point set
                                by pages served, not by a clock)
GET /hang...                    no answer: prints `hanging PATH` on stdout, then waits until the
                                client goes away and prints `client left PATH`
GET /pages/...                  an empty page in `pagebench serve`'s body format with a new
                                token, forever (a drain that never ends, for http-bench);
                                after the 20th prints `served 20` on stdout

Prints `listening on http://127.0.0.1:PORT`; stops when stdin closes or on SIGTERM.
"""
import base64
import json
import os
import threading
from urllib.parse import parse_qs, urlparse

from local_server import JSONHandler, serve

SECRET = os.environ.get("EXPECTED_SECRET", "")
throttled = set()
served_pages = 0
pages_before_exit = 0
lock = threading.Lock()


class Handler(JSONHandler):
    def page(self, query):
        limit = int(query.get("limit", ["5"])[0])
        start = int(query.get("nextToken", ["0"])[0])
        end = min(start + limit, 20)
        items = [{"id": i, "name": f"item {i}"} for i in range(start, end)]
        token = str(end) if end < 20 else None
        self.send(200, json.dumps({"items": items, "nextToken": token}))

    def store_page(self):
        global served_pages
        with lock:
            served_pages += 1
            number = served_pages
        self.send(200, json.dumps({"items": [], "nextToken": f"t{number}", "returned": 0, "scanned": 0,
                                   "scannedBytes": 0}))
        if number == 20:
            print("served 20", flush=True)

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        path = url.path
        if path == "/ok":
            self.page(query)
        elif path.startswith("/okthenexit/"):
            global pages_before_exit
            self.page(query)
            self.wfile.flush()
            with lock:
                pages_before_exit += 1
                last = pages_before_exit >= int(path.split("/")[2])
            if last:
                os._exit(0)
        elif path == "/auth":
            if self.headers.get("Authorization") != f"Bearer {SECRET}":
                self.send(401, json.dumps({"message": "bad credentials"}))
            else:
                self.page(query)
        elif path.startswith("/echo/"):
            form, value = path.split("/")[2], self.headers.get("Authorization") or ""
            if form == "lower":
                echoed = value.lower()
            elif form == "upper":
                echoed = value.upper()
            elif form == "base64":
                echoed = base64.b64encode(value.encode()).decode()
            else:
                echoed = base64.b64decode(value.split(" ", 1)[-1]).decode(errors="replace")
            self.send(403, json.dumps({"you_sent": echoed}))
        elif path == "/echo":
            self.send(403, json.dumps({"you_sent": {"authorization": self.headers.get("Authorization")}}))
        elif path == "/forbidden":
            self.send(403, json.dumps({"message": "forbidden"}))
        elif path == "/notjson":
            self.send(200, "<html><body>maintenance</body></html>", content_type="text/html")
        elif path == "/noitems":
            self.send(200, json.dumps({"data": []}))
        elif path == "/badtoken":
            self.send(200, json.dumps({"items": [{"id": 1}], "nextToken": 5}))
        elif path.startswith("/pagetwo/"):
            kind = path.split("/")[2]
            if "nextToken" not in query:
                self.send(200, json.dumps({"items": [{"id": 1}], "nextToken": "2"}))
            elif kind == "notjson":
                self.send(200, "<html><body>page two is down</body></html>", content_type="text/html")
            elif kind == "echo":
                self.send(403, json.dumps({"you_sent": {"authorization": self.headers.get("Authorization")}}))
            else:
                self.send(500, json.dumps({"message": "page two failed"}))
        elif path == "/repeat":
            self.send(200, json.dumps({"items": [], "nextToken": "same"}))
        elif path == "/throttle":
            key = query.get("nextToken", ["0"])[0]
            with lock:
                first = key not in throttled
                throttled.add(key)
            if first:
                self.send(429, json.dumps({"message": "slow down"}), headers=[("Retry-After", "1")])
            else:
                self.page(query)
        elif path == "/unavailable":
            self.send(503, json.dumps({"message": "down"}))
        elif path.startswith("/pages/"):
            self.store_page()
        elif path.startswith("/hang"):
            print(f"hanging {path}", flush=True)
            self.rfile.read(1)  # b'' once the client closes the connection
            print(f"client left {path}", flush=True)
            self.close_connection = True
        elif path.startswith("/status/"):
            self.send(int(path.split("/")[2]), json.dumps({"message": "as asked"}))
        else:
            self.send(404, json.dumps({"message": "no such path"}))


if __name__ == "__main__":
    serve(Handler)
