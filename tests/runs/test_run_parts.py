"""Which parts of a workload a run scales, how ``--to N`` fills them, and what a workload
none of whose parts scale is told instead; every registered component is one or the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.planner.capabilities import CAPABILITIES, GROUP_KINDS
from gpufleet.runs.run_parts import (
    ScaleInputError,
    find_workload,
    spread,
    unscalable_reason,
)
from gpufleet.runs.stack_target import read_stack
from gpufleet.stacks.stack_config import Part, WorkloadPlacement
from tests.helpers import ROOT
from tests.runs.stack_files import ENVIRONMENT, WORKLOADS, part, workload, write_stack_config


def placement(raw: dict[str, object]) -> WorkloadPlacement:
    return WorkloadPlacement.model_validate(raw)


def test_every_component_is_a_group_a_run_sizes_or_says_why_not() -> None:
    for entry in CAPABILITIES.values():
        kind = entry.group
        # Reserved capacity follows no scaling but fixed (the stack config refuses others).
        scaling = "on_request" if "on_request" in entry.follows else "fixed"
        reason = unscalable_reason(
            placement(workload("w", entry.cloud, [part(entry.name, 1, scaling)])),
            Part(component=entry.name, instances=1, pricing="spot", scaling=scaling),
        )
        assert (kind is None) == (reason is not None), entry.name
    # Every kind of group a run sizes is some component's (one runs/ module each).
    assert set(GROUP_KINDS) == {capability.group for capability in CAPABILITIES.values()} - {None}


def test_n_fills_the_parts_that_scale_in_order() -> None:
    two = placement(
        workload(
            "two",
            "gcp",
            [
                part("gcp:ReservationPool", 2, "fixed", "reserved_1y"),
                part("gcp:SpotGroup", 3, "on_request"),
                part("gcp:SpotGroup", 2, "schedule"),
            ],
        )
    )
    assert [(run.index, run.instances) for run in spread(two, 4)] == [(1, 3), (2, 1)]
    assert [(run.index, run.instances) for run in spread(two, 0)] == [(1, 0), (2, 0)]
    assert [run.group for run in spread(two, 5)] == ["gcp_group", "gcp_group"]
    with pytest.raises(ScaleInputError) as error:
        spread(two, 6)
    assert error.value.problems == [
        "--to 6: two may run at most 5 instance(s) on request "
        "(gcp:SpotGroup up to 3, gcp:SpotGroup up to 2)"
    ]


def test_an_aws_group_on_a_schedule_takes_no_run() -> None:
    """Its schedule is scheduled actions that set sizes: a run's end would leave it at 0."""
    scheduled = placement(workload("s", "aws", [part("aws:SpotFleet", 2, "schedule")]))
    with pytest.raises(ScaleInputError) as error:
        spread(scheduled, 1)
    assert "runs on its weekly schedule (scheduled actions)" in error.value.problems[0]


def test_a_multi_node_job_runs_all_its_nodes_or_none() -> None:
    job = placement(workload("job", "aws", [part("aws:PlacementCluster", 4, "on_request")]))
    assert [run.instances for run in spread(job, 4)] == [4]
    assert [run.instances for run in spread(job, 0)] == [0]
    with pytest.raises(ScaleInputError, match="multi-node job of 4 nodes"):
        spread(job, 2)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("aws-sagemaker", "SageMaker training job template: start a training job"),
        ("azure-ml", "Azure ML compute cluster that scales from 0 on queued jobs: submit a job"),
        ("aws-fixed", "runs its 2 instance(s) all month (scaling: fixed)"),
    ],
)
def test_a_workload_with_nothing_to_scale_says_how_it_is_used(name: str, says: str) -> None:
    raw = next(w for w in WORKLOADS if w["name"] == name)
    with pytest.raises(ScaleInputError) as error:
        spread(placement(raw), 1)
    [line] = error.value.problems
    assert line.startswith(f"{name}: ") and says in line


def test_reserved_capacity_is_not_scaled() -> None:
    reserved = placement(workload("r", "gcp", [part("gcp:ReservationPool", 2, "fixed")]))
    with pytest.raises(ScaleInputError) as error:
        spread(reserved, 1)
    assert "holds its 2 instance(s) all month (reserved capacity)" in error.value.problems[0]


def test_an_unknown_workload_names_the_known_ones(tmp_path: Path) -> None:
    target = read_stack(ROOT, ENVIRONMENT, write_stack_config(tmp_path, WORKLOADS[:2]))
    with pytest.raises(ScaleInputError) as error:
        find_workload(target.settings, "nope")
    assert error.value.problems == [
        f"no workload 'nope' in environment {ENVIRONMENT}; workloads: aws-fleet, aws-serving"
    ]


def test_a_burst_on_load_takes_no_run() -> None:
    serving = placement(
        workload(
            "chat",
            "azure",
            [
                part("azure:CapacityReservationGroup", 2, "fixed", "reserved_1y"),
                part("azure:SpotScaleSet", 3, "on_load"),
            ],
            kind="inference",
        )
    )
    with pytest.raises(ScaleInputError) as error:
        spread(serving, 1)
    assert any("follows its base's load" in line for line in error.value.problems)
