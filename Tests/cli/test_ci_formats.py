"""Issue 36, CI-native results (docs/ci.md): `check --format junit` read by junitparser,
`check --github` as GitHub Actions sees it, and `pagebench export` read by what consumes
each format (promtool and prometheus_client's OpenMetrics parser, the .hgrm text parsed
back against the CSV's percentiles)."""
import csv
import json
import os
import stat
import statistics
import subprocess

import pytest
from junitparser import Failure, JUnitXml, Skipped
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from pagebench_support import ROOT, pagebench_binary

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "check")
BASELINE = os.path.join(FIXTURES, "baseline.csv")
REGRESSION = os.path.join(FIXTURES, "current-regression.csv")
BEHAVIOUR = os.path.join(FIXTURES, "current-behaviour-change.csv")
SAME = os.path.join(FIXTURES, "current-same.csv")
MIB = 1 << 20


def pagebench(*arguments, env=None, cwd=None):
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    environment.update(env or {})
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, env=environment,
                          cwd=cwd, timeout=300)


def check_json(current):
    result = pagebench("check", "--baseline", BASELINE, "--current", current, "--format", "json")
    return json.loads(result.stdout)


def junit(tmp_path, current, *flags):
    path = tmp_path / "junit.xml"
    result = pagebench("check", "--baseline", BASELINE, "--current", current, "--format", "junit",
                       "--output", str(path), *flags)
    xml = JUnitXml.fromfile(str(path))
    # <testsuites> carries no `skipped` (not in Jenkins' junit-10.xsd): readers sum the suites'.
    root = path.read_text().splitlines()[1]
    assert root.startswith("<testsuites ") and "skipped=" not in root
    totals = (xml.tests, xml.failures, xml.errors, xml.skipped)
    xml.update_statistics()
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == totals
    return result, xml


def outcomes(xml):
    """(suite name, case name, 'failure' / 'skipped' / 'passed', result element) per case."""
    found = []
    for suite in xml:
        for case in suite:
            kinds = [r for r in case.result if isinstance(r, (Failure, Skipped))]
            kind = "failure" if any(isinstance(r, Failure) for r in kinds) else "skipped" if kinds else "passed"
            found.append((suite.name, case.name, kind, kinds[0] if kinds else None))
    return found


def test_junit_of_the_regression_fixture_has_the_expected_counts(tmp_path):
    result, xml = junit(tmp_path, REGRESSION)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""  # the report went to --output
    # 4 groups × 44 measured metrics; the 4 gated regressions (instructions_per_page, +20 %)
    # fail; the 104 reported (wall-clock, not gated) metrics are skipped; 68 unchanged pass.
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (176, 4, 0, 104)
    assert len(list(xml)) == 4
    report = check_json(REGRESSION)["report"]
    assert sorted(suite.name for suite in xml) == sorted(
        f"{c['scenario']} [{c['configHash']}] {c['pagerKind']} ×{c['concurrency']}" for c in report["comparisons"])
    failed = [o for o in outcomes(xml) if o[2] == "failure"]
    assert {name for _, name, _, _ in failed} == {"instructions_per_page"}
    for _, _, _, failure in failed:
        assert failure.type == "regression"
        assert failure.message.startswith("instructions_per_page regressed: ")
        for figure in ("baseline: median", "current: median", "change: +20 %", "interval: ", "threshold: ±3 %",
                       "gate: gated: process-own"):
            assert figure in failure.text, (figure, failure.text)
    gated = [m for c in report["comparisons"] for m in c["metrics"] if m["gated"]]
    assert xml.tests - xml.skipped == len([m for m in gated if m["verdict"] != "inconclusive"])


def test_junit_of_a_behaviour_change_and_of_no_change(tmp_path):
    result, xml = junit(tmp_path, BEHAVIOUR)
    assert result.returncode == 1
    # 3 deterministic metrics changed in each of the 4 groups (pages and what follows from it).
    assert xml.failures == 12
    assert {name for _, name, kind, _ in outcomes(xml) if kind == "failure"} == {
        "pages", "empty_page_rate", "pages_per_drain_mean"}
    assert all(r.type == "behaviour change" for _, _, kind, r in outcomes(xml) if kind == "failure")
    allowed, xml = junit(tmp_path, BEHAVIOUR, "--allow-behaviour-change")
    assert allowed.returncode == 0
    assert xml.failures == 0
    same, xml = junit(tmp_path, SAME)
    assert same.returncode == 0
    assert (xml.failures, xml.errors) == (0, 0)


