"""Issue 24, "Numbers and sizes": every number read from a flag or a file is bounded where it is
parsed, with an error that names the field and a documented exit code; nothing traps."""
import csv
import io
import json
import os
import re
import subprocess

import pytest

from pagebench_support import ROOT, pagebench_binary

BASELINE = os.path.join(ROOT, "Tests", "Fixtures", "check", "baseline.csv")
TRAPS = (132, 133, 134, 139, -4, -5, -6, -11)


def run(*arguments, timeout=300):
    return subprocess.run([pagebench_binary()] + list(arguments), capture_output=True, text=True, timeout=timeout)


def commands(node, path):
    yield path, node
    for sub in node.get("subcommands") or []:
        if sub["commandName"] != "help":
            yield from commands(sub, path + [sub["commandName"]])


def test_every_option_takes_a_value_that_starts_with_a_dash():
    # `--limit -1` read "Missing value for '--limit'": swift-argument-parser took -1 for a flag.
    # Every option's value is the next argument, as getopt does; a bad one is then named.
    root = json.loads(run("--experimental-dump-help").stdout)["command"]
    checked = 0
    for path, node in commands(root, []):
        for argument in node.get("arguments") or []:
            names = [n["name"] for n in argument.get("names") or [] if n["kind"] == "long"]
            if argument["kind"] != "option" or not names or names[0] in ("help", "version"):
                continue
            result = run(*path, "--" + names[0], "-5", "--help-does-not-exist", timeout=60)
            assert "Missing value" not in result.stderr, (path, names[0], result.stderr)
            assert result.returncode not in TRAPS, (path, names[0], result.stderr)
            checked += 1
    assert checked > 60


def test_a_stage_plan_longer_than_int64_nanoseconds_is_refused_not_a_trap(tmp_path):
    # 10,300 stages of 900,000 s overflowed the plan's length (Workload.swift:74), even
    # under --print-scenarios.
    plan = ",".join(["900000s:1"] * 10_300)
    result = run("run", "--stages", plan, "--print-scenarios")
    assert result.returncode == 64, result.stderr[-500:]
    assert "a plan has at most 1000" in result.stderr
    scenario = tmp_path / "long.json"
    scenario.write_text(json.dumps({"workload": {"stages": [{"duration": "900000s", "pagers": 1}] * 10_300}}))
    result = run("run", str(scenario), "--print-scenarios")
    assert result.returncode == 65, result.stderr[-500:]
    assert "workload.stages" in result.stderr and "at most 1000" in result.stderr
    result = run("run", "--stages", "50000s:1,50000s:1", "--print-scenarios")
    assert result.returncode == 64
    assert "stages[1]: the stages last more than 24h" in result.stderr


def test_sums_of_numbers_from_flags_do_not_overflow():
    # http-bench added its reserved descriptors to --connections unchecked.
    result = run("http-bench", "--target", "http://127.0.0.1:9", "--connections", "9223372036854775807",
                 "--duration", "0.2")
    assert result.returncode == 64, result.stderr[-500:]
    assert "--connections" in result.stderr


def test_numbers_converted_to_whole_ones_are_bounded_first(tmp_path):
    # An open-loop rate of 1e-12 drains/s put the first arrival at 1e21 ns: the conversion to
    # UInt64 trapped once the run started.
    result = run("run", "--load", "open-fixed:1e-12", "--drains", "2", "--concurrency", "1", "--warmup", "0",
                 "--output", str(tmp_path / "out.csv"))
    assert result.returncode == 64, result.stderr[-500:]
    assert "the open-loop rate must be from 0.001" in result.stderr
    # --from 1e300 made the default --max-rate infinite.
    result = run("knee", "--slo", "error_rate<1%", "--from", "1e300", "--output", str(tmp_path / "knee.csv"))
    assert result.returncode == 64, result.stderr[-500:]
    assert "--from" in result.stderr and "10000000" in result.stderr


