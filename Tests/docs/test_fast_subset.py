"""The fast subset (.ci/test-fast, docs/contributing.md) leaves out every Swift test suite that
starts a server, a subprocess or opens a socket: a suite whose file uses one of the markers
below is named in the script's INTEGRATION_SUITES, and every name there is a suite that exists
(a renamed suite would otherwise drop out of the list unnoticed and slow the subset down)."""
import os
import re

from pagebench_support import ROOT

SCRIPT = os.path.join(ROOT, ".ci", "test-fast")
# What starting a server, a process or a socket looks like in the Swift tests.
MARKERS = re.compile(
    r"\bProcess\(\)|posix_spawn|\bwithLiveServer\(|\bScriptedHTTPServer\b|\bServeProcess\b|ServerBootstrap|"
    r"ClientBootstrap|\bwithServer[(\s{]|\bChildServer\.|\bworkerExecutable:|\bWorkerPool\(|\bLocalWorkers\(|"
    r"\bHTTPRequestClient\(|\bHTTP1ConnectionPool\(|\bHTTPStoreSource\(|\bHTTPDrainLoad\(")
SUITE = re.compile(r"^(?:@Suite\b[^\n]*\n)?(?:@Suite\b[^\n]*\s)?(?:final\s+)?(?:struct|class|enum|actor)\s+(\w+)", re.M)


def listed(name="INTEGRATION_SUITES"):
    text = open(SCRIPT, encoding="utf-8").read()
    body = re.search(name + r"=\(\n(.*?)\n\)", text, re.S).group(1)
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]


def suites():
    """(module, suite, uses a marker) for every top-level @Suite type of Tests/*Tests."""
    found = []
    tests = os.path.join(ROOT, "Tests")
    for module in sorted(os.listdir(tests)):
        folder = os.path.join(tests, module)
        if not (module.endswith("Tests") and os.path.isdir(folder)):
            continue
        for directory, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                text = open(os.path.join(directory, name), encoding="utf-8").read()
                marked = bool(MARKERS.search(text))
                for match in re.finditer(r"^@Suite\b[^\n]*?(?:\n|\s)(?:final\s+)?(?:struct|class|enum|actor)\s+(\w+)",
                                         text, re.M):
                    found.append((module, match.group(1), marked, os.path.relpath(os.path.join(directory, name), ROOT)))
    return found


def covered(module, suite, names):
    return suite in names or f"{module}.{suite}" in names


def test_every_suite_with_a_server_process_or_socket_is_left_out():
    names = set(listed())
    missing = [f"{path}: {module}.{suite}" for module, suite, marked, path in suites()
               if marked and not covered(module, suite, names)]
    assert not missing, "add these suites to INTEGRATION_SUITES in .ci/test-fast:\n" + "\n".join(missing)


def test_every_left_out_suite_exists():
    known = {suite for _, suite, _, _ in suites()} | {f"{module}.{suite}" for module, suite, _, _ in suites()}
    stale = [name for name in listed() + listed("SLOW_SUITES") if name not in known]
    assert not stale, f"INTEGRATION_SUITES in .ci/test-fast names suites that do not exist: {stale}"


def test_most_suites_are_in_the_subset():
    # The subset is the edit–test loop: most suites stay in it.
    all_suites = suites()
    names = set(listed() + listed("SLOW_SUITES"))
    kept = [s for s in all_suites if not covered(s[0], s[1], names)]
    assert len(all_suites) > 50 and len(kept) > len(all_suites) // 2, (len(kept), len(all_suites))