def test_junit_escapes_hostile_labels(tmp_path):
    hostile = 'e"v\'<e>n]]>&amp;'
    paths = []
    for source in (BASELINE, REGRESSION):
        with open(source, newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows:
            if row["scenario"] == "even":
                row["scenario"] = hostile
                row["label"] = hostile + " <label>"
        path = tmp_path / os.path.basename(source)
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
            writer.writeheader()
            writer.writerows(rows)
        paths.append(str(path))
    out = tmp_path / "hostile.xml"
    result = pagebench("check", "--baseline", paths[0], "--current", paths[1], "--format", "junit", "--output", str(out))
    assert result.returncode == 1, result.stderr
    assert "]]>" not in out.read_text()
    xml = JUnitXml.fromfile(str(out))
    assert xml.tests == 176
    assert any(suite.name.startswith(hostile + " [") for suite in xml)


def test_github_annotations_and_step_summary(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    plain = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION)
    result = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION, "--github",
                       env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == plain.returncode == 1
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 4
    assert all(line.startswith("::error title=pagebench check%3A instructions_per_page regressed::") for line in annotations)
    assert result.stdout.startswith(plain.stdout)  # the text report, then the annotations
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, never truncated
    markdown = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION, "--format", "markdown").stdout
    assert text == "earlier step\n\n" + markdown
    # Without the variable nothing is written anywhere but standard output.
    assert pagebench("check", "--baseline", BASELINE, "--current", SAME, "--github").stdout.count("::") == 0


