"""Issue 12: inputs are validated with messages that name what is wrong."""
import json
import os
import subprocess

from pagebench_support import ROOT, pagebench_binary


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


# Issue 12: a path that cannot be read is named with what is wrong with it, in our words
# (not Foundation's "couldn't be opened", not errno 21 behind "check its permissions"), exit 66.
UNREADABLE_INPUTS = [
    ("run", "{dir}/scenarios"),             # a scenario directory holding a directory named *.json
    ("run", "--config", "{dir}/folder"),
    ("run", "--target-file", "{dir}/folder", "--output", "{dir}/out.csv"),
    ("check", "--baseline", "{dir}/folder", "--current", "{dir}/folder"),
    ("compare", "{dir}/folder"),
    ("report", "{dir}/folder", "--output", "{dir}/report.html"),
    ("merge", "{dir}/shards"),              # a shard directory holding a directory named shard-*.json
    ("serve", "--tls-cert", "{dir}/folder", "--tls-key", "{dir}/folder"),
]


def unreadable_tree(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "scenarios" / "x.json").mkdir(parents=True)
    (tmp_path / "shards" / "shard-0-of-1.json").mkdir(parents=True)
    return tmp_path


def test_a_directory_given_as_a_file_is_named_as_one(tmp_path):
    directory = unreadable_tree(tmp_path)
    for arguments in UNREADABLE_INPUTS:
        result = run(*[a.format(dir=directory) for a in arguments])
        assert result.returncode == 66, (arguments, result.stderr)
        assert "is a directory, not a file; give the path of a file" in result.stderr, (arguments, result.stderr)
        for foreign in ("couldn’t", "couldn't", "errno 21", "NSCocoaErrorDomain", "Error Domain"):
            assert foreign not in result.stderr, (arguments, result.stderr)


def as_another_user():
    """A prefix that runs a command as a user file permissions apply to (root reads anything)."""
    import os
    import shutil
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        import pytest
        pytest.skip("running as root without setpriv: no user to whom a file can be unreadable")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_file_this_user_may_not_read_says_permission_denied():
    import os
    import shutil
    import tempfile
    # Under a directory every user may search (pytest's own is private to its user).
    directory = tempfile.mkdtemp(dir="/tmp")
    try:
        os.chmod(directory, 0o755)
        secret = os.path.join(directory, "secret.json")
        with open(secret, "w", encoding="utf-8") as handle:
            handle.write("{}")
        os.chmod(secret, 0)
        hidden = os.path.join(directory, "private")
        os.mkdir(hidden, 0o700)
        with open(os.path.join(hidden, "x.json"), "w", encoding="utf-8") as handle:
            handle.write("{}")
        cases = [
            (["run", secret], f"{secret}: permission denied: this user may not read it"),
            (["run", "--config", secret], f"{secret}: permission denied: this user may not read it"),
            (["check", "--baseline", secret, "--current", secret], f"{secret}: permission denied: this user may not read it"),
            # Not "no such file": it is there, behind a directory this user may not search or list.
            (["run", os.path.join(hidden, "x.json")], "permission denied: this user may not search a directory on the way"),
            (["run", hidden], f"{hidden}: permission denied: this user may not list the directory"),
            (["merge", hidden], f"{hidden}: permission denied: this user may not list the directory"),
        ]
        for arguments, message in cases:
            result = subprocess.run(as_another_user() + [pagebench_binary()] + arguments, capture_output=True, text=True,
                                    cwd=directory, timeout=300)
            assert result.returncode == 66, (arguments, result.stderr)
            assert message in result.stderr, (arguments, result.stderr)
    finally:
        shutil.rmtree(directory)


def test_control_characters_in_what_is_refused_are_not_echoed_raw(tmp_path):
    """Issue 12: a refusal that quotes input (a key, a flag's value, a metric) shows its
    control characters as escapes; ESC [2J would clear the terminal it is printed on."""
    scenario = tmp_path / "key.json"
    scenario.write_text('{"name": "x", "\\u001b[2J": 1}')
    thresholds = tmp_path / "thresholds.json"
    thresholds.write_text('{"metrics": {"\\u001b[2J": {"relative": 0.1}}}')
    baseline = os.path.join(ROOT, "Tests", "Fixtures", "check", "baseline.csv")
    for arguments, status in ((["run", str(scenario)], 65),
                              (["run", "--slo", "\x1b[2J<1"], 64),
                              (["check", "--baseline", baseline, "--current", baseline, "--thresholds", str(thresholds)], 65)):
        result = run(*arguments)
        assert result.returncode == status, (arguments, result.stderr)
        assert "\x1b" not in result.stderr and "\\u{1B}[2J" in result.stderr, (arguments, result.stderr)


def test_a_results_csv_whose_text_holds_a_control_character_is_refused(tmp_path):
    """Issue 12: text that reaches a terminal or a report (a scenario name in `check` or
    `compare` output) is refused at load, as scenario names are."""
    import csv
    source = os.path.join(ROOT, "Tests", "Fixtures", "check", "baseline.csv")
    with open(source, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    column = rows[0].index("scenario")
    rows[3][column] += "\x1b[2J"
    hostile = tmp_path / "hostile.csv"
    with open(hostile, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    for arguments in (["check", "--baseline", source, "--current", str(hostile)], ["compare", str(hostile)]):
        result = run(*arguments)
        assert result.returncode == 65, (arguments, result.stderr)
        assert f"{hostile}:4:" in result.stderr and "control character \\u{1B}" in result.stderr, result.stderr
        assert "\x1b" not in result.stdout + result.stderr


def test_a_thresholds_file_is_as_strict_as_a_scenario(tmp_path):
    baseline = os.path.join(ROOT, "Tests", "Fixtures", "check", "baseline.csv")
    cases = [('{"scale": 2, "scale": 3}', "key 'scale' appears twice"),
             ('{"metrics": {"pages_per_s": {"relative": 0.1, "relative": 5}}}',
              "key 'metrics.pages_per_s.relative' appears twice"),
             ('{"scale":', "not valid JSON: line 1, column 10: expected a value, found the end of the text")]
    for text, message in cases:
        thresholds = tmp_path / "t.json"
        thresholds.write_text(text)
        result = run("check", "--baseline", baseline, "--current", baseline, "--thresholds", str(thresholds))
        assert result.returncode == 65, (text, result.stderr)
        assert message in result.stderr, (text, result.stderr)


def test_a_repeated_hot_partition_is_refused_naming_the_field(tmp_path):
    # Issue 12: `--hot-partitions 0,0` went into the configuration hash text as `hot=0+0`.
    for flags, field in [(["--hot-partitions", "0,0"], "serviceTime: hotPartitions lists partition 0 twice"),
                         (["--insert-rate", "1", "--write-hot-partitions", "1,2,1"],
                          "writes: hotPartitions lists partition 1 twice")]:
        result = run("run", "--drains", "2", "--concurrency", "1", "--output", str(tmp_path / "out.csv"), *flags)
        assert result.returncode == 64, result.stderr
        assert field in result.stderr, result.stderr
        assert not (tmp_path / "out.csv").exists()