def memory_cgroup(limit_bytes):
    """A memory cgroup of this test's own with `limit_bytes` (v2 or v1), or the reason there is none."""
    if os.geteuid() != 0:
        return None, "needs root to make a memory cgroup"
    name = f"pagebench-test-{os.getpid()}"
    for root, limit_file in (("/sys/fs/cgroup", "memory.max"), ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")):
        if root == "/sys/fs/cgroup" and not os.path.exists(os.path.join(root, "cgroup.controllers")):
            continue
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
        except OSError as error:
            return None, f"cannot make a cgroup under {root}: {error}"
        try:
            with open(os.path.join(path, limit_file), "w") as handle:
                handle.write(str(limit_bytes))
            return path, None
        except OSError as error:
            os.rmdir(path)
            return None, f"cannot set {limit_file} of a cgroup under {root}: {error}"
    return None, "no cgroup v2 with a memory controller and no cgroup v1 memory hierarchy at /sys/fs/cgroup"


def test_memory_bounds_state_the_limit_and_why():
    # Issue 38: a pager costs about 16 KiB (issue 24: 0.4 MiB of its own histograms, and
    # --concurrency 20000 passed 6 GB); 100,000 pagers fit this machine's memory.
    assert run("run", "--concurrency", "100000", "--print-scenarios").returncode == 0
    result = run("run", "--stages", ",".join(["1ms:1"] * 1001), "--print-scenarios")
    assert result.returncode == 64
    assert "a plan has at most 1000" in result.stderr


def test_a_crowd_beyond_the_cgroups_memory_is_refused_saying_how_many_pagers_fit(tmp_path):
    # A container's memory limit is what its processes can hold: in a cgroup of 512 MiB,
    # 100,000 pagers (about 1.6 GiB) are refused up front, with the figures.
    path, reason = memory_cgroup(512 << 20)
    if path is None:
        pytest.skip(reason)

    def join():
        with open(os.path.join(path, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
    try:
        def in_cgroup(*arguments):
            return subprocess.run([pagebench_binary(), *arguments], capture_output=True, text=True, timeout=120,
                                  preexec_fn=join)
        result = in_cgroup("run", "--concurrency", "100000", "--print-scenarios")
        assert result.returncode == 64, result.stderr[-500:]
        message = result.stderr
        assert "100000 pagers need about" in message and "the cgroup's memory limit is 512.0MiB" in message, message
        assert re.search(r"at most \d+ pagers fit in one process", message) and "--workers N" in message, message
        fit = int(re.search(r"at most (\d+) pagers fit", message).group(1))
        assert 0 < fit < 100_000
        assert in_cgroup("run", "--concurrency", str(fit), "--print-scenarios").returncode == 0
        assert in_cgroup("run", "--concurrency", "100000", "--workers", "8", "--print-scenarios").returncode == 0
        # Against a target each pager has a connection of its own, which counts too: the same
        # crowd is refused, naming the connection, and fewer pagers fit (nothing is sent).
        target = str(tmp_path / "target.json")
        with open(target, "w") as handle:
            json.dump({"kind": "http", "name": "t", "endpoint": "http://127.0.0.1:9", "partitions": {"range": [0, 3]},
                       "path": "/p/${partition}?limit=${limit}", "items": "/items", "continuation": "/nextToken",
                       "continuationIn": {"query": "nextToken"}}, handle)
        remote = in_cgroup("run", "--target-file", target, "--concurrency", str(fit), "--print-scenarios")
        assert remote.returncode == 64, remote.stderr[-500:]
        assert "a pager and its connection" in remote.stderr, remote.stderr
        remote_fit = int(re.search(r"at most (\d+) pagers fit", remote.stderr).group(1))
        assert 0 < remote_fit < fit
        assert in_cgroup("run", "--target-file", target, "--concurrency", str(remote_fit),
                         "--print-scenarios").returncode == 0
    finally:
        os.rmdir(path)


def test_a_key_given_twice_in_a_text_form_is_refused(tmp_path):
    for flag, value, message in [
        ("--service-time", "lognormal:median=2ms,sigma=0.5,median=3ms", "'median' is given twice"),
        ("--item-size", "lognormal:median=512,sigma=1,sigma=2", "'sigma' is given twice"),
    ]:
        result = run("items", flag, value, "--max-items", "1")
        assert result.returncode == 64, (flag, result.stderr)
        assert message in result.stderr, (flag, result.stderr)
    config = tmp_path / "store.json"
    config.write_text(json.dumps({"serviceTime": {"base": "lognormal:median=2ms,sigma=0.5,max=1s,max=2s"}}))
    result = run("items", "--config", str(config), "--max-items", "1")
    assert result.returncode == 65, result.stderr
    assert "'max' is given twice" in result.stderr


def test_a_category_no_item_has_is_refused():
    for spec in ["category=16", "category!=99", "category>=0 and category<=20"]:
        for command in (["items", "--max-items", "1"], ["run", "--print-scenarios"]):
            result = run(*command, "--filter", spec)
            assert result.returncode == 64, (spec, command, result.stderr)
            assert "there is no category" in result.stderr, (spec, command, result.stderr)
    assert run("items", "--max-items", "1", "--filter", "category=15").returncode == 0


def test_an_empty_list_element_is_refused():
    for arguments, message in [
        (["run", "--concurrency", "1,,4", "--print-scenarios"], "element 2 of '1,,4' is empty"),
        (["run", "--concurrency", "1,", "--print-scenarios"], "element 2 of '1,' is empty"),
        (["items", "--hot-partitions", "0,,1", "--max-items", "1"], "element 2 of '0,,1' is empty"),
        (["items", "--insert-rate", "1", "--write-hot-partitions", ",1", "--max-items", "1"], "element 1 of ',1' is empty"),
        (["items", "--item-size", "lognormal:median=512,,sigma=1", "--max-items", "1"], "is empty"),
        (["items", "--items-per-partition", "zipf:10::1.1", "--max-items", "1"], "element 2 of '10::1.1' is empty"),
        (["compare", BASELINE, "--metrics", "pages_per_s,,drains_per_s"], "element 2 of 'pages_per_s,,drains_per_s' is empty"),
    ]:
        result = run(*arguments)
        assert result.returncode == 64, (arguments, result.stderr)
        assert message in result.stderr, (arguments, result.stderr)


def test_valid_json_of_the_wrong_shape_names_the_path_and_the_type(tmp_path):
    # JSONDecoder said "The given data was not valid JSON." (no path) for a number that does
    # not fit its field, and "the file is not valid JSON (The operation could not be
    # completed…)" for one no reader can hold.
    cases = [
        ("store", {"seed": -1}, "'seed' must be a whole number from 0 to 18446744073709551615, found -1"),
        ("store", {"partitions": 2.5}, "'partitions' must be a whole number, found 2.5"),
        ("store", {"serviceTime": {"hotPartitions": [1.5]}}, "'serviceTime.hotPartitions[0]' must be a whole number"),
        ("scenario", {"workload": {"limit": 2.5}}, "workload.limit: must be a whole number, found 2.5"),
        ("scenario", {"workload": {"retry": {"maxRetries": 1e20}}}, "workload.retry.maxRetries: must be a whole number"),
        ("scenario", {"store": {"defaultLimit": 1e300}}, "'defaultLimit' must be a whole number"),
    ]
    for kind, document, message in cases:
        path = tmp_path / f"{kind}.json"
        path.write_text(json.dumps(document))
        arguments = ["items", "--config", str(path), "--max-items", "1"] if kind == "store" else ["run", str(path), "--print-scenarios"]
        result = run(*arguments)
        assert result.returncode == 65, (document, result.stderr)
        assert message in result.stderr, (document, result.stderr)
        assert "not valid JSON" not in result.stderr, (document, result.stderr)
    (tmp_path / "huge.json").write_text('{"workload": {"warmupSeconds": 1e400}}')
    result = run("run", str(tmp_path / "huge.json"), "--print-scenarios")
    assert result.returncode == 65
    assert "found 1e400 at 'workload.warmupSeconds'" in result.stderr, result.stderr
    (tmp_path / "t.json").write_text('{"scale": 1e400}')
    result = run("check", "--baseline", BASELINE, "--current", BASELINE, "--thresholds", str(tmp_path / "t.json"))
    assert result.returncode == 65
    assert "scale: must be a number" in result.stderr, result.stderr


def rows_of(path):
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def write_rows(path, rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue())


def readers(path, tmp_path):
    """Every command that reads a results file, on `path`."""
    return [
        ["check", "--baseline", BASELINE, "--current", str(path)],
        ["check", "--baseline", str(path), "--current", BASELINE],
        ["compare", str(path)],
        ["report", str(path), "--output", str(tmp_path / "report.html")],
        ["baseline", "update", "--from", str(path), "--directory", str(tmp_path / "baselines")],
    ]


def test_a_row_given_twice_is_refused_by_every_reader(tmp_path):
    rows = rows_of(BASELINE)
    path = tmp_path / "twice.csv"
    write_rows(path, rows + [rows[1]])
    for arguments in readers(path, tmp_path):
        result = run(*arguments)
        assert result.returncode == 65, (arguments, result.stderr)
        assert f"twice.csv:{len(rows) + 1}: this row repeats line 2" in result.stderr, (arguments, result.stderr)
    assert not (tmp_path / "baselines").exists()


def test_values_no_run_writes_are_refused_by_every_reader(tmp_path):
    rows = rows_of(BASELINE)
    header = rows[0]
    cases = [
        ("pages", "-5", "column 'pages' is -5; no figure pagebench writes is negative"),
        ("pages_per_s", "-0.5", "column 'pages_per_s' is -0.5"),
        ("page_latency_p50_ns", "999999999999", "above page_latency_p90_ns"),
        ("partial", "7", "column 'partial' is 7; it is 0 or 1"),
        ("concurrency", "0", "column 'concurrency' is 0; it is at least 1"),
        ("scenario", "", "column 'scenario' is empty but requires a text value"),
    ]
    for column, value, message in cases:
        changed = [list(row) for row in rows]
        changed[2][header.index(column)] = value
        path = tmp_path / f"bad-{column}.csv"
        write_rows(path, changed)
        for arguments in readers(path, tmp_path):
            result = run(*arguments)
            assert result.returncode == 65, (column, arguments, result.stderr)
            assert f"bad-{column}.csv:3:" in result.stderr and message in result.stderr, (column, arguments, result.stderr)
    # The file as written reads everywhere (the check refuses only what no run writes).
    for arguments in readers(BASELINE, tmp_path):
        assert run(*arguments).returncode == 0, arguments


def test_a_report_of_extreme_values_finishes(tmp_path):
    # Rates near the largest and the smallest Double (well formed, breaking no row rule) next
    # to ordinary ones hung `report`: a log axis counted decades that reached infinity, or 0.
    rows = rows_of(BASELINE)
    column = rows[0].index("pages_per_s")
    for value in ["1.7976931348623157e308", "5e-324"]:
        changed = [list(row) for row in rows]
        for row in changed[1:]:
            row[column] = value
        path = tmp_path / "extreme.csv"
        write_rows(path, changed)
        result = run("report", str(path), BASELINE, "--output", str(tmp_path / "report.html"), timeout=120)
        assert result.returncode == 0, (value, result.stderr)
        html = (tmp_path / "report.html").read_text()
        assert "nan" not in html and "inf" not in html.replace("info", "")