def test_github_step_summary_stays_within_one_mebibyte(tmp_path):
    summary = tmp_path / "summary.md"
    filler = ("x" * 99 + "\n") * ((MIB - 3000) // 100)
    summary.write_text(filler)
    result = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION, "--github",
                       env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    text = summary.read_text()
    assert text.startswith(filler)
    assert len(text.encode()) <= MIB
    assert "**Cut here: " in text and "did not fit GitHub's 1 MiB step summary" in text
    assert "was cut at a line" in result.stderr
    # Full already: nothing appended, a warning says so.
    summary.write_text("y" * MIB)
    result = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION, "--github",
                       env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    assert summary.stat().st_size == MIB
    assert "already holds GitHub's 1 MiB" in result.stderr


def test_github_with_a_junit_file_leaves_only_annotations_on_standard_output(tmp_path):
    out = tmp_path / "junit.xml"
    result = pagebench("check", "--baseline", BASELINE, "--current", BEHAVIOUR, "--github", "--format", "junit",
                       "--output", str(out))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    # 12 behaviour changes: GitHub shows 10 errors a step, the 10th says how many more.
    assert len(lines) == 10 and all(line.startswith("::error title=") for line in lines)
    assert lines[-1].startswith("::error title=pagebench check%3A 3 more errors::")
    assert JUnitXml.fromfile(str(out)).failures == 12


def test_github_refuses_what_would_break_its_output(tmp_path):
    result = pagebench("check", "--baseline", BASELINE, "--current", REGRESSION, "--github", "--format", "junit")
    assert result.returncode == 64
    assert "give --output FILE" in result.stderr
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = pagebench("check", "--baseline", BASELINE, "--current", SAME, "--github",
                       env={"GITHUB_STEP_SUMMARY": str(fifo)})
    assert result.returncode == 73
    assert "is not a regular file" in result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """A real run's CSV (two concurrencies, two repetitions): rows with their histograms."""
    directory = tmp_path_factory.mktemp("run")
    result = pagebench("run", "--partitions", "4", "--items-per-partition", "500", "--concurrency", "1,2",
                       "--repetitions", "2", "--drains", "40", "--warmup", "0", "--output", "r.csv", cwd=directory)
    assert result.returncode == 0, result.stderr
    with open(directory / "r.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return directory, rows


def groups(rows):
    found = {}
    for row in rows:
        key = f"{row['scenario']} [{row['config_hash']}] {row['pager_kind']} ×{row['concurrency']}"
        found.setdefault(key, []).append(row)
    return found


def test_export_github_action_benchmark(measured):
    directory, rows = measured
    result = pagebench("export", "r.csv", "--format", "github-action-benchmark", "--output", "out/bench", cwd=directory)
    assert result.returncode == 0, result.stderr
    smaller = json.loads((directory / "out" / "bench.smaller-is-better.json").read_text())
    bigger = json.loads((directory / "out" / "bench.bigger-is-better.json").read_text())
    for entries in (smaller, bigger):
        assert isinstance(entries, list) and entries
        for entry in entries:
            assert set(entry) == {"name", "unit", "value", "range", "extra"}
            assert isinstance(entry["value"], (int, float)) and isinstance(entry["name"], str)
    by_name = {entry["name"]: entry for entry in bigger}
    for key, members in groups(rows).items():
        pages = by_name[f"{key} pages_per_s"]
        assert pages["unit"] == "pages/s"
        assert pages["value"] == pytest.approx(statistics.median(float(r["pages_per_s"]) for r in members))
        assert any(e["name"] == f"{key} page_latency_p99_ns" and e["unit"] == "ns" for e in smaller)
    assert not any(e["name"].endswith(" pages_per_s") for e in smaller)


def test_export_bmf(measured):
    directory, rows = measured
    result = pagebench("export", "r.csv", "--format", "bmf", "--metric", "pages_per_s", "--metric", "pages", cwd=directory)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert set(document) == set(groups(rows))
    for key, members in groups(rows).items():
        assert set(document[key]) == {"pages_per_s", "pages"}
        values = [float(r["pages_per_s"]) for r in members]
        metric = document[key]["pages_per_s"]
        assert metric["lower_value"] == pytest.approx(min(values))
        assert metric["upper_value"] == pytest.approx(max(values))
        assert metric["lower_value"] <= metric["value"] <= metric["upper_value"]
    refused = pagebench("export", "r.csv", "--format", "bmf", "--metric", "scenario", cwd=directory)
    assert refused.returncode == 64 and "not a numeric column" in refused.stderr


def test_export_openmetrics_passes_promtool(measured):
    directory, rows = measured
    result = pagebench("export", "r.csv", "--format", "openmetrics", "--output", "metrics.txt", cwd=directory)
    assert result.returncode == 0, result.stderr
    text = (directory / "metrics.txt").read_text()
    assert text.endswith("\n# EOF\n")
    with open(directory / "metrics.txt", "rb") as handle:
        lint = subprocess.run(["promtool", "check", "metrics"], stdin=handle, capture_output=True, text=True, timeout=60)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert families["pagebench_page_latency_p99_seconds"].unit == "seconds"
    for key, members in groups(rows).items():
        concurrency = members[0]["concurrency"]
        sample = next(s for s in families["pagebench_pages_per_second"].samples if s.labels["concurrency"] == concurrency)
        assert sample.value == pytest.approx(statistics.median(float(r["pages_per_s"]) for r in members))
        latency = next(s for s in families["pagebench_page_latency_p99_seconds"].samples
                       if s.labels["concurrency"] == concurrency)
        assert latency.value == pytest.approx(statistics.median(float(r["page_latency_p99_ns"]) for r in members) / 1e9)


def parse_hgrm(text):
    """(value, percentile, total count) per line, and the footer's total count."""
    lines = []
    total = None
    for line in text.splitlines():
        fields = line.split()
        if line.startswith("#[Max"):
            total = int(line.split("Total count    =")[1].strip(" ]"))
        elif len(fields) in (3, 4) and fields[0][0].isdigit():
            lines.append((float(fields[0]), float(fields[1]), int(fields[2])))
    return lines, total


def test_export_hgrm_reads_back_to_the_csv_percentiles(measured):
    """Each row's page and drain latency distributions, each read back to the CSV's own
    percentiles and counts (pages, drains)."""
    directory, rows = measured
    result = pagebench("export", "r.csv", "--format", "hgrm", cwd=directory)
    assert result.returncode == 0, result.stderr
    files = sorted(os.listdir(directory / "r-hgrm"))
    assert len(files) == 2 * len(rows)
    for latency, count in (("page", "pages"), ("drain", "drains")):
        named = [name for name in files if name.endswith(f".{latency}-latency-us.hgrm")]
        assert len(named) == len(rows)
        for index, (name, row) in enumerate(zip(named, rows), start=1):
            assert name.startswith(f"{index:03d}-") and f"-c{row['concurrency']}-r{row['repetition']}." in name
            lines, total = parse_hgrm((directory / "r-hgrm" / name).read_text())
            assert total == int(row[count]) == lines[-1][2]
            assert lines[-1][1] == 1.0
            for percentile, column in ((0.5, f"{latency}_latency_p50_ns"), (0.9, f"{latency}_latency_p90_ns"),
                                       (0.99, f"{latency}_latency_p99_ns")):
                expected = float(row[column])
                exact = [v for v, p, _ in lines if p == percentile]
                if exact:
                    # A tick at the percentile itself (50 %, 90 %): its value is the CSV's, printed
                    # with 3 decimals of a microsecond, so within 1 ns plus HdrHistogram's 0.1 %.
                    assert abs(exact[0] * 1000 - expected) <= 1 + expected * 0.001, (name, column, exact[0], expected)
                else:
                    # Between ticks (99 % falls between 98.9 % and 99.06 %): the CSV's value lies
                    # between the values of the ticks either side, within HdrHistogram's 0.1 %
                    # (with 40 drains both ticks are one bucket, written at its highest value).
                    below = max(v for v, p, _ in lines if p < percentile) * 1000
                    above = min(v for v, p, _ in lines if p > percentile) * 1000
                    assert below * 0.999 - 1 <= expected <= above * 1.001 + 1, (name, column, below, expected, above)
            assert lines[-1][0] * 1000 == pytest.approx(float(row[f"{latency}_latency_max_ns"]), rel=0.001, abs=1)


def test_export_hgrm_of_a_file_without_histograms_is_refused(tmp_path):
    result = pagebench("export", BASELINE, "--format", "hgrm", "--output", str(tmp_path / "h"))
    assert result.returncode == 65
    assert "no row has a page_latency_histogram" in result.stderr
    assert not (tmp_path / "h").exists()
