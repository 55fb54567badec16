"""Issue 26: one `run` (a sweep) and one `report` answer "what do limit 10 and limit 100 cost
with our filter?", with no scenario file written by hand."""
import csv
import os
import subprocess
import xml.dom.minidom

from pagebench_support import pagebench_binary

SMALL_STORE = ["--partitions", "4", "--items-per-partition", "400", "--clustering", "runs:50"]


def run(*arguments, cwd):
    return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_a_sweep_and_a_report_with_default_paths(tmp_path):
    result = run("run", *SMALL_STORE, "--limit", "10,100", "--filter", "category=0", "--concurrency", "1",
                 "--drains", "20", "--warmup", "0", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "results" / "latest.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["label"] for row in rows] == ["limit=10", "limit=100"]
    assert [row["filter"] for row in rows] == ["category=0", "category=0"]
    assert rows[0]["schema_version"] == "10"
    assert "limit=100" in result.stdout

    report = run("report", "results/latest.csv", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    # The report goes to a default file, and says where.
    assert report.stdout.strip() == "pagebench: wrote results/report.html"
    html = (tmp_path / "results" / "report.html").read_text()
    xml.dom.minidom.parseString(html)
    answer = html.index("<h2>Headline</h2>")
    assert answer < html.index("id=\"plot-limit\"")
    assert "costs the fewest round trips per drain" in html
    assert "not comparable" in html

    compare = run("compare", "results/latest.csv", cwd=tmp_path)
    assert compare.returncode == 0, compare.stderr
    lines = compare.stdout.splitlines()
    first_metric = next(line for line in lines if line.startswith("round trips/drain"))
    assert lines.index(first_metric) < next(i for i, line in enumerate(lines) if line.startswith("requests/s"))
    assert "not comparable" in next(line for line in lines if line.startswith("requests/s"))


def test_report_refuses_to_replace_a_directory_with_its_default(tmp_path):
    csv_file = tmp_path / "r.csv"
    assert run("run", *SMALL_STORE, "--concurrency", "1", "--drains", "2", "--warmup", "0", "--quiet",
               "--output", str(csv_file), cwd=tmp_path).returncode == 0
    os.makedirs(tmp_path / "results" / "report.html")
    result = run("report", str(csv_file), cwd=tmp_path)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.strip()


def test_a_sweep_runs_on_workers_too(tmp_path):
    # Each worker gets every point of the sweep as a scenario file of its own, all named
    # `default`: only the same configuration twice may be refused there.
    result = run("run", *SMALL_STORE, "--limit", "10,100", "--workers", "2", "--concurrency", "2", "--drains", "10",
                 "--warmup", "0", "--quiet", "--output", "w.csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "w.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["label"], row["limit"], row["drains"]) for row in rows] == [("limit=10", "10", "10"), ("limit=100", "100", "10")]
