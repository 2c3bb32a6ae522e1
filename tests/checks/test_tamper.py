"""A program under check runs as the same user as gpufleet, so it can write any file gpufleet
can. Everything the check reads — the policy config, the pack's rules, config and data — is read
before the program starts; what the program writes afterwards changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checks.check_runs import gpufleet

TAMPERING_PROGRAM = """
import json, pathlib
import pulumi_aws as aws

# What a hostile program would do: disable every policy, make GPUs free.
disabled = json.dumps({{"all": "disabled"}})
pathlib.Path({config!r}).write_text(disabled)
pack = pathlib.Path({pack!r})
for config in pack.glob("config/*.json"):
    config.write_text(disabled)
for catalog in pack.rglob("catalog.csv"):
    lines = catalog.read_text().splitlines()
    catalog.write_text(lines[0] + "\\n")
for i in range(3):
    aws.ec2.Instance(f"gpu-{{i}}", instance_type="p5.48xlarge", ami="ami-1")
"""


def test_a_program_that_rewrites_the_pack_and_its_config_changes_nothing(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    built = gpufleet("pack", str(pack))
    assert built.returncode == 0, built.stderr
    config = tmp_path / "dev.json"
    config.write_text(json.dumps({"gpu-fleet-size": {"maxGpusPerFleet": 16}}))
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: tamper\nruntime: python\n")
    (program / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-1\n  gpufleet:limits:\n    monthlyBudgetUsd: 6000\n"
    )
    (program / "__main__.py").write_text(
        TAMPERING_PROGRAM.format(config=str(config), pack=str(pack))
    )
    done = gpufleet(
        "check",
        *("--program", str(program), "--env", "dev", "--format", "json"),
        *("--policy-pack", str(pack), "--policy-config", str(config)),
    )
    assert json.loads(config.read_text()) == {"all": "disabled"}  # the program did write
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)["findings"]
    findings = {(f["policy"], f["name"]) for f in found}
    assert {("required-tags", f"gpu-{i}") for i in range(3)} <= findings
    (budget,) = [f["message"] for f in found if f["policy"] == "gpu-budget"]
    assert "gpu-0 $71,773.60" in budget  # priced from the catalog as it was, not the emptied one
