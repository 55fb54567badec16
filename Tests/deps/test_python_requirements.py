"""Every PyPI package a Python check under Tests/ imports is pinned in
.ci/python-requirements.txt, so that .ci/install-deps installs it on a fresh machine
(a package that is only there because another one pulled it in can change version, or
vanish, when that one is upgraded)."""
import ast
import re
import sys
from importlib import metadata
from pathlib import Path

from pagebench_support import ROOT

REQUIREMENTS = Path(ROOT, ".ci", "python-requirements.txt")


def normalized(name):
    """PEP 503: PyYAML, pyyaml and py_yaml are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned():
    """{project: version} of the requirements file (extras dropped)."""
    pins = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, separator, version = line.partition("==")
        assert separator, f"{REQUIREMENTS}: '{line}' is not pinned with =="
        pins[normalized(name.split("[", 1)[0])] = version
    return pins


def imported_modules():
    """{top-level module: [files]} imported by the Python files under Tests/, absolute imports only."""
    local = {path.stem for path in Path(ROOT, "Tests").rglob("*.py")}
    modules = {}
    for path in sorted(Path(ROOT, "Tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".", 1)[0]
                if top not in sys.stdlib_module_names and top not in local:
                    modules.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return modules


def test_every_imported_package_is_pinned_at_its_installed_version():
    pins = pinned()
    providers = metadata.packages_distributions()
    problems = []
    for module, files in sorted(imported_modules().items()):
        projects = providers.get(module)
        if not projects:
            problems.append(f"'{module}' (imported by {files[0]}) comes from no installed project: pin the project "
                            f"that provides it in {REQUIREMENTS.name}, then run .ci/install-deps")
            continue
        for project in projects:
            version = pins.get(normalized(project))
            if version is None:
                problems.append(f"'{module}' (imported by {files[0]}) comes from {project} "
                                f"{metadata.version(project)}, which {REQUIREMENTS.name} does not pin")
            elif metadata.version(project) != version:
                problems.append(f"{project} is pinned at {version} but {metadata.version(project)} is installed: "
                                f"run .ci/install-deps")
    assert not problems, "\n".join(problems)
