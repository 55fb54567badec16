"""docs/architecture.md stays true (issue 28): its module table names every library target of
Package.swift, each with exactly its direct dependencies among the package's own targets, and
every source and test folder has a target of its name."""
import json
import os
import re
import shutil
import subprocess

import pytest

from pagebench_support import ROOT

ROW = re.compile(r"^\| `(\w+)` \| .* \| ([^|]*) \|\s*$")


def documented_modules():
    modules = {}
    in_table = False
    for line in open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8"):
        if line.startswith("| module |"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        match = ROW.match(line.rstrip("\n")) if in_table else None
        if match:
            deps = match.group(2).strip()
            modules[match.group(1)] = set() if deps in ("—", "") else {d.strip() for d in deps.split(",")}
    return modules


def package_targets():
    if shutil.which("swift") is None:
        pytest.skip("swift is not on PATH")
    dumped = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True,
                            timeout=900)
    assert dumped.returncode == 0, dumped.stderr
    package = json.loads(dumped.stdout)
    ours = {target["name"] for target in package["targets"]}
    targets = {}
    for target in package["targets"]:
        deps = set()
        for dependency in target["dependencies"]:
            name = (dependency.get("byName") or dependency.get("target") or [None])[0]
            if name in ours:
                deps.add(name)
        targets[target["name"]] = (target["type"], deps)
    return targets


def test_the_module_table_is_the_package():
    documented = documented_modules()
    assert len(documented) >= 15, "the module table of docs/architecture.md was not found"
    targets = package_targets()
    libraries = {name for name, (kind, _) in targets.items()
                 if kind == "regular" and name.startswith("Pagebench")}
    assert set(documented) == libraries, (
        f"docs/architecture.md lists {sorted(set(documented) - libraries)} that are not library targets "
        f"and leaves out {sorted(libraries - set(documented))}")
    wrong = {name: (sorted(documented[name]), sorted(targets[name][1]))
             for name in libraries if documented[name] != targets[name][1]}
    assert not wrong, f"dependencies in docs/architecture.md (documented, actual) differ from Package.swift: {wrong}"


def test_every_folder_has_its_target():
    targets = package_targets()
    for parent in ("Sources", "Tests"):
        for name in sorted(os.listdir(os.path.join(ROOT, parent))):
            path = os.path.join(ROOT, parent, name)
            if not os.path.isdir(path) or not name.startswith("Pagebench"):
                continue
            assert name in targets, f"{parent}/{name} has no target in Package.swift"
    for name, (kind, _) in targets.items():
        if kind == "test":
            assert name.endswith("Tests")
            subject = name[: -len("Tests")]
            assert subject in targets, f"test target {name} has no module {subject} to mirror"


def test_where_a_change_goes_names_files_that_exist():
    """Every Swift file the "Where a change goes" table names (`X.swift`, `Module/…/X.swift`)
    exists under Sources/ or Tests/ (issue 39: the table and the code had drifted apart)."""
    text = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    table = text.split("## Where a change goes", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([\w+/.-]+\.swift)`", table))
    assert len(named) >= 15, "the table of docs/architecture.md was not found"
    files = set()
    for parent in ("Sources", "Tests"):
        for folder, _, names in os.walk(os.path.join(ROOT, parent)):
            for name in names:
                files.add(os.path.relpath(os.path.join(folder, name), os.path.join(ROOT, parent)))
    def exists(path):
        if "/" in path:  # a path inside a module, e.g. PagebenchHTTPClient/HTTPPageExchange.swift
            return any(f == path or f.endswith("/" + path) for f in files)
        return any(os.path.basename(f) == path for f in files)

    missing = sorted(path for path in named if not exists(path))
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
