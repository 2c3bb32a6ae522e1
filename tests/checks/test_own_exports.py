"""The example's own prod stack, exported as ``pulumi stack export`` writes it, through the
commands a pull request runs: ``gpufleet check --from-export`` finds nothing (the stack's
outputs name instance types, and are not capacity), and ``gpufleet cost --compare-to`` against
the export shows no change and no phantom line. (Every generated stack is checked four ways
in-process by ``test_gate_agrees_with_builder.py``; this is the real commands end to end.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.checks.check_runs import gpufleet, own_stack_findings


@pytest.fixture(scope="module")
def prod_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    export = tmp_path_factory.mktemp("export") / "prod.json"
    done = gpufleet("preview", "--env", "prod", "--export", str(export))
    assert done.returncode == 0, done.stderr
    # What made the check fail before: its outputs name GPU machine types.
    stack = next(
        r
        for r in json.loads(export.read_text())["deployment"]["resources"]
        if r["type"] == "pulumi:pulumi:Stack"
    )
    assert "instanceType" in json.dumps(stack["outputs"])
    return export


def test_check_from_the_stacks_own_export_finds_nothing(prod_export: Path) -> None:
    done = gpufleet("check", "--env", "prod", "--from-export", str(prod_export), "--format", "json")
    assert done.returncode == 0, own_stack_findings(done.stdout)
    report = json.loads(done.stdout)
    assert report["findings"] == [], own_stack_findings(done.stdout)


def test_cost_against_the_stacks_own_export_shows_no_change(prod_export: Path) -> None:
    done = gpufleet("cost", "--env", "prod", "--compare-to", str(prod_export), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["diff"]["resources"] == []  # nothing added, removed or changed
    assert report["diff"]["delta"] == {"expected_monthly_usd": 0.0, "maximum_monthly_usd": 0.0}
    assert report["totals"]["unpriced"] == 0
    names = {r["name"] for w in report["workloads"] for r in w["resources"]}
    assert not any(name.startswith("gpufleet-prod") for name in names), names
