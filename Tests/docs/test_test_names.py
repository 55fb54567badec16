"""One spelling of rule-ID test names (issue 28; docs/contributing.md, "Test names").

A Swift test that checks a rule of docs/contract.md starts its function name with the rule's
ID in lower case, then lower camel case: `func p13CancellingStopsPromptly()`; several rules
follow each other: `func p10p11LateSubscriberSeesPages()`. A display name, when there is one
and it names rules first, names them in capitals followed by a colon, and the function name
starts with the same IDs: `@Test("P8: pages answered at once …") func p8PagesAnsweredAtOnce()`.

Not allowed: `s15_foo`, `H2_foo`, `H1_S6_foo`, `fooH3` (a rule named at the end), and a display
name "H3: …" over a function that does not start with `h3`.

Run as a script, `python3 Tests/docs/test_test_names.py --fix [PATH…]` rewrites the spellings
it can (the underscore and capital forms, a missing prefix a display name gives) in place and
lists those it cannot (a rule named in the middle or at the end of a function name).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pagebench_support import ROOT  # noqa: E402

# The contract's rule families (docs/contract.md): store, pager, harness, writes, targets, verify.
RULE = r"[SPHWTV]\d+"
# The one spelling: one or more lower-case rule IDs, then an upper-case letter.
PREFIX = re.compile(r"^((?:[sphwtv]\d+)+)(?=[A-Z])")
# A leading run of rule IDs in any case, joined by underscores or nothing: `H1_S6_`, `s15_`,
# `T2`, `p10p11`.
ANY_PREFIX = re.compile(r"^((?:[SPHWTVsphwtv]\d+_?)+)(?=[A-Za-z])")
# A rule ID after the start of a camel-case name (`deterministicMetricIsFlaggedH3`): preceded by
# a lower-case letter or digit, followed by a capital, an underscore or the end.
LATER = re.compile(r"(?<=[a-z0-9_])" + RULE + r"(?=[A-Z_]|$)")
# A display name that names rules first: "P8: …", "P10, P11: …", "H1/S6: …".
DISPLAY = re.compile(r"^((?:" + RULE + r")(?:\s*[,/+&]\s*" + RULE + r"|\s+and\s+" + RULE + r")*):")
TEST = re.compile(r'@Test(?P<args>\((?:[^()"]|"(?:[^"\\]|\\.)*"|\([^()]*\))*\))?(?P<between>[^{]*?)\bfunc\s+(?P<name>\w+)',
                  re.S)
NOT_YET = set()


def swift_test_files(paths=None):
    roots = paths or [os.path.join(ROOT, "Tests")]
    for root in roots:
        if root.endswith(".swift"):
            yield root
            continue
        for directory, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in NOT_YET or paths)
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(directory, name)


def display_rules(args):
    display = re.match(r'\(\s*"((?:[^"\\]|\\.)*)"', args or "")
    if not display:
        return None
    leading = DISPLAY.match(display.group(1))
    return [rule.lower() for rule in re.findall(RULE, leading.group(1))] if leading else None


def later_rule(name):
    """A rule ID named after the leading run of rule IDs, or None."""
    prefix = ANY_PREFIX.match(name)
    later = LATER.search(name, prefix.end() if prefix else 0)
    return later.group(0) if later else None


def problem(name, args):
    """What is wrong with one test's name, or None."""
    if later_rule(name):
        rule = later_rule(name)
        return f"`{name}` names {rule} after its start; rule IDs come first (`{rule.lower()}…`)"
    prefix = ANY_PREFIX.match(name)
    if prefix and not PREFIX.match(name):
        return f"`{name}`: rule IDs are written in lower case without underscores (`{fixed_name(name)}`)"
    wanted = display_rules(args)
    if wanted:
        have = re.findall(r"[sphwtv]\d+", PREFIX.match(name).group(1)) if PREFIX.match(name) else []
        if have[:len(wanted)] != wanted:
            return f"`{name}`: its display name names {', '.join(r.upper() for r in wanted)} first; so must the function name"
    return None


def fixed_name(name, args=None):
    prefix = ANY_PREFIX.match(name)
    if prefix:
        rules = re.findall(r"[sphwtv]\d+", prefix.group(1).lower())
        rest = name[prefix.end():]
    else:
        rules, rest = [], name
    rest = rest.lstrip("_")
    for rule in display_rules(args) or []:
        if rule not in rules:
            rules.append(rule)
    if not rules:
        return name
    return "".join(rules) + rest[:1].upper() + rest[1:]


def problems(paths=None):
    found = []
    for path in swift_test_files(paths):
        text = open(path, encoding="utf-8").read()
        for match in TEST.finditer(text):
            message = problem(match.group("name"), match.group("args"))
            if message:
                line = text.count("\n", 0, match.start("name")) + 1
                found.append(f"{os.path.relpath(path, ROOT)}:{line}: {message}")
    return found


def fix(paths=None):
    """Renames what can be renamed; returns the problems left."""
    for path in swift_test_files(paths):
        text = open(path, encoding="utf-8").read()
        renames = {}
        for match in TEST.finditer(text):
            name, args = match.group("name"), match.group("args")
            if problem(name, args) and not later_rule(name):
                renames[name] = fixed_name(name, args)
        if renames:
            for old, new in renames.items():
                text = re.sub(r"\b" + re.escape(old) + r"\b", new, text)
            open(path, "w", encoding="utf-8").write(text)
            for old, new in renames.items():
                print(f"{os.path.relpath(path, ROOT)}: {old} -> {new}")
    return problems(paths)


def test_rule_ids_in_test_names_have_one_spelling():
    found = problems()
    assert not found, "test names with another spelling of a rule ID (docs/contributing.md):\n" + "\n".join(found)


def test_the_check_knows_each_spelling():
    good = ["p13CancellingStopsPromptly", "p10p11LateSubscriber", "h1s6EmptyPages", "sha256MatchesFIPS180Vectors",
            "graphQLErrorsWithHTTP200AreErrors", "plainName"]
    bad = ["s15_exactEnd", "H2_cancellationStorm", "H1_S6_emptyPages", "t1_aRelayConnection",
           "changedMetricIsABehaviourChangeH3", "P7EmptyPages"]
    assert [n for n in good if problem(n, None)] == []
    assert [n for n in bad if not problem(n, None)] == []
    assert problem("referenceSequence", '("H3: the reference sequence")')
    assert not problem("h3ReferenceSequence", '("H3: the reference sequence")')
    assert problem("p8Foo", '("P8, P13: pages")')
    assert fixed_name("H1_S6_emptyPages") == "h1s6EmptyPages"
    assert fixed_name("t2_aBody") == "t2ABody"
    assert fixed_name("referenceSequence", '("H3: the sequence")') == "h3ReferenceSequence"


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--fix"]
    left = fix(arguments or None) if "--fix" in sys.argv else problems(arguments or None)
    print("\n".join(left) if left else "test names: one spelling")
    sys.exit(1 if left else 0)
