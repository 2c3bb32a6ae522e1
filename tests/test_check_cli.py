"""``gpufleet check`` end to end: the program captured offline, the pack started as a plugin
process and driven through the Analyzer gRPC protocol, every output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from gpufleet.checks.sarif import SARIF_SUBSET_SCHEMA

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))
BAD = "tests/programs/bad_gpu"
BAD_FINDINGS = {
    ("aml-scale-to-zero", "always-on"),
    ("checkpoint-bucket-private", "ckpt-store"),
    ("gpu-budget", ""),
    ("gpu-fleet-size", "train-group"),
    ("gpu-instance-size", "mega-node"),
    ("gpu-no-public-ip", "always-on"),
    ("gpu-no-public-ip", "mega-node"),
    ("gpu-no-public-ip", "train-template"),
    ("imdsv2-required", "train-template"),
    ("required-tags", "train-template"),
    ("reservation-end-date", "hold-a100"),
    ("sagemaker-spot-checkpointing", "finetune-job"),
    ("training-on-spot", "train-group"),
}
DEV_CONFIG = "policies/config/dev.json"
# The program line that creates the launch template (the SDK's source position).
TEMPLATE_LINE = next(
    number
    for number, line in enumerate((ROOT / BAD / "__main__.py").read_text().splitlines(), 1)
    if "= aws.ec2.LaunchTemplate(" in line
)


def gpufleet(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [GPUFLEET, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def bad(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return gpufleet(
        "check", "--env", "dev", "--program", BAD, "--policy-config", DEV_CONFIG, *args, env=env
    )


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_example_stacks_pass(env: str) -> None:
    result = gpufleet("check", "--env", env, "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["mandatory"] == 0
    assert report["resources"] > 20 and len(report["policies"]) == 12


def test_example_stack_passes_in_a_preview() -> None:
    result = gpufleet("check", "--env", "prod", "--preview", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["preview"] is True


@pytest.fixture(scope="module")
def bad_json() -> dict:
    result = bad("--format", "json")
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


def test_bad_program_every_policy_fires(bad_json: dict) -> None:
    found = {(f["policy"], f["name"]) for f in bad_json["findings"]}
    assert found == BAD_FINDINGS
    assert {f["level"] for f in bad_json["findings"]} == {"mandatory"}
    template = next(f for f in bad_json["findings"] if f["name"] == "train-template")
    # Nested in the user's own component, located at the program line that created it.
    assert "acme:ml:TrainingStack$aws:ec2/launchTemplate" in template["urn"]
    assert template["location"] == {"path": f"{BAD}/__main__.py", "line": TEMPLATE_LINE}


def test_the_pack_served_by_grpc_server_finds_the_same(bad_json: dict) -> None:
    # The pack serves with UnaryServer unless told otherwise; grpc.server (what PolicyPack
    # uses) must give the same report, finding for finding.
    result = bad("--format", "json", env={"GPUFLEET_PACK_SERVER": "grpc"})
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["findings"] == bad_json["findings"]


def test_unknown_pack_server_is_an_input_error() -> None:
    result = bad(env={"GPUFLEET_PACK_SERVER": "fast"})
    assert result.returncode == 2
    assert "GPUFLEET_PACK_SERVER='fast': expected one of unary, grpc" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_program_table(bad_json: dict) -> None:
    result = bad()
    assert result.returncode == 1
    assert f"{len(bad_json['findings'])} mandatory violation(s)" in result.stdout
    assert "train-template" in result.stdout


def test_sarif_is_valid_and_located(tmp_path: Path, bad_json: dict) -> None:
    out = tmp_path / "check.sarif"
    result = bad("--format", "sarif", "--output", str(out))
    assert result.returncode == 1 and result.stdout == ""
    log = json.loads(out.read_text())
    schema = json.loads(SARIF_SUBSET_SCHEMA.read_text())
    jsonschema.validate(log, schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    run = log["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {p for p, _ in BAD_FINDINGS}
    assert len(run["results"]) == len(bad_json["findings"])
    assert {r["level"] for r in run["results"]} == {"error"}
    located = [r["locations"][0]["physicalLocation"] for r in run["results"]]
    assert all(loc["region"]["startLine"] >= 1 for loc in located)
    assert {loc["artifactLocation"]["uri"] for loc in located} <= {
        f"{BAD}/__main__.py",
        f"{BAD}/Pulumi.dev.yaml",  # stack-wide results (the budget)
    }


def test_sarif_of_gpufleet_stacks_points_at_the_workload_line(tmp_path: Path) -> None:
    config = tmp_path / "strict.json"
    config.write_text(json.dumps({"gpu-instance-size": {"maxGpusPerInstance": 4}}))
    result = gpufleet("check", "--env", "prod", "--policy-config", str(config), "--format", "sarif")
    assert result.returncode == 1
    results = json.loads(result.stdout)["runs"][0]["results"]
    results = [r for r in results if r["ruleId"] == "gpu-instance-size"]
    lines = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().splitlines()
    assert results
    for r in results:
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "stacks/Pulumi.prod.yaml"
        assert lines[location["region"]["startLine"] - 1].strip() == "- name: pretrain-llm"


def test_junit(bad_json: dict) -> None:
    result = bad("--format", "junit")
    assert result.returncode == 1
    suites = ET.fromstring(result.stdout)
    assert int(suites.get("failures", "0")) == len(bad_json["findings"])
    failing = {s.get("name") for s in suites if int(s.get("failures", "0"))}
    assert failing == {p for p, _ in BAD_FINDINGS}


def test_github_annotations_and_summary(tmp_path: Path, bad_json: dict) -> None:
    summary = tmp_path / "summary.md"
    result = bad("--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(bad_json["findings"])
    assert all(line.startswith("::error ") for line in lines)
    assert (
        f"::error file={BAD}/__main__.py,line={TEMPLATE_LINE},title=gpufleet imdsv2-required::"
        in (result.stdout)
    )
    text = summary.read_text()
    assert "mandatory violation(s)" in text and "| `training-on-spot` |" in text


def test_baseline_reports_only_new_findings(tmp_path: Path, bad_json: dict) -> None:
    baseline = tmp_path / "baseline.json"
    written = bad("--write-baseline", str(baseline), "--format", "json")
    assert written.returncode == 1
    again = bad("--baseline", str(baseline), "--format", "json")
    assert again.returncode == 0, again.stdout
    report = json.loads(again.stdout)
    assert report["findings"] == [] and report["summary"]["baselined"] == len(bad_json["findings"])
    # One finding dropped from the baseline is new again: exit 1, only it reported.
    data = json.loads(baseline.read_text())
    dropped = data["findings"].pop(0)
    baseline.write_text(json.dumps(data))
    third = bad("--baseline", str(baseline), "--format", "json")
    assert third.returncode == 1
    assert [f["fingerprint"] for f in json.loads(third.stdout)["findings"]] == [
        dropped["fingerprint"]
    ]


def test_suppression_in_config(tmp_path: Path) -> None:
    config = json.loads((ROOT / DEV_CONFIG).read_text())
    config["aml-scale-to-zero"] = {
        "suppressions": [{"resource": "always-on", "reason": "warm pool for the demo week"}]
    }
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(config))
    result = gpufleet(
        "check", "--env", "dev", "--program", BAD, "--policy-config", str(path), "--format", "json"
    )
    report = json.loads(result.stdout)
    assert ("aml-scale-to-zero", "always-on") not in {
        (f["policy"], f["name"]) for f in report["findings"]
    }
    assert [s["reason"] for s in report["suppressed"]] == ["warm pool for the demo week"]


def test_from_export_gives_the_same_findings(tmp_path: Path, bad_json: dict) -> None:
    export = tmp_path / "stack.json"
    made = gpufleet("preview", "--env", "dev", "--program", BAD, "--export", str(export))
    assert made.returncode == 0, made.stderr
    result = gpufleet(
        "check",
        "--env",
        "dev",
        "--from-export",
        str(export),
        "--policy-config",
        DEV_CONFIG,
        "--format",
        "json",
    )
    assert result.returncode == 1, result.stderr
    found = {(f["policy"], f["name"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {(p, n) for p, n in BAD_FINDINGS}


def test_transform_tags_are_seen(tmp_path: Path) -> None:
    config = tmp_path / "team.json"
    config.write_text(json.dumps({"required-tags": {"keys": ["team", "managed-by"]}}))
    result = gpufleet(
        "check",
        "--env",
        "dev",
        "--program",
        "tests/programs/plain_aws",
        "--policy-config",
        str(config),
        "--format",
        "json",
    )
    report = json.loads(result.stdout)
    assert [f for f in report["findings"] if f["policy"] == "required-tags"] == []
    assert report["resources"] >= 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check"], "give --env ENV"),
        (["check", "--env", "dev", "--program", "tests"], "no Pulumi.yaml"),
        (["check", "--env", "prdo"], "stacks/Pulumi.prdo.yaml: no such stack config"),
        (["check", "--env", "dev", "--from-export", "README.md"], "not valid JSON"),
        (["check", "--env", "dev", "--policy-pack", "tests"], "no PulumiPolicy.yaml"),
    ],
)
def test_bad_input_exits_2(args: list[str], message: str) -> None:
    result = gpufleet(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_bad_policy_config_names_file_line_and_field(tmp_path: Path) -> None:
    config = tmp_path / "bad.json"
    config.write_text('{\n  "all": "mandatory",\n  "gpu-budget": {"monthlyBudgetUsd": "lots"}\n}\n')
    result = gpufleet("check", "--env", "dev", "--policy-config", str(config))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"{config}:3: gpu-budget.monthlyBudgetUsd: 'lots' is not of type 'number'"
    ]
