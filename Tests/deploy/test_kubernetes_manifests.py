"""The manifests under deploy/kubernetes/, checked three ways (run by .ci/run with pytest):

1. against the Kubernetes API schemas with `kubernetes-validate --strict` (unknown fields and
   wrong types rejected) for the oldest and the newest Kubernetes version we support;
2. by .ci/check-kubernetes, for the fields the schemas cannot judge (an Indexed Job whose
   completion index becomes `--shard I/N` with N = completions = parallelism, a
   restartPolicy, Services that select a Deployment's pods); its refusals are tested here too;
3. by doing what the Job controller would do, on this machine: the serve Deployment's
   command as one local `pagebench serve`, the Indexed Job's command as N local processes,
   each with JOB_COMPLETION_INDEX (and the downward-API variable the manifest reads) set
   to its index, then the merge Job's command over the shards they wrote.

The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import csv
import datetime
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from pagebench_support import pagebench_binary

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))

# Indexed Jobs are GA from Kubernetes 1.24; kubernetes-validate 1.37.0 (pinned in
# .ci/install-deps) ships schemas for 1.25 to 1.37. Those two ends are what we support.
OLDEST_KUBERNETES, NEWEST_KUBERNETES = "1.25.0", "1.37.0"
COMPLETION_INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

# What the local run scales down from the manifest (everything else is run as written):
# the load, so that CI spends seconds, not the 20,000 drains a cluster run makes.
LOCAL_DRAINS_PER_POD, LOCAL_CONCURRENCY = 4, 2


def documents():
    docs = []
    for path in MANIFESTS:
        with open(path, encoding="utf-8") as handle:
            docs += [(path, d) for d in yaml.safe_load_all(handle) if d is not None]
    return docs



def test_there_are_manifests():
    assert len(MANIFESTS) >= 3, MANIFESTS


@pytest.mark.parametrize("version", [OLDEST_KUBERNETES, NEWEST_KUBERNETES])
def test_manifests_match_the_kubernetes_api_schema(version):
    result = subprocess.run(["kubernetes-validate", "--strict", "--kubernetes-version", version]
                            + [str(m) for m in MANIFESTS], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # Every resource was checked, none skipped as unknown.
    resources = sum(1 for _ in documents())
    assert result.stdout.count("passed for resource") + result.stderr.count("passed for resource") == resources


def test_strict_schema_validation_rejects_a_misspelt_field(tmp_path):
    source = (ROOT / "deploy" / "kubernetes" / "pagebench-load-job.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(source.replace("restartPolicy: Never", "restartPolicy: Never\n      restartPolcy: Never"))
    result = subprocess.run(["kubernetes-validate", "--strict", "--kubernetes-version", NEWEST_KUBERNETES, str(bad)],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "restartPolcy" in result.stdout + result.stderr


def run_key_field_check(directory):
    """.ci/check-kubernetes reads deploy/kubernetes/*.yaml below its working directory."""
    return subprocess.run([sys.executable, str(ROOT / ".ci" / "check-kubernetes")], cwd=directory,
                          capture_output=True, text=True)


def test_key_field_check_passes_on_the_shipped_manifests():
    result = run_key_field_check(ROOT)
    assert result.returncode == 0, result.stderr
    assert "1 Indexed Job(s)" in result.stdout


@pytest.mark.parametrize("change, complaint", [
    (("completionMode: Indexed", "completionMode: NonIndexed"), "no Indexed Job"),
    (("restartPolicy: Never", "restartPolicy: Always"), "restartPolicy"),
    (("parallelism: 4", "parallelism: 2"), "must equal completions"),
    (("$(SHARD_INDEX)/4", "$(SHARD_INDEX)/3"), "splits into 3 shards"),
])
def test_key_field_check_refuses_what_the_schema_accepts(tmp_path, change, complaint):
    target = tmp_path / "deploy" / "kubernetes"
    shutil.copytree(ROOT / "deploy" / "kubernetes", target)
    job = target / "pagebench-load-job.yaml"
    text = job.read_text()
    assert change[0] in text
    job.write_text(text.replace(change[0], change[1]))
    # The schema cannot see these (all values are of the right type) ...
    schema = subprocess.run(["kubernetes-validate", "--strict", "--kubernetes-version", NEWEST_KUBERNETES, str(job)],
                            capture_output=True, text=True)
    assert schema.returncode == 0, schema.stdout + schema.stderr
    # ... so the key-field check must.
    result = run_key_field_check(tmp_path)
    assert result.returncode == 1
    assert complaint in result.stderr


def expand(value, variables):
    """Kubernetes' $(VAR) expansion in command and args: defined variables are replaced,
    $$ is a literal $, an undefined reference is left as written."""
    def replace(match):
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return variables.get(name, match.group(0))
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", replace, value)


def container_environment(container, completion_index):
    """The container's env as the kubelet sets it for pod `completion_index` of an Indexed
    Job: JOB_COMPLETION_INDEX, plus each env entry (values, and the downward-API
    completion-index annotation)."""
    variables = {"JOB_COMPLETION_INDEX": str(completion_index)}
    for entry in container.get("env") or []:
        if "value" in entry:
            variables[entry["name"]] = expand(str(entry["value"]), variables)
            continue
        field = ((entry.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
        assert field == COMPLETION_INDEX_FIELD, f"env {entry['name']}: cannot emulate {entry.get('valueFrom')}"
        variables[entry["name"]] = str(completion_index)
    return variables


def flag_value(args, flag):
    return args[args.index(flag) + 1]


def replace_flag(args, flag, value):
    args = list(args)
    args[args.index(flag) + 1] = value
    return args


class LocalServe:
    """The serve Deployment's container args as one local process on a loopback port."""

    def __init__(self, binary, args):
        args = replace_flag(replace_flag(args, "--host", "127.0.0.1"), "--port", "0")
        if "--health-port" in args:
            args = replace_flag(args, "--health-port", "0")
        self.process = subprocess.Popen([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        banner = self.process.stdout.readline()
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", banner)
        if not match:
            self.stop()
            raise AssertionError(f"pagebench serve printed {banner!r}")
        self.url = match.group(1)
        health = re.search(r"/health also on (http://127\.0\.0\.1:\d+)/health", banner)
        self.health_url = health.group(1) if health else None

    def url_of(self, container, port):
        """The local URL of the container port `port` (a name or a number) of the serve container."""
        number = next((p["containerPort"] for p in container["ports"] if port in (p.get("name"), p["containerPort"])),
                      None)
        assert number is not None, f"the probe's port {port!r} is none of the container's ports"
        if number == int(flag_value(container["args"], "--port")):
            return self.url
        assert "--health-port" in container["args"] and number == int(flag_value(container["args"], "--health-port")), \
            f"container port {number} is neither --port nor --health-port of {container['args']}"
        return self.health_url

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def test_serve_probes_are_answered_where_the_manifest_points_them():
    """Each probe of the serve Deployment, asked as the kubelet would (its path on the port it
    names), of one local `pagebench serve` run with the container's args: 200 and status ok."""
    import json
    import urllib.request
    binary = pagebench_binary()
    assert os.access(binary, os.X_OK), f"no pagebench at {binary}: run `swift build` first"
    deployment = next(d for _, d in documents()
                      if d["kind"] == "Deployment" and d["metadata"]["name"] == "pagebench-serve")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    probes = [container[key]["httpGet"] for key in ("readinessProbe", "livenessProbe", "startupProbe") if key in container]
    assert probes, "the serve Deployment has no HTTP probe"
    serve = LocalServe(binary, container["args"])
    try:
        for probe in probes:
            with urllib.request.urlopen(serve.url_of(container, probe["port"]) + probe["path"], timeout=30) as answer:
                assert answer.status == 200
                assert json.load(answer)["status"] == "ok"
    finally:
        serve.stop()


def test_indexed_job_runs_as_the_job_controller_would_and_its_shards_merge():
    binary = pagebench_binary()
    assert os.access(binary, os.X_OK), f"no pagebench at {binary}: run `swift build` first"
    docs = [d for _, d in documents()]
    deployment = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "pagebench-serve")
    service = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "pagebench-serve")
    load = next(d for d in docs if d["kind"] == "Job" and d["spec"].get("completionMode") == "Indexed")
    merge = next(d for d in docs if d["kind"] == "Job" and d["metadata"]["name"] == "pagebench-merge")

    completions = load["spec"]["completions"]
    load_container = load["spec"]["template"]["spec"]["containers"][0]
    mount = load_container["volumeMounts"][0]["mountPath"]
    merge_container = merge["spec"]["template"]["spec"]["containers"][0]
    assert merge_container["volumeMounts"][0]["mountPath"] == mount

    serve = LocalServe(binary, deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    volume = tempfile.mkdtemp(prefix="pagebench-shards-")
    try:
        service_url = f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
        assert flag_value(load_container["args"], "--target") == service_url
        start = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=6)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        run = "run-ci"

        def localise(text):
            return (text.replace("__START_AT__", start).replace("__RUN__", run)
                    .replace(service_url, serve.url).replace(mount, volume))

        pods = []
        for index in range(completions):
            variables = container_environment(load_container, index)
            args = [localise(expand(str(a), variables)) for a in load_container["args"]]
            assert flag_value(args, "--shard") == f"{index}/{completions}"
            args = replace_flag(args, "--drains", str(LOCAL_DRAINS_PER_POD * completions))
            args = replace_flag(args, "--concurrency", str(LOCAL_CONCURRENCY))
            pods.append(subprocess.Popen([binary] + args, env={**os.environ, **variables},
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for index, pod in enumerate(pods):
            try:
                output, _ = pod.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                for p in pods:
                    p.kill()
                raise
            assert pod.returncode == 0, f"pod {index} exited {pod.returncode}: {output}"

        shard_directory = Path(volume) / run
        assert len(list(shard_directory.glob("*.json"))) == completions, list(shard_directory.iterdir())

        command = merge_container["command"] + [localise(a) for a in merge_container["args"]]
        environment = {**os.environ, "PATH": os.path.dirname(binary) + os.pathsep + os.environ["PATH"]}
        merged = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
        assert merged.returncode == 0, merged.stdout + merged.stderr
        rows = list(csv.DictReader(io.StringIO(merged.stdout)))
        assert len(rows) == 1, merged.stdout
        assert int(rows[0]["drains"]) == LOCAL_DRAINS_PER_POD * completions
        assert int(rows[0]["pages"]) > 0
    finally:
        serve.stop()
        shutil.rmtree(volume, ignore_errors=True)
