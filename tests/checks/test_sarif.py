"""SARIF from gpufleet check: valid against the schema, every finding located (program line, or the
workload's line in a gpufleet stack config)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gpufleet.checks.sarif import SARIF_SUBSET_SCHEMA
from tests.checks.check_runs import BAD, BAD_FINDINGS, bad, gpufleet
from tests.helpers import ROOT


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
    found = set()
    for r in results:
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "stacks/Pulumi.prod.yaml"
        found.add(lines[location["region"]["startLine"] - 1].strip())
    # The 8-GPU machines: pre-training's and the regression eval's, each at its own workload.
    assert found == {"- name: pretrain-llm", "- name: weekly-regression"}
