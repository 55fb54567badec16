"""results/README.md indexes every committed measurement (issue 27): each file under results/
is covered by an entry of its tables (a file, a glob such as `goal-cancellation-*.csv`, a
brace list such as `goal-overhead-2026-11-22{,b}.csv`, or a folder `name/` covering all it
holds), and every entry covers at least one file, so a stale entry fails too."""
import fnmatch
import os
import re
import subprocess

from pagebench_support import ROOT

RESULTS = os.path.join(ROOT, "results")


def results_files():
    """Files under results/ that git tracks or would (not ignored); on disk if not a checkout."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "results"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout.strip():
        paths = [p[len("results/"):] for p in listed.stdout.splitlines()]
    else:
        paths = [os.path.relpath(os.path.join(d, f), RESULTS) for d, _, files in os.walk(RESULTS) for f in files]
        ignored = ("latest.csv", "tmp/", "shards/")
        paths = [p for p in paths if not p.startswith(ignored)]
    return sorted(p for p in paths if p != "README.md")


def expand(pattern):
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    return [e for choice in match.group(1).split(",")
            for e in expand(pattern[:match.start()] + choice + pattern[match.end():])]


def index_entries():
    entries = []
    for line in open(os.path.join(RESULTS, "README.md"), encoding="utf-8"):
        if not line.startswith("| `"):
            continue
        first_cell = line.split("|")[1]
        for token in re.findall(r"`([^`]+)`", first_cell):
            entries.extend(expand(token))
    return entries


def covers(entry, path):
    if entry.endswith("/"):
        return path.startswith(entry)
    return fnmatch.fnmatchcase(path, entry)


def test_every_file_under_results_is_in_the_index():
    entries = index_entries()
    missing = [p for p in results_files() if not any(covers(e, p) for e in entries)]
    assert not missing, "not in results/README.md:\n" + "\n".join(missing)


def test_every_index_entry_names_a_file():
    files = results_files()
    stale = [e for e in index_entries() if not any(covers(e, p) for p in files)]
    assert not stale, "results/README.md lists what results/ does not hold:\n" + "\n".join(stale)


def test_expand_and_covers():
    assert expand("a-{,b}.csv") == ["a-.csv", "a-b.csv"]
    assert covers("knee/", "knee/x.csv") and not covers("knee/", "kneex.csv")
    assert covers("goal-*.csv", "goal-a.csv") and not covers("goal-*.csv", "x/goal-a.csv.txt")
