"""The documentation stays inside the repository (issue 27): nothing points outside the clone
(no path into the shared folder beside the clone), and every relative link of README.md, docs/ and results/README.md names a
file or folder that exists."""
import os
import re
import subprocess

from pagebench_support import ROOT

# Written on other branches of this session (the A/A gate's docs/gate.md, issue 26's
# docs/comparing.md): linked from here before they are merged. Remove once both exist.
PENDING = {"docs/gate.md", "docs/comparing.md"}
OUTSIDE = ".." + "/shared"          # split so that this file does not match itself
OLD_CONTRACT = "SEMANTICS" + ".md"  # the contract's name outside the clone; now docs/contract.md
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tracked_files():
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout:
        return listed.stdout.splitlines()
    return [os.path.relpath(os.path.join(d, f), ROOT) for d, dirs, files in os.walk(ROOT)
            for f in files if not d.startswith(os.path.join(ROOT, ".build")) and "/.git" not in d]


def test_nothing_points_outside_the_repository():
    offenders = []
    for path in tracked_files():
        try:
            text = open(os.path.join(ROOT, path), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE in line or OLD_CONTRACT in line:
                offenders.append(f"{path}:{number}: {line.strip()}")
    assert not offenders, "points outside the repository:\n" + "\n".join(offenders)


def documents():
    names = ["README.md", "results/README.md"]
    names += [os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs"))) if n.endswith(".md")]
    return names


def test_every_relative_link_resolves():
    broken = []
    for document in documents():
        text = open(os.path.join(ROOT, document), encoding="utf-8").read()
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(document), target.split("#")[0]))
            if not os.path.exists(os.path.join(ROOT, path)) and path not in PENDING:
                broken.append(f"{document}: {target}")
    assert not broken, "links to nothing:\n" + "\n".join(broken)
