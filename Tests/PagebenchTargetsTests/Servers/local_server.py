"""What the test servers share (orders_api.py, misbehaving.py, graphql_app.py and
Tests/verify/graphql_api.py): a JSON handler on HTTP/1.1 and the loop that serves it on
127.0.0.1 until stdin closes, and the same loop for an ASGI app under uvicorn.

A server script run as `python3 Servers/NAME.py` imports this file as its neighbour."""
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JSONHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Without this, Python's server stalls ~40 ms per response (Nagle + delayed ACK).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        """Answers `status` with `body` (text or bytes, sent as it is) and a Content-Length."""
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status, document):
        """Answers `status` with `document` as JSON."""
        self.send(status, json.dumps(document))


def serve(handler):
    """Serves `handler` on 127.0.0.1 at a free port: prints `listening on http://127.0.0.1:PORT`,
    stops when stdin closes (or on SIGTERM)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)

    def watch_stdin():
        sys.stdin.read()
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


def serve_asgi(app):
    """Serves the ASGI `app` with uvicorn on 127.0.0.1 at a free port: prints `listening on
    http://127.0.0.1:PORT` once it accepts connections, stops when stdin closes."""
    import uvicorn  # only the GraphQL servers need it

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
