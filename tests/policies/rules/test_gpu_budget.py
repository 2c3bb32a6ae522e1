"""The ``gpu-budget`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them; unpriced GPU capacity where a budget is set;
and ``gpufleet check``'s budget message agreeing with ``gpufleet cost`` to the cent."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from gpufleet.capacity.stack_cost import CostRequest, cost_stack
from gpufleet.checks.stack_check import CheckRequest, check_stack
from gpufleet.cli.main import main
from gpufleet.engine.stack_source import StackSource
from gpufleet.policies.pack import PACK_DIR
from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.helpers import ROOT
from tests.policies.inputs import LT, SECURE_LT, TAGS, asg_from_template


def budget_messages(harness: PolicyHarness, stack: list[StackInput]) -> list[str]:
    return [v.message for v in harness.analyze_stack(stack) if v.policy == "gpu-budget"]


P5_GROUP = (
    StackInput(LT, {**SECURE_LT, "instanceType": "p5.48xlarge", "region": "us-east-1"}, "tpl"),
)


def p5_stack(size: int) -> list[StackInput]:
    (template,) = P5_GROUP
    return [template, asg_from_template(size, template.urn("dev"))]


def test_budget_over_and_under() -> None:
    over = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 1000}})
    (message,) = budget_messages(over, p5_stack(2))
    # Two p5.48xlarge on-demand in us-east-1 at $98.32 an hour, 730 hours.
    assert message.startswith(
        "expected GPU cost $143,547.20/month (maximum $143,547.20) exceeds the budget of "
        "$1,000.00/month by $142,547.20 (largest: group $143,547.20)"
    )
    under = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 10_000_000}})
    assert budget_messages(under, p5_stack(2)) == []
    assert budget_messages(PolicyHarness(), p5_stack(2)) == []  # no budget anywhere


def test_the_budget_holds_the_expected_figure_unless_told_maximum() -> None:
    """A group at 0 that may grow to 4 and declares it expects no use: its expected cost is
    $0; ``estimate: maximum`` holds the budget to every group at its max size. Declaring no
    use at all leaves it unpriced, a finding of its own (never $0 by omission)."""
    (template,) = P5_GROUP
    declared = [{"key": "expected-minutes", "value": "0", "propagateAtLaunch": False}]
    group = StackInput(
        "aws:autoscaling/group:Group",
        {"minSize": 0, "maxSize": 4, "launchTemplate": {"id": "lt-1"}, "tags": declared},
        "group",
        property_dependencies={"launchTemplate": [template.urn("dev")]},
    )
    expected = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 1000}})
    assert budget_messages(expected, [template, group]) == []
    silent = replace(group, props={**group.props, "tags": []})
    (unpriced,) = budget_messages(expected, [template, silent])
    assert "cannot be priced (it sits at zero until" in unpriced
    maximum = PolicyHarness(
        config={"gpu-budget": {"monthlyBudgetUsd": 1000, "estimate": "maximum"}}
    )
    (message,) = budget_messages(maximum, [template, group])
    assert message.startswith("maximum GPU cost $287,094.40/month (expected $0.00)")


def test_unpriced_gpu_capacity_is_a_finding_where_a_budget_is_set() -> None:
    """A GPU-looking type the catalog does not know could cost anything: with a budget set it
    is a violation of its own, even when the priced rest fits."""
    mystery = StackInput(
        "aws:ec2/instance:Instance",
        {"instanceType": "p9.96xlarge", "tags": TAGS, "availabilityZone": "us-east-1a"},
        "mystery",
    )
    with_budget = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 6000}})
    (message,) = budget_messages(with_budget, [mystery])
    assert message == (
        "EC2 instance mystery cannot be priced (instanceType p9.96xlarge is not in the GPU "
        "catalog (GPUs unknown)), so the budget of $6,000.00/month cannot be checked for it"
    )
    assert budget_messages(PolicyHarness(), [mystery]) == []


def test_capacity_outside_its_region_is_priced_at_its_highest_rate_not_zero() -> None:
    """The issue's cases: a3-highgpu-8g where the catalog has no price (us-central1-a) and ten
    p5.48xlarge in sa-east-1 used to pass a $6,000 dev budget at $0."""
    a3 = StackInput(
        "gcp:compute/instance:Instance",
        {"machineType": "a3-highgpu-8g", "zone": "us-central1-a", "labels": TAGS},
        "a3",
    )
    dev = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 6000}})
    (message,) = budget_messages(dev, [a3])
    assert "exceeds the budget of $6,000.00/month" in message
    template = StackInput(
        LT, {**SECURE_LT, "instanceType": "p5.48xlarge", "region": "sa-east-1"}, "tpl"
    )
    ten = asg_from_template(10, template.urn("dev"))
    (message,) = budget_messages(dev, [template, ten])
    assert "exceeds the budget of $6,000.00/month" in message


PERF_SPEC = """\
version: 1
project: acme-ml
owner: ml-platform@acme.example
cost_center: cc-1
environments:
  perf: {monthly_budget_usd: 5}
workloads:
  - {name: evals, kind: batch, gpu: {name: L4}, interruptible: true, hours_per_month: 100,
     clouds: [gcp], regions: {gcp: [us-central1]}}
"""
PERF_SITE = """\
  site:gcp:
    project: acme-perf
    sourceImage: projects/acme-perf/global/images/gpu-base
    regions:
      us-central1: {network: net, subnetwork: sub}
