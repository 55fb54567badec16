"""The DocC getting-started article of the pager library shows exactly the code that
Tests/PagebenchPagerTests/GettingStartedTests.swift compiles and runs (issue 27): each
`// BEGIN name` … `// END name` region, dedented, appears verbatim in the article."""
import os
import re
import textwrap

from pagebench_support import ROOT

TESTS = os.path.join(ROOT, "Tests", "PagebenchPagerTests", "GettingStartedTests.swift")
ARTICLE = os.path.join(ROOT, "Sources", "PagebenchPager", "PagebenchPager.docc", "GettingStarted.md")


def test_the_article_shows_the_tested_code():
    source = open(TESTS, encoding="utf-8").read()
    article = open(ARTICLE, encoding="utf-8").read()
    regions = re.findall(r"// BEGIN ([\w-]+)\n(.*?)\n[ \t]*// END \1", source, re.S)
    assert len(regions) == 3, [name for name, _ in regions]
    for name, body in regions:
        assert "```swift\n" + textwrap.dedent(body) + "\n```" in article, f"GettingStarted.md does not show {name} as tested"
