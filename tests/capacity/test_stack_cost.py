"""``gpufleet cost`` end to end short of rendering: the stack loaded from its program or an
export (priced the same), its budget found where gpu-budget finds it, the plan's figures read
from a generated stack config, the base of a comparison, and every kind of bad input as one
line naming the file and the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpufleet.capacity.cost_report import check_report
from gpufleet.capacity.stack_cost import CostInputError, CostRequest, cost_stack
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.engine.stack_export import write_deployment
from gpufleet.engine.stack_source import StackSource
from gpufleet.policies.pack import PACK_DIR
from tests.helpers import ROOT

PROGRAM = ROOT / "tests" / "programs" / "gpu_costs"


def request(
    stack: str = "prod",
    program: Path = ROOT,
    *,
    export_file: Path | None = None,
    policy_config: Path | None = None,
    compare_to: Path | None = None,
) -> CostRequest:
    return CostRequest(
        StackSource(stack, program, export_file=export_file),
        pack_dir=PACK_DIR,
        policy_config=policy_config,
        compare_to=compare_to,
    )


def test_the_example_stack_with_its_specs_budget_and_plan() -> None:
    outcome = cost_stack(request())
    report = outcome.report
    assert report.budget is not None and report.budget.monthly_usd == 150_000
    assert report.budget.estimate == "expected" and "gpufleet:limits" in report.budget.source
    planned = {w.name: w.plan_monthly_usd for w in report.cost.workloads}
    assert planned["pretrain-llm"] == 12331.11 and None not in planned.values()
    data = check_report(report.as_dict(), "report")
    totals = data["totals"]["expected"]["monthly_usd"]
    assert totals == pytest.approx(sum(w["expected"]["monthly_usd"] for w in data["workloads"]))
    assert outcome.diff is None and not report.fails_budget


def test_a_policy_config_budget_wins_and_a_disabled_policy_holds_to_none(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-budget": {"monthlyBudgetUsd": 100, "estimate": "maximum"}}))
    report = cost_stack(request(policy_config=config)).report
    assert report.budget is not None and (report.budget.monthly_usd, report.budget.estimate) == (
        100,
        "maximum",
    )
    assert report.over_budget_usd == pytest.approx(report.cost.total("maximum") - 100)
    assert report.fails_budget
    config.write_text(json.dumps({"gpu-budget": "disabled"}))
    assert cost_stack(request(policy_config=config)).report.budget is None


def test_a_bad_policy_config_is_one_line_naming_file_line_and_field(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text('{\n  "gpu-budget": {"monthlyBudgetUsd": "lots"}\n}\n')
    with pytest.raises(CostInputError) as raised:
        cost_stack(request(policy_config=config))
    assert raised.value.problems == [
        f"{config}:2: gpu-budget.monthlyBudgetUsd: 'lots' is not of type 'number'"
    ]


def test_an_export_is_priced_as_its_program(tmp_path: Path) -> None:
    """The export carries its default providers' config (their region), so nothing in it is
    priced as if its region were unknown."""
    export = tmp_path / "head.json"
    write_deployment(run_program_dir(PROGRAM, "head"), export)
    from_program = cost_stack(request("head", PROGRAM)).report.as_dict()
    from_export = cost_stack(request("head", PROGRAM, export_file=export)).report.as_dict()
    assert from_export["totals"] == from_program["totals"]
    assert from_export["workloads"] == from_program["workloads"]


def test_compare_to_a_saved_report_or_an_export(tmp_path: Path) -> None:
    base_export = tmp_path / "base-export.json"
    write_deployment(run_program_dir(PROGRAM, "base"), base_export)
    base_report = tmp_path / "base-report.json"
    base_report.write_text(json.dumps(cost_stack(request("base", PROGRAM)).report.as_dict()))
    for base in (base_export, base_report):
        diff = cost_stack(request("head", PROGRAM, compare_to=base)).diff
        assert diff is not None
        statuses = {c.name: c.status for c in diff.changed}
        assert statuses == {
            "eval-workers": "changed",
            "tuning-vm": "removed",
            "serving-reservation": "added",
            "mystery": "added",
        }
    same = cost_stack(request("head", PROGRAM, compare_to=base_report)).diff
    assert same is not None and same.delta("expected") != 0


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "{not json",
            ":1: json: not valid JSON: Expecting property name enclosed in double quotes",
        ),
        ('{"format": "gpufleet-cost", "version": 1}', ":1: json: 'project' is a required"),
        ('{"format": "gpufleet-cost", "version": 2}', ":1: json: 'project' is a required"),
        ("[1, 2]", ":1: json: neither a gpufleet cost report (--format json) nor a pulumi stack"),
        ('{"version": 3, "deployment": {}}', ":1: deployment.resources: missing"),
        ("[" * 100_000 + "]" * 100_000, ":1: json: not a cost report or a stack export: nested"),
    ],
)
def test_a_base_that_is_neither_is_one_line(tmp_path: Path, text: str, problem: str) -> None:
    base = tmp_path / "base.json"
    base.write_text(text)
    with pytest.raises(CostInputError) as raised:
        cost_stack(request(compare_to=base))
    (line,) = raised.value.problems
    assert line.startswith(f"{base}") and problem in line, line


@pytest.mark.parametrize(
    ("deployment", "problem"),
    [
        (
            {"resources": [{"urn": "u", "type": 3}]},
            "deployment.resources[0].type: missing or not a string",
        ),
        (
            {"resources": [{"urn": "u", "type": "t", "inputs": []}]},
            "deployment.resources[0].inputs: expected an object, not list",
        ),
        (
            {"resources": [{"urn": "u", "type": "t", "dependencies": "x"}]},
            "deployment.resources[0].dependencies: expected a list, not str",
        ),
        (
            {"resources": [{"urn": "u", "type": "t", "propertyDependencies": {"a": [1]}}]},
            "deployment.resources[0].propertyDependencies: not a map of property to URNs",
        ),
        (
            {
                "resources": [
                    {
                        "urn": "u",
                        "type": "t",
                        "outputs": {
                            "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                            "plaintext": "{oops",
                        },
                    }
                ]
            },
            "deployment.resources[0].outputs: a secret's plaintext is not JSON text",
        ),
    ],
)
def test_a_malformed_export_is_one_line_naming_the_field(
    tmp_path: Path, deployment: dict[str, object], problem: str
) -> None:
    export = tmp_path / "state.json"
    export.write_text(json.dumps({"version": 3, "deployment": deployment}, indent=1))
    with pytest.raises(CostInputError) as raised:
        cost_stack(request(export_file=export))
    (line,) = raised.value.problems
    field = problem.split(":", 1)[0].rsplit(".", 1)[-1]
    text = export.read_text()
    # The line of the field named (or of its resource, when the field is missing).
    expected = text[: text.index(f'"{field}"')].count("\n") + 1 if f'"{field}"' in text else 4
    assert line == f"{export}:{expected}: {problem}"


def test_an_export_that_is_not_text_is_one_line(tmp_path: Path) -> None:
    export = tmp_path / "state.json"
    export.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CostInputError) as raised:
        cost_stack(request(export_file=export))
    assert raised.value.problems == [f"{export}:1: file: not UTF-8 text (byte 0xff)"]


def test_a_policy_configs_estimate_holds_the_specs_budget_too(tmp_path: Path) -> None:
    """As gpu-budget does: no monthlyBudgetUsd in the policy config, so the environment's
    budget applies, to the figure the config names."""
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-budget": {"estimate": "maximum"}}))
    budget = cost_stack(request(policy_config=config)).report.budget
    assert budget is not None and (budget.monthly_usd, budget.estimate) == (150_000, "maximum")
    assert "gpufleet:limits" in budget.source


def test_an_exported_base_is_priced_with_the_heads_commitment_discounts(tmp_path: Path) -> None:
    """The stack compared with its own export shows no change, even where its config sets
    discounts other than the shipped ones: the diff is the resources', not the rate cards'."""
    program = tmp_path / "program"
    shutil.copytree(PROGRAM, program)
    head = program / "Pulumi.head.yaml"
    discounts = json.dumps({"aws": {"reserved_1y": 0.9}})
    head.write_text(head.read_text() + f"  gpufleet:commitmentDiscounts: '{discounts}'\n")
    export = tmp_path / "head.json"
    write_deployment(run_program_dir(program, "head"), export)
    outcome = cost_stack(request("head", program, compare_to=export))
    reservation = next(r for r in outcome.report.cost.resources if r.name == "serving-reservation")
    shipped = next(
        r
        for r in cost_stack(request("head", PROGRAM)).report.cost.resources
        if r.name == "serving-reservation"
    )
    assert reservation.pricing == shipped.pricing == "reserved_1y"
    assert reservation.rate_usd is not None and shipped.rate_usd is not None
    assert reservation.rate_usd < shipped.rate_usd  # the stack's 90% discount applies
    assert outcome.diff is not None and not outcome.diff.changed
    assert outcome.diff.delta("expected") == 0 and outcome.diff.delta("maximum") == 0


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda d: d["workloads"][0]["resources"].clear(),
            "totals.expected.monthly_usd: {total:,.2f} is not the sum of its resources",
        ),
        (
            lambda d: d["workloads"][1]["resources"].append(d["workloads"][0]["resources"][0]),
            "workloads[1].resources[1].urn: 'urn:pulumi:prod::gpufleet::",
        ),
        (
            lambda d: d["workloads"].append(dict(d["workloads"][0], resources=[])),
            "name: 'chat-serving' appears twice",
        ),
        (lambda d: d["totals"].update(unpriced=3), "totals.unpriced: 3 is not the number"),
    ],
)
def test_a_saved_report_that_contradicts_itself_is_refused(
    tmp_path: Path, edit: Any, problem: str
) -> None:
    """A hand-edited base would make a diff say anything: its totals must be its resources'."""
    data = cost_stack(request()).report.as_dict()
    problem = problem.format(total=data["totals"]["expected"]["monthly_usd"])
    edit(data)
    saved = tmp_path / "base.json"
    saved.write_text(json.dumps(data))
    with pytest.raises(CostInputError) as raised:
        cost_stack(request(compare_to=saved))
    (line,) = raised.value.problems
    assert problem in line, line


def test_an_advisory_budget_is_reported_but_does_not_fail(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(
        json.dumps({"gpu-budget": {"enforcementLevel": "advisory", "monthlyBudgetUsd": 1}})
    )
    report = cost_stack(request(policy_config=config)).report
    assert report.budget is not None and report.budget.level == "advisory"
    assert report.breaks_budget and not report.fails_budget
    # And the spec's budget, when the config sets none, takes the config's level too.
    config.write_text(json.dumps({"gpu-budget": "advisory"}))
    fallback = cost_stack(request(policy_config=config)).report.budget
    assert fallback is not None and (fallback.monthly_usd, fallback.level) == (150_000, "advisory")
