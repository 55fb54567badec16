"""`pagebench verify` against list APIs broken on purpose (broken_api.py, one bug per mode):
each broken rule is caught with its evidence, and every other rule still holds (V1-V7,
docs/contract.md). Traffic goes to 127.0.0.1 only; every run is bounded by verify's own
--max-requests and --max-seconds."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree

import junitparser
import pytest

from pagebench_support import pagebench_binary

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = ["V1", "V2", "V3", "V4", "V5", "V6", "V7"]


class BrokenAPI:
    def __init__(self, mode):
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "broken_api.py"), mode],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("listening on "), line
        self.endpoint = line.split()[-1]

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def target_file(tmp_path, endpoint, **extra):
    target = {"kind": "http", "endpoint": endpoint, "partitions": {"values": ["a", "b", "c"]},
              "path": "/p/${partition}/items?limit=${limit}", "items": "/items", "continuation": "/nextToken",
              "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned", "itemKey": "/id",
              "timeoutSeconds": 10}
    target.update(extra)
    path = tmp_path / "api.json"
    path.write_text(json.dumps(target))
    return str(path)


def verify(target, *options, format="json", binds_limit=True):
    return subprocess.run([pagebench_binary(), "verify", "--target-file", target, "--limits", "1,5,50",
                           "--partitions", "2", "--rate", "200", "--max-seconds", "120",
                           *(["--token-binds-limit"] if binds_limit else []),
                           "--format", format, *options], capture_output=True, text=True, timeout=300)


def verdicts(result):
    report = json.loads(result.stdout)
    return report, {rule["id"]: rule for rule in report["rules"]}


def run_mode(tmp_path, mode):
    api = BrokenAPI(mode)
    try:
        result = verify(target_file(tmp_path, api.endpoint))
    finally:
        api.stop()
    report, rules = verdicts(result)
    return result, report, rules


def test_v1_to_v7_a_correct_api_holds_every_rule_and_reports_its_costs(tmp_path):
    result, report, rules = run_mode(tmp_path, "ok")
    assert result.returncode == 0, result.stdout + result.stderr
    assert {rule: rules[rule]["verdict"] for rule in RULES} == {rule: "holds" for rule in RULES}, result.stdout
    # The plan is printed before the first request, naming the request and the bounds.
    assert "first request: GET " + "http://127.0.0.1" in result.stderr and "/p/a/items?limit=5" in result.stderr
    assert "bounds: at most 2000 requests, 200 a second" in result.stderr
    assert "not sent, as the target declares no binding" not in result.stderr  # --token-binds-limit
    by_limit = {figure["limit"]: figure for figure in report["byLimit"]}
    # Rows divisible by 3 are filtered out: at limit 1 every third page is empty with a token (a cost).
    assert by_limit[1]["emptyPagesWithToken"] == 2 * 13 and by_limit[1]["items"] == 2 * 26
    # ... and its last page (row 39, filtered out) follows a full page: one more request that returns nothing.
    assert by_limit[1]["extraLastRequests"] == 2 and by_limit[1]["wastedRoundTripsPerDrain"] == 14
    assert by_limit[50]["pages"] == 2 and by_limit[50]["extraLastRequests"] == 0
    assert all(figure["largestTokenBytes"] > 0 for figure in report["byLimit"] if figure["limit"] < 50)
    assert report["broken"] is False and report["requests"] > 100


@pytest.mark.parametrize("mode, rule, note, evidence", [
    ("duplicate", "V1", "partition a at limit 5 returned an item twice",
     "item \"a-04\" was returned on page 1 and again on page 2 of partition a at limit 5"),
    ("skip_small", "V1", "partition a at limit 1 skipped an item",
     "item \"a-07\" (item 5 at limit 50) is missing at limit 1"),
    ("long_page", "V2", "a page at limit 1 returned 2 items", "→ HTTP 200, 2 items (2 evaluated)"),
    ("limit_after_filter", "V2", "a page at limit 5 evaluated 8 items: the limit was applied after the filter",
     "the API reports 8 items evaluated (scannedCount) for 5 returned"),
    ("cycle", "V3", "a continuation repeats: following it would never end (P9)",
     "partition a at limit 1: page 6 carried the continuation"),
    ("single_use", "V4", "the same token again was not answered with a page", "token already used"),
    ("garbled_500", "V5", "a garbled token got HTTP 500, a server error", "a garbled token: GET "),
    ("error_500", "V6", "limit 0 got HTTP 500, a server error", "limit=0 → HTTP 500"),
    ("racy", "V7", "drain", "at once"),
])
def test_v1_to_v7_each_broken_rule_is_caught_with_its_evidence_and_the_others_hold(tmp_path, mode, rule, note, evidence):
    result, report, rules = run_mode(tmp_path, mode)
    assert result.returncode == 1, result.stdout + result.stderr
    assert rules[rule]["verdict"] == "broken", rules[rule]
    assert rules[rule]["note"].startswith(note), rules[rule]
    assert any(evidence in line for line in rules[rule]["evidence"]), rules[rule]["evidence"]
    others = {other: rules[other]["verdict"] for other in RULES if other != rule}
    if mode == "cycle":
        # The drain at limit 1 never ends: V1 cannot compare it, V7 (limit 5) still holds.
        assert others.pop("V1") == "could not tell", rules["V1"]
    assert set(others.values()) == {"holds"}, others


def test_v5_a_hang_on_a_garbled_token_is_broken_within_the_targets_timeout(tmp_path):
    api = BrokenAPI("garbled_hang")
    try:
        result = verify(target_file(tmp_path, api.endpoint, timeoutSeconds=1))
    finally:
        api.stop()
    assert result.returncode == 1, result.stderr
    _, rules = verdicts(result)
    assert rules["V5"]["verdict"] == "broken", rules["V5"]
    assert rules["V5"]["note"].startswith("a garbled token got no answer (a hang or a dropped connection)"), rules["V5"]
    assert "no answer after" in rules["V5"]["evidence"][0], rules["V5"]["evidence"]
    assert {rule: rules[rule]["verdict"] for rule in RULES if rule != "V5"} == {r: "holds" for r in RULES if r != "V5"}


def test_v1_the_text_report_shows_the_broken_rule_with_the_requests_that_show_it(tmp_path):
    api = BrokenAPI("skip_small")
    try:
        result = verify(target_file(tmp_path, api.endpoint), format="text")
    finally:
        api.stop()
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("V1  broken") for line in lines), result.stdout
    assert any(line.startswith("V2  holds") for line in lines), result.stdout
    assert "V1 broken: partition a at limit 1 skipped an item" in result.stdout
    # The page after the skipped item's predecessor, with the token it was sent.
    assert "the next page goes on without it: GET " in result.stdout and "nextToken=" in result.stdout


def test_v1_to_v7_junit_is_read_by_junitparser_one_case_a_rule(tmp_path):
    api = BrokenAPI("garbled_500")
    try:
        result = verify(target_file(tmp_path, api.endpoint), format="junit")
    finally:
        api.stop()
    assert result.returncode == 1, result.stderr
    path = tmp_path / "verify.xml"
    path.write_text(result.stdout)
    suites = list(junitparser.JUnitXml.fromfile(str(path)))
    cases = {case.name.split()[0]: case for suite in suites for case in suite}
    assert sorted(cases) == RULES
    failed = [name for name, case in cases.items() if not case.is_passed and not case.is_skipped]
    assert failed == ["V5"], failed
    assert "a garbled token got HTTP 500" in cases["V5"].result[0].message
    xml.etree.ElementTree.fromstring(result.stdout)  # well-formed


def test_an_unreachable_target_is_exit_69_as_run(tmp_path):
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = verify(target_file(tmp_path, f"http://127.0.0.1:{port}"))
    assert result.returncode == 69, result.stderr
    assert "the first page failed" in result.stderr and result.stdout == ""


def test_an_invalid_item_key_is_a_clear_data_error(tmp_path):
    result = verify(target_file(tmp_path, "http://127.0.0.1:9", itemKey="id"))
    assert result.returncode == 65, result.stderr
    assert "itemKey: 'id' is not a JSON Pointer" in result.stderr, result.stderr
    missing = subprocess.run([pagebench_binary(), "verify", "--target-file", str(tmp_path / "none.json")],
                             capture_output=True, text=True)
    assert missing.returncode == 66, missing.stderr


def test_a_target_whose_request_is_not_a_read_is_refused_before_anything_is_sent(tmp_path):
    for method in ["DELETE", "PUT", "PATCH"]:
        result = verify(target_file(tmp_path, "http://127.0.0.1:9", method=method))
        assert result.returncode == 65, (method, result.stderr)
        assert f"method {method}: verify sends only reads, and a list request by GET, POST, QUERY" in result.stderr
        assert "first request" not in result.stderr, result.stderr  # refused before the plan


def test_bad_flags_are_usage_errors(tmp_path):
    target = target_file(tmp_path, "http://127.0.0.1:9")
    for flags, message in [(["--limits", "1,x"], "--limits: 'x' is not a whole number"),
                           (["--limits", "0"], "--limits: 0 is not a limit"),
                           (["--rate", "0"], "--rate must be between 0.1 and 1000"),
                           (["--max-requests", "5"], "--max-requests must be between 10 and 1000000")]:
        result = subprocess.run([pagebench_binary(), "verify", "--target-file", target, *flags],
                                capture_output=True, text=True)
        assert result.returncode == 64, (flags, result.stderr)
        assert message in result.stderr, (flags, result.stderr)


def test_the_request_bound_stops_verify_and_what_is_left_could_not_be_told(tmp_path):
    api = BrokenAPI("ok")
    try:
        result = verify(target_file(tmp_path, api.endpoint), "--max-requests", "30")
    finally:
        api.stop()
    report, rules = verdicts(result)
    assert report["requests"] == 30, report["requests"]
    assert rules["V3"]["verdict"] == "could not tell", rules["V3"]
    assert "the request bound was reached (--max-requests 30)" in rules["V3"]["note"]
    assert result.returncode == 0, result.stderr


def test_pages_prints_a_real_apis_pages_one_by_one(tmp_path):
    api = BrokenAPI("ok")
    try:
        result = subprocess.run([pagebench_binary(), "pages", "--target-file", target_file(tmp_path, api.endpoint),
                                 "--partition", "b", "--limit", "10"], capture_output=True, text=True, timeout=60)
        refused = subprocess.run([pagebench_binary(), "pages", "--target-file", target_file(tmp_path, api.endpoint),
                                  "--partition", "zz"], capture_output=True, text=True, timeout=60)
    finally:
        api.stop()
    assert result.returncode == 0, result.stderr
    pages = [json.loads(line) for line in result.stdout.splitlines()]
    assert [page["returned"] for page in pages] == [6, 7, 7, 6]
    assert pages[0]["keys"][:3] == ["b-01", "b-02", "b-04"]
    assert pages[0]["request"].endswith("/p/b/items?limit=10") and pages[0]["status"] == 200
    assert pages[1]["request"].endswith("nextToken=" + pages[0]["nextToken"])
    assert pages[-1]["nextToken"] is None and all(page["bytes"] > 0 for page in pages)
    # Without --limit, the contract's default limit (10) is sent.
    api = BrokenAPI("ok")
    try:
        default = subprocess.run([pagebench_binary(), "pages", "--target-file", target_file(tmp_path, api.endpoint),
                                  "--max-pages", "1"], capture_output=True, text=True, timeout=60)
    finally:
        api.stop()
    assert default.returncode == 0, default.stderr
    assert json.loads(default.stdout)["request"].endswith("/p/a/items?limit=10"), default.stdout
    assert refused.returncode == 69, refused.stderr
    answer = json.loads(refused.stdout)
    assert answer["status"] == 404 and "no partition zz" in answer["error"], answer


def test_sigint_stops_verify_after_the_request_in_flight_and_prints_what_it_saw(tmp_path):
    import signal
    from pagebench_support import run_until_marker
    api = BrokenAPI("ok")
    try:
        code, out, err = run_until_marker(
            ["--target-file", target_file(tmp_path, api.endpoint), "--rate", "5", "--format", "json"],
            "bounds: at most", lambda process: os.killpg(process.pid, signal.SIGINT), str(tmp_path), command="verify")
    finally:
        api.stop()
    assert code == 130, err
    assert "pagebench: SIGINT: stopping; no further request is sent" in err, err
    report = json.loads(out)
    rules = {rule["id"]: rule for rule in report["rules"]}
    assert rules["V3"]["verdict"] == "could not tell", rules["V3"]
    assert "stopped by SIGINT" in rules["V3"]["note"], rules["V3"]
    assert report["requests"] < 50, report["requests"]


def test_v5_a_partition_the_target_does_not_list_is_verified_and_a_listed_one_lends_its_token(tmp_path):
    api = BrokenAPI("ok")
    try:
        target = target_file(tmp_path, api.endpoint, partitions={"values": ["a"]})
        result = verify(target, "--partition", "c")
    finally:
        api.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    report, rules = verdicts(result)
    assert report["partitions"] == ["c"]
    assert "partition a's token with partition c 400" in rules["V5"]["note"], rules["V5"]
    assert "/p/c/items?limit=5" in result.stderr


# The filter the API takes is `&color=`; the target declares its values and that tokens bind it.
FILTERED = {"path": "/p/${partition}/items?limit=${limit}&color=${filter}", "filters": ["red", "blue"],
            "tokensBind": ["limit", "filter"]}


@pytest.mark.parametrize("mode", ["ok", "filter_unbound"])
def test_v5_a_token_of_another_filter_is_refused_where_the_target_declares_tokens_bind_it(tmp_path, mode):
    api = BrokenAPI(mode)
    try:
        # No --token-binds-limit: the target's tokensBind declares the limit too.
        result = verify(target_file(tmp_path, api.endpoint, **FILTERED), binds_limit=False)
    finally:
        api.stop()
    report, rules = verdicts(result)
    # The plan says which filter every drain is sent with and which probe crosses filters.
    assert "every drain is sent with filter red (the target's first filters value)" in result.stderr, result.stderr
    assert "filter red's with filter blue, a limit-5 token at limit 1" in result.stderr, result.stderr
    assert "/p/a/items?limit=5&color=red" in result.stderr, result.stderr
    others = {rule: rules[rule]["verdict"] for rule in RULES if rule != "V5"}
    assert set(others.values()) == {"holds"}, (others, result.stdout)
    v5 = rules["V5"]
    if mode == "ok":
        assert result.returncode == 0, result.stdout + result.stderr
        assert v5["verdict"] == "holds", v5
        assert "filter red's token with filter blue 400" in v5["note"], v5
        assert "a limit-5 token at limit 1 400" in v5["note"], v5
    else:
        assert result.returncode == 1, result.stdout + result.stderr
        assert v5["verdict"] == "broken", v5
        assert v5["note"].startswith("filter red's token with filter blue was answered with a page of "), v5
        assert v5["note"].endswith("items, not an error"), v5
        [evidence] = v5["evidence"]
        assert evidence.startswith("filter red's token with filter blue: GET "), evidence
        assert "/p/a/items?limit=5&color=blue&nextToken=" in evidence and "→ HTTP 200" in evidence, evidence


def test_filters_and_tokens_bind_that_cannot_be_sent_are_clear_data_errors(tmp_path):
    for extra, message in [
        ({"filters": ["red", "blue"]}, "filters: no request template sends ${filter}"),
        ({**FILTERED, "filters": ["red"]}, "tokensBind: filter needs two filters values at least"),
        ({**FILTERED, "filters": ["red", "red"]}, "filters: a value is listed twice"),
        ({**FILTERED, "filters": [{"c": 1}]}, "filters: {\"c\":1} is not a string, number or boolean"),
        ({**FILTERED, "tokensBind": ["sort"]}, "tokensBind: \"sort\" is not one of limit, filter"),
    ]:
        result = verify(target_file(tmp_path, "http://127.0.0.1:9", **extra))
        assert result.returncode == 65, (extra, result.stderr)
        assert message in result.stderr, (extra, result.stderr)


def test_pages_sends_the_targets_first_filter_or_the_one_named(tmp_path):
    api = BrokenAPI("ok")
    try:
        target = target_file(tmp_path, api.endpoint, **FILTERED)
        first = subprocess.run([pagebench_binary(), "pages", "--target-file", target, "--max-pages", "1"],
                               capture_output=True, text=True, timeout=60)
        named = subprocess.run([pagebench_binary(), "pages", "--target-file", target, "--filter", "blue",
                                "--max-pages", "1"], capture_output=True, text=True, timeout=60)
        unknown = subprocess.run([pagebench_binary(), "pages", "--target-file", target, "--filter", "green"],
                                 capture_output=True, text=True, timeout=60)
    finally:
        api.stop()
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["request"].endswith("/p/a/items?limit=10&color=red"), first.stdout
    assert json.loads(first.stdout)["keys"][:2] == ["a-01", "a-02"]
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["keys"][:2] == ["a-00", "a-03"], named.stdout
    assert unknown.returncode == 64, unknown.stderr
    assert "--filter green: target api declares filters red, blue; give one of them" in unknown.stderr


def test_v7_drains_at_once_overlap_even_at_the_default_rate(tmp_path):
    """At 5 requests a second one request at a time would only interleave the drains (a
    request every 200 ms, each answered in 30 ms): the racy API's bug needs requests in flight
    together, which V7's bursts give, within the same rate."""
    api = BrokenAPI("racy")
    try:
        result = subprocess.run([pagebench_binary(), "verify", "--target-file", target_file(tmp_path, api.endpoint),
                                 "--partition", "a", "--limits", "20", "--rate", "5", "--max-seconds", "60",
                                 "--format", "json"], capture_output=True, text=True, timeout=120)
    finally:
        api.stop()
    assert "5. 3 drains at once of partition a at limit 20, their requests sent 3 together within the rate" in result.stderr
    report, rules = verdicts(result)
    assert result.returncode == 1, result.stdout + result.stderr
    assert rules["V7"]["verdict"] == "broken", rules["V7"]
    assert "at once" in rules["V7"]["note"], rules["V7"]
    assert report["requests"] < 30, report["requests"]


def test_the_plan_says_which_token_probes_are_not_sent_for_want_of_a_declared_binding(tmp_path):
    api = BrokenAPI("ok")
    try:
        result = verify(target_file(tmp_path, api.endpoint, **{**FILTERED, "tokensBind": []}), "--max-requests", "10",
                        binds_limit=False)
    finally:
        api.stop()
    assert ("     not sent, as the target declares no binding: a token at another limit (\"tokensBind\": [\"limit\"] "
            "if the API refuses that), or with another filter (\"tokensBind\": [\"filter\"] if the API refuses that)"
            ) in result.stderr, result.stderr
