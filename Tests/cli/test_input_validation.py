"""Issue 12: inputs are validated with messages that name what is wrong."""
import json
import subprocess

from pagebench_support import pagebench_binary


def run(*arguments, cwd=None):
    return subprocess.run([pagebench_binary()] + list(arguments), capture_output=True, text=True, cwd=cwd, timeout=300)


def test_a_negative_number_is_a_range_error_not_a_missing_value():
    result = run("run", "--limit", "-1")
    assert result.returncode == 64
    assert "Missing value" not in result.stderr
    assert "got -1" in result.stderr


def test_the_same_scenario_twice_is_refused(tmp_path):
    scenario = tmp_path / "twice.json"
    scenario.write_text(json.dumps({"name": "twice", "workload": {"drains": 2, "concurrency": [1]}}))
    result = run("run", str(scenario), str(scenario), "--output", str(tmp_path / "out.csv"))
    assert result.returncode == 64
    assert "scenario 'twice' is given twice" in result.stderr
    assert not (tmp_path / "out.csv").exists()


def test_repeated_concurrency_is_refused(tmp_path):
    result = run("run", "--concurrency", "1,1", "--drains", "2", "--output", str(tmp_path / "out.csv"))
    assert result.returncode == 64
    assert "lists 1 twice" in result.stderr


def test_help_offers_only_the_formats_each_command_takes():
    assert "csv" not in run("check", "--help").stdout.split("--format")[1].split("--")[0]
    assert "json" not in run("compare", "--help").stdout.split("--format")[1].split("--")[0]
