"""The `pagebench …` commands of the README's and docs' ```sh blocks, which are not run
(they need minutes, a server or files of your own), still name only subcommands and flags
that exist: each is checked against `pagebench SUBCOMMAND --help` (issue 27). The runnable
console examples are run whole by test_examples.py."""
import os
import re
import subprocess

from pagebench_support import ROOT, pagebench_binary

BLOCK = re.compile(r"```sh\n(.*?)\n```", re.S)
DOCUMENTS = ["README.md"] + [os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs")))
                             if n.endswith(".md")]
SUBCOMMANDS_WITH_SUBCOMMANDS = {"baseline"}


def commands():
    """(document, line, words) of every line in a sh block that runs pagebench."""
    found = []
    for document in DOCUMENTS:
        text = open(os.path.join(ROOT, document), encoding="utf-8").read()
        for block in BLOCK.finditer(text):
            first = text.count("\n", 0, block.start(1)) + 1
            joined = block.group(1).replace("\\\n", " ")
            for offset, line in enumerate(joined.split("\n")):
                line = line.split(" #")[0]
                match = re.search(r"(?:^|&&|;)\s*(?:swift run (?:-c release )?)?pagebench\s+([a-z-]+)(.*)", line)
                if match and not line.lstrip().startswith(("#", "PAGEBENCH_")):
                    found.append((document, first + offset, match.group(1), match.group(2)))
    return found


def help_text(subcommand, cache={}):
    if subcommand not in cache:
        result = subprocess.run([pagebench_binary(), *subcommand.split(), "--help"], capture_output=True, text=True)
        cache[subcommand] = (result.returncode, result.stdout + result.stderr)
    return cache[subcommand]


def test_documented_commands_name_real_subcommands_and_flags():
    found = commands()
    assert len(found) >= 20, "the sh examples were not found"
    problems = []
    for document, line, subcommand, rest in found:
        if subcommand in SUBCOMMANDS_WITH_SUBCOMMANDS:
            words = rest.split()
            if words and not words[0].startswith("-"):
                subcommand += " " + words[0]
        rest = rest.split(" -- ")[0]  # what follows -- goes to the steps' `run`
        status, text = help_text(subcommand)
        if status != 0:
            problems.append(f"{document}:{line}: no subcommand 'pagebench {subcommand}'")
            continue
        for flag in re.findall(r"(?:^|\s)\[?(--[a-z][a-z0-9-]*)", rest):
            if not re.search(re.escape(flag) + r"(?![a-z0-9-])", text):
                problems.append(f"{document}:{line}: 'pagebench {subcommand}' has no {flag}")
    assert not problems, "\n".join(problems)
