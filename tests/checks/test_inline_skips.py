"""Inline skips (``# gpufleet:skip=<policy>: <reason>``) through ``gpufleet check`` as users run
it: a reasoned skip acknowledges one resource's finding (and its children's), shown as
suppressed in every format; a skip without a reason, or one the program writes into its own
source while it runs, acknowledges nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checks.check_runs import gpufleet

# A Kubernetes Deployment asking for GPUs: gpufleet sizes no Kubernetes workload, so it blocks.
# (pulumi_kubernetes' own class, as far as the engine can tell: the SDK records the source
# position of a resource class's caller.)
K8S = """\
import pulumi


class Deployment(pulumi.CustomResource):
    def __init__(self, name: str, props: dict) -> None:
        super().__init__("kubernetes:apps/v1:Deployment", name, props)


"""
DEPLOYMENT = """\
Deployment(
    "{name}",
    {{"spec": {{"replicas": 4, "template": {{"spec": {{"containers": [
        {{"name": "serve", "image": "vllm", "resources": {{"limits": {{"nvidia.com/gpu": 1}}}}}}
    ]}}}}}}}},
)
"""
FIRST = K8S.count("\n") + 1  # the line of the first statement of a body


def project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: skips\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(K8S + body)
    return tmp_path


def check(directory: Path, *extra: str) -> tuple[int, dict, str]:
    done = gpufleet(
        "check",
        "--program",
        str(directory),
        "--env",
        "dev",
        "--policy-config",
        "policies/config/dev.json",
        "--format",
        "json",
        *extra,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_reasoned_skip_acknowledges_its_resource_only(tmp_path: Path) -> None:
    body = (
        "# gpufleet:skip=gpu-size-undetermined: the pods' GPUs are the gke pool's, sized there\n"
        + DEPLOYMENT.format(name="acknowledged")
        + DEPLOYMENT.format(name="other")
    )
    code, report, _ = check(project(tmp_path, body))
    assert code == 1
    found = {(f["policy"], f["name"]) for f in report["findings"]}
    assert ("gpu-size-undetermined", "other") in found
    assert ("gpu-size-undetermined", "acknowledged") not in found
    suppressed = [s for s in report["suppressed"] if s["name"] == "acknowledged"]
    assert [s["policy"] for s in suppressed] == ["gpu-size-undetermined"]
    assert "the pods' GPUs are the gke pool's" in suppressed[0]["reason"]
    assert f"inline at __main__.py:{FIRST}" in suppressed[0]["reason"]


def test_a_skip_without_a_reason_acknowledges_nothing_and_says_so(tmp_path: Path) -> None:
    body = "# gpufleet:skip=gpu-size-undetermined\n" + DEPLOYMENT.format(name="bare")
    code, report, stderr = check(project(tmp_path, body))
    assert code == 1
    assert ("gpu-size-undetermined", "bare") in {
        (f["policy"], f["name"]) for f in report["findings"]
    }
    assert f"__main__.py:{FIRST}: gpufleet:skip needs a reason" in stderr


def test_a_skip_the_program_writes_into_its_source_while_it_runs_is_not_read(
    tmp_path: Path,
) -> None:
    """The comments are read as the program was before it ran: it cannot acknowledge itself."""
    body = (
        "from pathlib import Path\n"
        "me = Path(__file__)\n"
        "me.write_text(me.read_text().replace(\n"
        "    '# later', '# gpufleet:skip=gpu-size-undetermined: written by the program itself'))\n"
        "# later\n" + DEPLOYMENT.format(name="sneaky")
    )
    code, report, _ = check(project(tmp_path, body))
    assert code == 1
    assert ("gpu-size-undetermined", "sneaky") in {
        (f["policy"], f["name"]) for f in report["findings"]
    }
    assert "gpufleet:skip" in (tmp_path / "__main__.py").read_text()  # it did write it


def test_a_skip_on_a_component_covers_its_children(tmp_path: Path) -> None:
    body = (
        "class Serving(pulumi.ComponentResource):\n"
        "    def __init__(self, name: str) -> None:\n"
        "        super().__init__('acme:k8s:Serving', name)\n"
        "        pulumi.CustomResource(\n"
        "            'kubernetes:apps/v1:Deployment', f'{name}-deploy',\n"
        "            {'spec': {'template': {'spec': {'containers': [\n"
        "                {'name': 'a', 'resources': {'limits': {'nvidia.com/gpu': 8}}}]}}}},\n"
        "            opts=pulumi.ResourceOptions(parent=self),\n"
        "        )\n"
        "\n"
        "\n"
        "# gpufleet:skip=gpu-size-undetermined,gpu-budget: reviewed: runs on the a100 pool\n"
        "Serving('chat')\n"
    )
    code, report, _ = check(project(tmp_path, body))
    names = {(f["policy"], f["name"]) for f in report["findings"]}
    assert not any(name == "chat-deploy" for _, name in names), names
    assert {s["policy"] for s in report["suppressed"] if s["name"] == "chat-deploy"} >= {
        "gpu-size-undetermined"
    }
    assert code == 0, report["findings"]


def test_skips_show_in_sarif_as_suppressed_results(tmp_path: Path) -> None:
    body = (
        "# gpufleet:skip=gpu-size-undetermined: the pods' GPUs are the gke pool's, sized there\n"
        + DEPLOYMENT.format(name="acknowledged")
    )
    done = gpufleet(
        "check",
        "--program",
        str(project(tmp_path, body)),
        "--env",
        "dev",
        "--policy-config",
        "policies/config/dev.json",
        "--format",
        "sarif",
    )
    results = json.loads(done.stdout)["runs"][0]["results"]
    skipped = [r for r in results if r["ruleId"] == "gpu-size-undetermined"]
    assert skipped and all(r.get("suppressions") for r in skipped), skipped
    assert done.returncode == 0


def test_a_skip_with_its_reason_after_a_space_as_the_issue_writes_it(tmp_path: Path) -> None:
    body = (
        "# gpufleet:skip=gpu-size-undetermined GPUs sized in the gke pool, reviewed by infra\n"
        + DEPLOYMENT.format(name="spaced")
        + "# gpufleet:skip=Not-A-Policy!\n"
        + DEPLOYMENT.format(name="garbled")
    )
    code, report, stderr = check(project(tmp_path, body))
    reasons = [s["reason"] for s in report["suppressed"] if s["name"] == "spaced"]
    assert reasons and reasons[0].startswith("GPUs sized in the gke pool, reviewed by infra")
    assert ("gpu-size-undetermined", "garbled") in {
        (f["policy"], f["name"]) for f in report["findings"]
    }
    assert "not a skip gpufleet reads" in stderr
    assert code == 1


def test_skip_check_suppresses_a_policy_for_the_run_and_says_so(tmp_path: Path) -> None:
    directory = project(tmp_path, DEPLOYMENT.format(name="pods"))
    code, report, _ = check(directory, "--skip-check", "gpu-size-undetermined,gpu-budget")
    assert code == 0
    assert not [f for f in report["findings"] if f["policy"] == "gpu-size-undetermined"]
    skipped = [s for s in report["suppressed"] if s["policy"] == "gpu-size-undetermined"]
    assert skipped and {s["reason"] for s in skipped} == {"skipped by --skip-check"}
    done = gpufleet(
        "check", "--program", str(directory), "--env", "dev", "--skip-check", "no-such-policy"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--skip-check: the pack has no policy 'no-such-policy'" in done.stderr


def test_soft_fail_reports_violations_and_exits_0(tmp_path: Path) -> None:
    directory = project(tmp_path, DEPLOYMENT.format(name="pods"))
    code, report, stderr = check(directory, "--soft-fail")
    assert code == 0
    assert any(f["level"] == "mandatory" for f in report["findings"])
    assert "--soft-fail:" in stderr and "do not fail this run" in stderr


def test_one_run_writes_every_report_format(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    directory = project(tmp_path / "p", DEPLOYMENT.format(name="pods"))
    out = tmp_path / "out"
    out.mkdir()
    summary = out / "summary.md"
    summary.write_text("")
    done = gpufleet(
        "check",
        "--program",
        str(directory),
        "--env",
        "dev",
        "--output",
        "github=-",
        "--output",
        f"sarif={out / 'r.sarif'}",
        "--output",
        f"junit={out / 'r.xml'}",
        "--output",
        f"json={out / 'r.json'}",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert done.returncode == 1
    assert done.stdout.startswith("::error ")
    sarif = json.loads((out / "r.sarif").read_text())
    report = json.loads((out / "r.json").read_text())
    junit = (out / "r.xml").read_text()
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"gpu-size-undetermined"}
    assert [f["policy"] for f in report["findings"]].count("gpu-size-undetermined") >= 1
    assert "<testsuites" in junit and "gpu-size-undetermined" in junit
    assert "gpu-size-undetermined" in summary.read_text()
