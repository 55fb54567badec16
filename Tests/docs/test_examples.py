"""Every example marked `<!-- runnable -->` in README.md and docs/ is run against the built
binary, so a command or its output cannot drift from the code (issue 27).

A runnable example is a ```console block right after the marker: `$ COMMAND` lines (a
trailing `\\` continues one) each followed by the output they print. A command ending in
`&` is started in the background (`pagebench serve`) and stopped after the block; its first
line of output is checked. Each command runs with `bash -c` in a scratch directory that
links Benchmarks/ and Tests/ and copies docs/ (so `results/…` outputs land there), with
`pagebench` on PATH. Checks:

- the exit status is 0, or the `exit N` line the example prints (`; echo "exit $?"`);
- every shown output line appears in what the command printed, compared on its words
  without digits (the words are the code's; the numbers are measured and vary). Lines
  holding "…" mark elided output; `<!-- runnable: skip-lines=REGEX -->` leaves lines
  matching REGEX unchecked (the knee's steps, which vary with the machine's load).

Port 8080 in an example is replaced by a free port, in the commands, the copied
docs/examples/ files and the expected output alike.
"""
import os
import re
import shutil
import socket
import subprocess
import tempfile

import pytest

from pagebench_support import ROOT, pagebench_binary

MARKER = re.compile(r"<!-- runnable(?::\s*(?P<options>[^>]*?))?\s*-->\s*\n```console\n(?P<body>.*?)\n```", re.S)
DOCUMENTS = ["README.md"] + sorted(os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs"))
                                   if name.endswith(".md"))


def examples():
    found = []
    for document in DOCUMENTS:
        text = open(os.path.join(ROOT, document), encoding="utf-8").read()
        for match in MARKER.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(match.group("options") or "", match.group("body"), id=f"{document}:{line}"))
    return found


def parse(body):
    """[(command, [expected output lines])] of one console block."""
    steps, command, pending = [], None, None
    for line in body.split("\n"):
        if pending is not None:
            pending += "\n" + line
            if not line.endswith("\\"):
                steps.append((pending, []))
                pending = None
        elif line.startswith("$ "):
            command = line[2:]
            if command.endswith("\\"):
                pending = command
            else:
                steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        else:
            raise AssertionError(f"output before the first command: {line!r}")
    return steps


def shape(line):
    """The line's words without digits: what the code writes, not what was measured. A rule
    of dashes is as wide as the widest value, and whether a change is better or worse was
    measured too, and so are the units a size or a time is printed in."""
    words = []
    for word in line.split():
        if any(c.isdigit() for c in word):
            continue
        if set(word) == {"-"} and len(word) > 1:
            word = "---"
        elif word.strip("()") in ("better", "worse"):
            word = "(better-or-worse)"
        elif word in ("B", "KiB", "MiB", "GiB", "TiB", "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"):
            word = "(bytes)"  # the unit follows the magnitude
        elif word in ("ns", "µs", "ms", "s"):
            word = "(time)"
        words.append(word)
    return tuple(words)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_output(command, expected, actual, returncode, skip):
    exits = [line for line in expected if re.fullmatch(r"exit \d+", line)]
    if exits:
        assert exits[-1] in actual.splitlines(), f"{command}: expected {exits[-1]!r}; printed:\n{actual}"
    else:
        assert returncode == 0, f"{command}: exit {returncode}; printed:\n{actual}"
    shapes = {shape(line) for line in actual.splitlines()}
    for line in expected:
        if not line.strip() or "…" in line or (skip and re.search(skip, line)) or not shape(line):
            continue
        assert shape(line) in shapes, f"{command}: the example shows\n  {line}\nbut the command printed:\n{actual}"


def test_the_documents_have_runnable_examples():
    # The README's six journeys each have one; a marker lost in an edit must not pass silently.
    assert len(examples()) >= 6


@pytest.mark.parametrize("options,body", examples())
def test_example_runs_as_shown(options, body):
    skip = None
    for option in options.split():
        key, _, value = option.partition("=")
        assert key == "skip-lines", f"unknown runnable option {option!r}"
        skip = value
    port = str(free_port())
    work = tempfile.mkdtemp(prefix="pagebench-example-")
    background = []
    try:
        for name in ("Benchmarks", "Tests"):
            os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
        shutil.copytree(os.path.join(ROOT, "docs"), os.path.join(work, "docs"))
        for directory, _, files in os.walk(os.path.join(work, "docs", "examples")):
            for name in files:
                path = os.path.join(directory, name)
                text = open(path, encoding="utf-8").read()
                open(path, "w", encoding="utf-8").write(text.replace("127.0.0.1:8080", "127.0.0.1:" + port))
        binaries = os.path.join(work, ".bin")
        os.mkdir(binaries)
        os.symlink(pagebench_binary(), os.path.join(binaries, "pagebench"))
        environment = dict(os.environ, PATH=binaries + os.pathsep + os.environ["PATH"])
        for command, expected in parse(body):
            command = command.replace("--port 8080", "--port " + port)
            expected = [line.replace("127.0.0.1:8080", "127.0.0.1:" + port) for line in expected]
            if command.rstrip().endswith("&"):
                process = subprocess.Popen(["bash", "-c", "exec " + command.rstrip()[:-1]], cwd=work, env=environment,
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                background.append(process)
                first = process.stdout.readline()
                check_output(command, expected[:1], first, 0, skip)
                continue
            result = subprocess.run(["bash", "-c", command], cwd=work, env=environment, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=900)
            check_output(command, expected, result.stdout, result.returncode, skip)
    finally:
        for process in background:
            process.terminate()
            process.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
