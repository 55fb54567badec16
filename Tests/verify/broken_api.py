#!/usr/bin/env python3
"""A small token-paginated list API with one deliberate bug per mode, for `pagebench verify`.

GET /p/{partition}/items?limit=N[&nextToken=T] answers
{"items": [{"id": "a-07", "row": 7}, ...], "nextToken": "..." | null, "scanned": K}.
Each partition (a, b, c) holds 40 rows; a fixed filter keeps the rows not divisible by 3, so a
page evaluates `limit` rows and returns the kept ones (pages may be short or empty: a cost,
not a bug). Tokens are base64url JSON {p, o (next row), l (limit)} with an HMAC: a token that
does not verify, or of another partition or limit, is a 400. Limits below 1 are a 400, above
1000 are capped; an unknown partition is a 404. An optional `&color=red|blue` chooses the filter:
red keeps the same rows as none, blue keeps the others (divisible by 3); a token binds its color
too (another color's token is a 400), and any other color is a 400.

Modes (argv[1]), each breaking one rule of docs/contract.md's V family and nothing else:
  ok                  none
  duplicate           V1: at limit >= 2 the next page starts one row early (an item twice)
  skip_small          V1: at limit 1 the row 7 is never returned (skipped only at small limits)
  long_page           V2: at limit 1 a page returns two rows
  limit_after_filter  V2: the limit is applied after the filter (a page evaluates past it)
  cycle               V3: at limit 1, page 6's token is page 3's again (a token cycle)
  single_use          V4: a token works once; sent again it is a 400
  garbled_500         V5: a token that does not verify is a 500
  garbled_hang        V5: a token that does not verify is answered after 5 s (a hang)
  filter_unbound      V5: a token of another color is accepted (it goes on with this color's rows)
  error_500           V6: a limit below 1 is a 500
  racy                V7: while another request is in flight, a page skips a row

Prints `listening on http://127.0.0.1:PORT` and serves until stdin closes or SIGTERM.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import signed_tokens

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
ROWS = 40
PARTITIONS = ("a", "b", "c")
KEY = b"verify-fixture"
used_tokens = set()
in_flight = 0
lock = threading.Lock()


def kept(row, color=None):
    return row % 3 == 0 if color == "blue" else row % 3 != 0


def sign(payload):
    if MODE == "single_use":
        payload = dict(payload, n=os.urandom(6).hex())  # each answer its own token
    return signed_tokens.sign(payload, KEY)


def unsign(token):
    return signed_tokens.unsign(token, KEY)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global in_flight
        with lock:
            in_flight += 1
            crowded = in_flight > 1
        try:
            if MODE == "racy":
                time.sleep(0.03)
                with lock:
                    crowded = crowded or in_flight > 1
            self.page(crowded)
        finally:
            with lock:
                in_flight -= 1

    def page(self, crowded):
        url = urlparse(self.path)
        parts = url.path.split("/")
        if len(parts) != 4 or parts[1] != "p" or parts[3] != "items":
            return self.answer(404, {"error": "no such route"})
        partition = parts[2]
        if partition not in PARTITIONS:
            return self.answer(404, {"error": f"no partition {partition}"})
        query = parse_qs(url.query)
        try:
            limit = int(query.get("limit", ["10"])[0])
        except ValueError:
            return self.answer(400, {"error": "limit must be a whole number"})
        if limit < 1:
            return self.answer(500 if MODE == "error_500" else 400, {"error": "limit must be at least 1"})
        limit = min(limit, 1000)
        color = query.get("color", [None])[0]
        if color not in (None, "red", "blue"):
            return self.answer(400, {"error": f"no color {color}"})
        offset = 0
        token = query.get("nextToken", [None])[0]
        if token is not None:
            claims = unsign(token)
            if claims is None:
                if MODE == "garbled_hang":
                    time.sleep(5)
                return self.answer(500 if MODE == "garbled_500" else 400, {"error": "invalid token"})
            if claims["p"] != partition or claims["l"] != limit or (claims.get("f") != color and MODE != "filter_unbound"):
                return self.answer(400, {"error": "token of another request"})
            if MODE == "single_use":
                with lock:
                    if token in used_tokens:
                        return self.answer(400, {"error": "token already used"})
                    used_tokens.add(token)
            offset = claims["o"]
        if MODE == "duplicate" and token is not None and limit >= 2:
            offset -= 1
        evaluated = list(range(offset, min(offset + limit, ROWS)))
        if MODE == "long_page" and limit == 1:
            evaluated = list(range(offset, min(offset + 2, ROWS)))
        if MODE == "limit_after_filter":
            evaluated = []
            row = offset
            while row < ROWS and sum(1 for r in evaluated if kept(r, color)) < limit:
                evaluated.append(row)
                row += 1
        if MODE == "racy" and crowded and evaluated:
            evaluated = evaluated[1:]
        returned = [r for r in evaluated if kept(r, color) and not (MODE == "skip_small" and limit == 1 and r == 7)]
        next_offset = (evaluated[-1] + 1) if evaluated else offset + limit
        following = None
        if next_offset < ROWS:
            following = sign({"p": partition, "o": next_offset, "l": limit, "f": color})
            if MODE == "cycle" and limit == 1 and next_offset == 6:
                following = sign({"p": partition, "o": 3, "l": limit, "f": color})
        document = {"items": [{"id": f"{partition}-{r:02d}", "row": r} for r in returned], "nextToken": following}
        if MODE != "long_page":  # it does not say how many rows it looked at
            document["scanned"] = len(evaluated)
        self.answer(200, document)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
