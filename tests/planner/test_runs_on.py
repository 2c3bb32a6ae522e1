"""A workload may name the component that builds it (``runs_on``): it decides the cloud and the
pricing models the plan may choose, and one that cannot build the workload is a spec problem
with its line; without it, the preferred component of the placement builds it."""

from __future__ import annotations

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import SpecError, parse_spec
from gpufleet.stacks.placement_parts import placement_parts

SPEC = """\
version: 1
project: t
owner: o@acme.example
cost_center: c
environments:
  prod: {{max_commitment: 3y}}
defaults:
  clouds: [aws, gcp, azure]
  regions: {{aws: [us-east-1], gcp: [us-central1], azure: [eastus]}}
workloads:
  - {{name: w, {workload}}}
"""


def plan_of(workload: str) -> list[tuple[str, str, str]]:
    """(cloud, pricing, component of each part) of the one workload's placement."""
    spec = parse_spec(SPEC.format(workload=workload), "spec.yaml")
    plan = Planner(spec, load_catalog()).plan_environment("prod")
    (placement,) = plan.placements
    parts = placement_parts(placement)
    return [(placement.cloud, part.pricing, part.component) for part in parts]


def test_the_component_decides_the_cloud_and_the_pricing() -> None:
    serving = "kind: inference, gpu: {name: L4}, always_on: true, replicas: {min: 2, max: 2}"
    # Left to the planner: a reservation on a 3-year commitment, wherever cheapest.
    ((_, pricing, component),) = plan_of(serving)
    assert pricing == "reserved_3y" and component.endswith(("Pool", "Group"))
    # A spot group builds no reservation: on-demand, on GCP.
    assert plan_of(serving + ", runs_on: gcp:SpotGroup") == [("gcp", "on_demand", "gcp:SpotGroup")]
    training = "kind: training, gpu: {name: A100, count: 8}, nodes: 2, hours_per_month: 50"
    ((cloud, _, component),) = plan_of(training + ", runs_on: azure:SpotScaleSet")
    assert (cloud, component) == ("azure", "azure:SpotScaleSet")


def test_the_plan_json_names_it_only_when_chosen() -> None:
    spec = parse_spec(
        SPEC.format(workload="kind: batch, gpu: {name: L4}, runs_on: aws:SpotFleet"), "s.yaml"
    )
    (placement,) = Planner(spec, load_catalog()).plan_environment("prod").placements
    assert placement.as_dict()["runs_on"] == "aws:SpotFleet"
    plain = parse_spec(SPEC.format(workload="kind: batch, gpu: {name: L4}"), "s.yaml")
    (placement,) = Planner(plain, load_catalog()).plan_environment("prod").placements
    assert "runs_on" not in placement.as_dict()


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        (
            "kind: batch, gpu: {name: L4}, runs_on: gcp:Nope",
            "unknown component 'gcp:Nope'; gpufleet has: aws:SpotFleet",
        ),
        (
            "kind: batch, gpu: {name: L4}, clouds: [aws], runs_on: gcp:SpotGroup",
            "gcp:SpotGroup runs on gcp, which is not in clouds ['aws']",
        ),
        (
            "kind: training, gpu: {name: L4}, runs_on: azure:LowPriorityCluster",
            "azure:LowPriorityCluster builds the azureml service's capacity; the workload asks "
            "for no managed service",
        ),
        (
            "kind: training, gpu: {name: A10G}, managed: sagemaker, runs_on: aws:SpotFleet",
            "aws:SpotFleet builds no managed service's capacity; the workload asks for managed: "
            "sagemaker",
        ),
        (
            "kind: training, gpu: {name: H100, count: 8}, nodes: 2, runs_on: aws:SpotFleet",
            "aws:SpotFleet builds fleet; the workload needs a multi-node job",
        ),
        (
            "kind: batch, gpu: {name: L4}, runs_on: aws:PlacementCluster",
            "aws:PlacementCluster builds multi_node; the workload needs a fleet or a reserved base",
        ),
        (
            "kind: inference, gpu: {name: L4}, hours_per_month: 40, runs_on: aws:CapacityPool",
            "aws:CapacityPool builds reserved capacity, held all month: for an always_on "
            "inference workload's base",
        ),
    ],
)
def test_a_component_that_cannot_build_the_workload_is_a_spec_problem(
    workload: str, message: str
) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(SPEC.format(workload=workload), "spec.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (11, "workloads[0].runs_on"), problem
    assert problem.message.startswith(message), problem.message
