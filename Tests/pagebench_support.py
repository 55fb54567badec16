"""What the Python checks under Tests/ share (Tests/conftest.py puts this directory on sys.path)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pagebench_binary():
    """$PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench."""
    if os.environ.get("PAGEBENCH_BIN"):
        return os.environ["PAGEBENCH_BIN"]
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_path, "pagebench")


class ServedStore:
    """`pagebench serve --port 0 OPTIONS…`; `endpoint` (http://127.0.0.1:PORT) once it listens."""

    def __init__(self, *options):
        import re
        self.process = subprocess.Popen([pagebench_binary(), "serve", "--port", "0", *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (http://[\d.]+:\d+)", line)
        if not match:
            self.process.kill()
            raise AssertionError(f"serve did not start: {line!r} {self.process.stderr.read()}")
        self.endpoint = match.group(1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def store_pages(*arguments):
    """`pagebench pages ARGUMENTS…` (store options included): one dict per page."""
    import json
    result = subprocess.run([pagebench_binary(), "pages", *arguments], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines()]
