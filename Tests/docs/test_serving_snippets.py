"""The client snippets of docs/serving.md run, as written, against a real `pagebench serve`
(issue 27: no example may drift): the boto3 paginator, the AWS CLI query, the curl calls of
the REST and GraphQL endpoints (their output checked against the keys the doc's `# …`
comment shows), and every GraphQL document of the page, posted with the variables it names.

Port 8080 in a snippet is replaced by the port of a `serve` started for the test. The doc's
first command adds `--throttle-rate 0.01`, which would fail one request in a hundred here;
the server is started with its other flags."""
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request

import pytest

from pagebench_support import ROOT, ServedStore

DOCUMENT = os.path.join(ROOT, "docs", "serving.md")


def blocks(language):
    text = open(DOCUMENT, encoding="utf-8").read()
    return re.findall(r"```" + language + r"\n(.*?)\n```", text, re.S)


@pytest.fixture(scope="module")
def served():
    store = ServedStore("--service-time", "fixed:2ms")
    yield store
    store.stop()


def localized(snippet, served):
    return snippet.replace("http://127.0.0.1:8080", served.endpoint)


def test_the_boto3_snippet_pages_the_served_table(served):
    snippets = [block for block in blocks("python") if "boto3" in block]
    assert snippets, "docs/serving.md lost its boto3 example"
    for snippet in snippets:
        result = subprocess.run([sys.executable, "-c", localized(snippet, served)], capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) >= 2, result.stdout
        # Count ScannedCount LastEvaluatedKey: every page but the last carries a key (S3).
        for line in lines[:-1]:
            assert re.match(r"\d+ \d+ \{", line), line
        assert lines[-1].endswith(" None"), lines[-1]


def sh_commands(prefix):
    found = []
    for block in blocks("sh"):
        for command in block.replace("\\\n", " ").split("\n"):
            if command.lstrip().startswith(prefix):
                found.append(command)
    return found


def test_the_aws_cli_snippet_queries_the_served_table(served):
    if shutil.which("aws") is None:
        pytest.fail("the AWS CLI is not installed (.ci/install-deps installs awscli)")
    commands = sh_commands("aws dynamodb")
    assert commands, "docs/serving.md lost its AWS CLI example"
    environment = dict(os.environ, AWS_ACCESS_KEY_ID="any", AWS_SECRET_ACCESS_KEY="any", AWS_DEFAULT_REGION="us-east-1")
    for command in commands:
        result = subprocess.run(["bash", "-c", localized(command, served)], capture_output=True, text=True,
                                env=environment, timeout=600)
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        assert answer["Items"] and answer["ScannedCount"] >= answer["Count"] > 0, result.stdout


def test_the_curl_snippets_answer_what_their_comments_show(served):
    text = open(DOCUMENT, encoding="utf-8").read()
    shown = re.findall(r"```sh\n(.*?)\n```", text, re.S)
    checked = 0
    for block in shown:
        lines = block.split("\n")
        for index, line in enumerate(lines):
            if not line.startswith("curl "):
                continue
            command = line
            while command.endswith("\\") and index + 1 < len(lines):
                index += 1
                command = command[:-1] + lines[index]
            comment = " ".join(l[2:] for l in lines[index + 1:] if l.startswith("# ")).strip()
            result = subprocess.run(["bash", "-c", localized(command, served)], capture_output=True, text=True,
                                    timeout=600)
            assert result.returncode == 0, (command, result.stderr)
            answer = json.loads(result.stdout)
            # The keys the comment shows are the keys the answer has (values are elided there).
            for key in re.findall(r'"(\w+)":', comment):
                assert key in json.dumps(answer), (command, key, result.stdout[:300])
            checked += 1
    assert checked >= 2, "docs/serving.md lost its curl examples"


def test_every_graphql_document_of_the_page_runs(served):
    documents = blocks("graphql")
    assert documents, "docs/serving.md lost its GraphQL examples"
    for document in documents:
        for operation in re.findall(r"query (\w+)", document):
            body = json.dumps({"query": document, "operationName": operation,
                               "variables": {"partition": 3, "token": None, "after": None}}).encode()
            request = urllib.request.Request(served.endpoint + "/graphql", data=body,
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=600) as response:
                answer = json.loads(response.read())
            assert "errors" not in answer, (operation, answer)
            assert answer["data"], (operation, answer)
