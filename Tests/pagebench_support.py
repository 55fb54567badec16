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
    """`pagebench serve --port 0 OPTIONS…`; `endpoint` (http://127.0.0.1:PORT, https:// with
    --tls-cert) once it listens."""

    def __init__(self, *options):
        import re
        self.process = subprocess.Popen([pagebench_binary(), "serve", "--port", "0", *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (https?://[\d.]+:\d+)", line)
        if not match:
            self.process.kill()
            raise AssertionError(f"serve did not start: {line!r} {self.process.stderr.read()}")
        self.endpoint = match.group(1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


# Tests/PagebenchTargetsTests/Servers/misbehaving.py: a JSON list API that misbehaves on purpose.
MISBEHAVING = os.path.join(ROOT, "Tests", "PagebenchTargetsTests", "Servers", "misbehaving.py")
# docs/examples/rest-target.json: a REST target file; `pagebench serve` stands in for its API.
REST_TARGET = os.path.join(ROOT, "docs", "examples", "rest-target.json")


def misbehaving_api():
    """Starts misbehaving.py (``MISBEHAVING``); returns (process, endpoint) once it listens. Its
    stdout stays open for what it prints (`served 20`, `hanging PATH`); closing its stdin or
    killing it stops it."""
    import sys
    server = subprocess.Popen([sys.executable, MISBEHAVING], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().split("listening on ")[1].strip()


def rest_target(directory, endpoint, **changes):
    """docs/examples/rest-target.json with `endpoint` and `changes`, written to
    DIRECTORY/rest-target.json; its path."""
    import json
    target = json.load(open(REST_TARGET, encoding="utf-8"))
    target.update(endpoint=endpoint, **changes)
    path = os.path.join(str(directory), "rest-target.json")
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(target))
    return path


def store_pages(*arguments):
    """`pagebench pages ARGUMENTS…` (store options included): one dict per page."""
    import json
    result = subprocess.run([pagebench_binary(), "pages", *arguments], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines()]


def default_signals():
    """For `preexec_fn`: SIGINT and SIGTERM as a terminal's foreground job has them (a
    non-interactive shell's background jobs would ignore SIGINT)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_until_marker(arguments, marker, act, directory, command="run", watch="stderr"):
    """Starts `pagebench COMMAND ARGUMENTS` in `directory` with default signal dispositions,
    waits for `marker` on the `watch` stream (stderr: progress; stdout: a knee's step
    lines), calls `act(process)` (signal it, kill its server, …) and waits for it to end.
    Returns (returncode, stdout, stderr); nothing is timed but a limit against a hang."""
    import signal
    import threading
    other_file = open(os.path.join(directory, "other.txt"), "w+", encoding="utf-8")
    watched = subprocess.PIPE
    process = subprocess.Popen([pagebench_binary(), command] + arguments, cwd=directory, stdin=subprocess.DEVNULL,
                               stdout=watched if watch == "stdout" else other_file,
                               stderr=watched if watch == "stderr" else other_file, text=True,
                               preexec_fn=default_signals, start_new_session=True)
    stream = process.stdout if watch == "stdout" else process.stderr
    lines = []
    seen = threading.Event()

    def read_watched():
        for line in stream:
            lines.append(line)
            if marker in line:
                seen.set()
        seen.set()

    reader = threading.Thread(target=read_watched)
    reader.start()
    try:
        seen.wait(timeout=300)
        assert process.poll() is None, "pagebench ended before the marker was acted on:\n" + "".join(lines)
        act(process)
        process.wait(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        reader.join()
        other_file.seek(0)
        other = other_file.read()
        other_file.close()
    watched_text = "".join(lines)
    return (process.returncode, watched_text, other) if watch == "stdout" else (process.returncode, other, watched_text)