"""


def perf_project(tmp_path: Path) -> Path:
    """A project whose stack ``perf`` gpufleet generated from a spec with a $5 budget (the
    stack follows the plan's 100 hours: about $20 a month)."""
    (tmp_path / "spec.yaml").write_text(PERF_SPEC)
    (tmp_path / "Pulumi.yaml").write_text(
        f"name: gpufleet\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    stacks = str(tmp_path / "stacks")
    spec = str(tmp_path / "spec.yaml")
    made = CliRunner().invoke(main, ["generate", spec, "--env", "perf", "--stacks-dir", stacks])
    assert made.exit_code == 0, made.output
    stack_file = tmp_path / "stacks" / "Pulumi.perf.yaml"
    stack_file.write_text(stack_file.read_text() + PERF_SITE)
    assert not (PACK_DIR / "config" / "perf.json").exists()
    return tmp_path


def test_a_specs_budget_reaches_the_policy_and_agrees_with_cost(tmp_path: Path) -> None:
    """No policy config exists for "perf": the budget comes from the generated stack config,
    and ``check`` says what ``cost`` says, to the cent."""
    project = perf_project(tmp_path)
    outcome = check_stack(CheckRequest(stack="perf", program=project, pack_dir=PACK_DIR))
    (message,) = [f.message for f in outcome.report.findings if f.policy == "gpu-budget"]
    assert "exceeds the budget of $5.00/month" in message
    priced = cost_stack(CostRequest(StackSource("perf", project), pack_dir=PACK_DIR)).report
    assert priced.budget is not None and priced.budget.monthly_usd == 5
    total = re.search(r"expected GPU cost \$([\d,.]+)/month", message)
    assert total is not None
    assert total.group(1) == f"{priced.cost.total('expected'):,.2f}"
    assert priced.fails_budget


def test_reserved_capacity_is_priced_with_the_stacks_own_commitment_discounts() -> None:
    """A spec that sets its own discounts writes them into the stack config; the budget prices
    the reservation its commitment covers with them, as the plan did."""
    reservation = StackInput(
        "aws:ec2/capacityReservation:CapacityReservation",
        {
            "instanceType": "p5.48xlarge",
            "instanceCount": 1,
            "availabilityZone": "us-east-1a",
            "tags": {**TAGS, "commitment": "1y"},
        },
        "pool",
    )
    config = {"gpu-budget": {"monthlyBudgetUsd": 1}}
    # Its commitment tag is the plan's forecast: no held commitment, the on-demand rate.
    (message,) = budget_messages(PolicyHarness(config=config), [reservation])
    assert "expected GPU cost $71,773.60/month" in message  # 98.32 x 730
    held = {
        "site:commitments": json.dumps(
            [
                {
                    "cloud": "aws",
                    "id": "ri-1",
                    "term": "1y",
                    "kind": "instances",
                    "region": "us-east-1",
                    "instanceType": "p5.48xlarge",
                    "count": 1,
                }
            ]
        )
    }
    default = PolicyHarness(config=config, stack_config=held)
    (message,) = budget_messages(default, [reservation])
    assert "expected GPU cost $46,652.84/month" in message  # 98.32 x (1 - 0.35) x 730
    discounts = {"gpufleet:commitmentDiscounts": json.dumps({"aws": {"reserved_1y": 0.5}})}
    limits = {"gpufleet:limits": json.dumps({"allowOnDemand": True, "maxCommitment": "3y"})}
    own = PolicyHarness(config=config, stack_config={**limits, **discounts, **held})
    (message,) = budget_messages(own, [reservation])
    assert "expected GPU cost $35,886.80/month" in message  # 98.32 x 0.5 x 730


def test_a_size_unknown_in_a_preview_is_not_a_budget_violation() -> None:
    """Known once deployed: gpu-size-undetermined reports it (advisory by default); the budget
    does not fail a preview over it."""
    from gpufleet.policies.testing import UNKNOWN

    preview = StackInput(
        "aws:ec2/instance:Instance",
        {"instanceType": UNKNOWN, "tags": TAGS, "availabilityZone": "us-east-1a"},
        "computed",
    )
    harness = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 6000}}, dry_run=True)
    found = harness.analyze_stack([preview])
    assert [v.policy for v in found if v.level == "mandatory"] == []
    assert [v.policy for v in found] == ["gpu-size-undetermined"]


def test_a_commitment_the_stack_buys_unknown_in_a_preview_is_an_advisory() -> None:
    """No GPU capacity for gpu-size-undetermined to report, a commitment whose amounts a
    preview cannot know is said here, as an advisory; known and beyond the stack's
    reservations, it blocks."""
    from gpufleet.policies.testing import UNKNOWN

    def commitment(gpus: object) -> StackInput:
        return StackInput(
            "gcp:compute/regionCommitment:RegionCommitment",
            {
                "region": "us-east4",
                "plan": "TWELVE_MONTH",
                "type": "GRAPHICS_OPTIMIZED",
                "resources": [
                    {"type": "VCPU", "amount": "4"},
                    {"type": "MEMORY", "amount": "16384"},
                    {"type": "ACCELERATOR", "acceleratorType": "nvidia-l4", "amount": gpus},
                ],
            },
            "cud",
        )

    harness = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 6000}}, dry_run=True)
    found = [v for v in harness.analyze_stack([commitment(UNKNOWN)]) if v.policy == "gpu-budget"]
    assert [v.level for v in found] == ["advisory"]
    assert found[0].message.startswith("commitment cud cannot be priced until deployed")
    known = [v for v in harness.analyze_stack([commitment("1")]) if v.policy == "gpu-budget"]
    assert [v.level for v in known] == ["mandatory"]
    assert "it buys 1 L4 GPU(s)" in known[0].message
