"""Access control says who may touch a thing (issue 39, STYLE.md): only the modules a library
product exports, and the modules their public API is built from, declare `public`; every other
module of the package says `package`. The exported set is read from Package.swift (the library
products and every target they depend on), so a new product or dependency needs no edit here."""
import json
import os
import re
import shutil
import subprocess

import pytest

from pagebench_support import ROOT

PUBLIC_DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\((?:[^()]|\([^()]*\))*\))?\s+)*"
    r"(?:(?:final|nonisolated|override|static|indirect|convenience|required|mutating)\s+)*public\b(?! import)")


def exported_modules():
    if shutil.which("swift") is None:
        pytest.skip("swift is not on PATH")
    dumped = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True,
                            timeout=900)
    assert dumped.returncode == 0, dumped.stderr
    package = json.loads(dumped.stdout)
    dependencies = {}
    for target in package["targets"]:
        names = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in dependency:
                    names.add(dependency[kind][0])
        dependencies[target["name"]] = names
    exported = set()
    pending = [name for product in package["products"] if "library" in product["type"]
               for name in product["targets"]]
    while pending:
        name = pending.pop()
        if name in exported or name not in dependencies:
            continue
        exported.add(name)
        pending.extend(dependencies[name])
    return exported, set(dependencies)


def public_declarations(module):
    found = []
    folder = os.path.join(ROOT, "Sources", module)
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    if PUBLIC_DECLARATION.match(line):
                        found.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
    return found


def test_modules_no_product_exports_declare_package_not_public():
    exported, targets = exported_modules()
    assert "PagebenchPager" in exported and "PagebenchCLI" not in exported
    offenders = []
    for module in sorted(targets - exported):
        if os.path.isdir(os.path.join(ROOT, "Sources", module)):
            offenders += public_declarations(module)
    assert not offenders, ("declarations in modules no library product exports should be `package`, "
                           "not `public`:\n" + "\n".join(offenders[:40]))


def test_the_check_sees_a_public_declaration():
    assert PUBLIC_DECLARATION.match("    public func run() {}")
    assert PUBLIC_DECLARATION.match('    @OptionGroup(title: "Writes (S22–S26)") public var writes: WriteOptions')
    assert not PUBLIC_DECLARATION.match("public import Foundation")
    assert not PUBLIC_DECLARATION.match("    package func run() {}")
