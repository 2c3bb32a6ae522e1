"""The ``gpu-budget`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from gpufleet.checks.stack_check import CheckRequest, check_stack
from gpufleet.cli.main import main
from gpufleet.policies.pack import PACK_DIR
from gpufleet.policies.testing import PolicyHarness, StackInput
from tests.helpers import ROOT
from tests.policies.inputs import LT, SECURE_LT, asg_from_template


def test_budget_counts_spot_and_on_demand_prices() -> None:
    from gpufleet.policies.footprints import read_gpu_footprint
    from gpufleet.policies.rules.gpu_budget import monthly_cost

    def cost(market: str) -> float:
        footprint = read_gpu_footprint(
            "azure-native:compute:VirtualMachineScaleSet",
            {
                "location": "eastus",
                "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2},
                "virtualMachineProfile": {"priority": market},
            },
        )
        assert footprint is not None
        value, why = monthly_cost(footprint)
        assert value is not None, why
        return value

    assert 0 < cost("Spot") < cost("Regular")


def test_budget_over_and_under() -> None:
    template = StackInput(LT, {**SECURE_LT, "instanceType": "p5.48xlarge"}, "tpl")
    group = asg_from_template(2, template.urn("dev"))
    over = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 1000}})
    found = [v for v in over.analyze_stack([template, group]) if v.policy == "gpu-budget"]
    assert len(found) == 1 and "exceeds the budget of $1,000/month" in found[0].message
    under = PolicyHarness(config={"gpu-budget": {"monthlyBudgetUsd": 10_000_000}})
    assert [v for v in under.analyze_stack([template, group]) if v.policy == "gpu-budget"] == []


PERF_SPEC = """\
version: 1
project: acme-ml
owner: ml-platform@acme.example
cost_center: cc-1
environments:
  perf: {monthly_budget_usd: 50}
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


def test_a_specs_budget_reaches_the_policy_whatever_the_environment_is_called(
    tmp_path: Path,
) -> None:
    """No policy config exists for "perf": the budget comes from the generated stack config."""
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
    outcome = check_stack(CheckRequest(stack="perf", program=tmp_path, pack_dir=PACK_DIR), tmp_path)
    found = [f.message for f in outcome.report.findings if f.policy == "gpu-budget"]
    assert len(found) == 1 and "exceeds the budget of $50/month" in found[0]
