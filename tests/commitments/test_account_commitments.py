"""``gpufleet commitments`` against the clouds' APIs with the real SDK clients: EC2 reserved
instances and Savings Plans on a local AWS server (moto implements neither), GCP committed-use
discounts on the local Compute Engine API, Azure reservations on the local Resource Manager;
pages followed, denials worded, and what each reserved part is paid by, as the cost engine
would price it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gpufleet.capacity.commitments_file import read_commitments_file
from gpufleet.cli.main import main
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.pricing_models import HOURS_PER_MONTH
from tests.commitments.aws_commitments_server import AwsCommitmentsApi
from tests.helpers import ROOT
from tests.runs.azure_arm_server import ArmApi
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.stack_files import (
    AZURE_REGION,
    AZURE_SUBSCRIPTION,
    ENVIRONMENT,
    GCP_REGION,
    part,
    workload,
    write_stack_config,
)

AWS_REGION = "us-west-2"


def reserved(cloud: str, component: str, term: str, instances: int = 2) -> dict[str, Any]:
    return workload(
        f"{cloud}-serving", cloud, [part(component, instances, "fixed", term)], kind="inference"
    )


def commitments(config: Path, *args: str) -> Result:
    where = ["--program", str(ROOT), "--config", str(config), "--env", ENVIRONMENT]
    return CliRunner().invoke(main, ["commitments", *where, *args])


def on_demand(cloud: str, instance_type: str, region: str, pricing: str = "on_demand") -> float:
    rate = shipped_rate_card().rate(cloud, instance_type, region, pricing)  # type: ignore[arg-type]
    assert rate is not None
    return rate.hourly


def ri(instance_type: str, count: int, *, years: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "reservedInstancesId": f"ri-{instance_type}-{count}",
        "instanceType": instance_type,
        "instanceCount": count,
        "duration": years * 365 * 24 * 3600,
        "start": "2026-01-01T00:00:00.000Z",
        "end": f"{2026 + years}-01-01T00:00:00.000Z",
        "state": "active",
        "scope": "Region",
        **extra,
    }


# --- AWS -------------------------------------------------------------------------------------


def test_aws_reserved_instances_and_a_savings_plan_pay_for_a_reservation(
    aws: AwsCommitmentsApi, tmp_path: Path
) -> None:
    config = write_stack_config(tmp_path, [reserved("aws", "aws:CapacityPool", "reserved_1y")])
    one_year = on_demand("aws", "g6.12xlarge", AWS_REGION, "reserved_1y")
    aws.state.reserved_instances[AWS_REGION] = [
        ri("g6.12xlarge", 1),
        ri("p5.48xlarge", 4),  # another type: pays for nothing here
        {**ri("g6.12xlarge", 5), "reservedInstancesId": "ri-retired", "state": "retired"},
    ]
    aws.state.savings_plans = [
        # SageMaker's pays for no reservation; the instance plan, on the second page, does.
        _plan("sp-sagemaker", "SageMaker", 100.0),
        _plan("sp-g6", "EC2Instance", one_year * 1.5, family="g6", region=AWS_REGION),
    ]
    output = tmp_path / "held.json"
    found = commitments(config, "--format", "json", "--output", str(output))
    assert found.exit_code == 0, found.output
    report = json.loads(found.output)
    (serving,) = report["parts"]
    assert serving["covered_instances"] == 2
    assert serving["commitments"] == ["ri-g6.12xlarge-1", "sp-g6"]
    assert serving["monthly_usd"] == pytest.approx(2 * one_year * HOURS_PER_MONTH, abs=0.01)
    assert serving["saving_to_buy_usd"] == 0
    assert report["all_covered"] is True
    # The file --commitments reads: the commitments that pay for this stack, nothing else.
    held = read_commitments_file(output)
    assert sorted(h.id for h in held) == ["ri-g6.12xlarge-1", "sp-g6"]
    # Both pages of Savings Plans were read, active ones asked for.
    plan_calls = [r for r in aws.received if r.path == "/DescribeSavingsPlans"]
    assert len(plan_calls) == 2 and plan_calls[0].body["states"] == ["active"]


def test_aws_without_a_commitment_says_what_buying_one_saves_and_exits_1(
    aws: AwsCommitmentsApi, tmp_path: Path
) -> None:
    config = write_stack_config(tmp_path, [reserved("aws", "aws:CapacityPool", "reserved_1y")])
    # Only an expired one, and one for another region.
    aws.state.reserved_instances[AWS_REGION] = [
        {**ri("g6.12xlarge", 2), "end": "2025-01-01T00:00:00.000Z"}
    ]
    aws.state.reserved_instances["us-east-1"] = [ri("g6.12xlarge", 2)]
    found = commitments(config, "--format", "json")
    assert found.exit_code == 1, found.output
    (serving,) = json.loads(found.output)["parts"]
    od = on_demand("aws", "g6.12xlarge", AWS_REGION)
    committed = on_demand("aws", "g6.12xlarge", AWS_REGION, "reserved_1y")
    assert serving["covered_instances"] == 0 and serving["commitments"] == []
    assert serving["monthly_usd"] == pytest.approx(2 * od * HOURS_PER_MONTH, abs=0.01)
    assert serving["saving_to_buy_usd"] == pytest.approx(
        2 * (od - committed) * HOURS_PER_MONTH, abs=0.01
    )
    table = commitments(config)
    assert table.exit_code == 1 and "0 of 2" in table.output


def test_aws_denied_is_named_and_fails(aws: AwsCommitmentsApi, tmp_path: Path) -> None:
    config = write_stack_config(tmp_path, [reserved("aws", "aws:CapacityPool", "reserved_1y")])
    aws.state.denied.add("ec2:DescribeReservedInstances")
    found = commitments(config)
    assert found.exit_code == 1
    assert "permission denied: ec2:DescribeReservedInstances on us-west-2" in found.output


def _plan(ident: str, kind: str, hourly: float, **extra: Any) -> dict[str, Any]:
    return {
        "savingsPlanId": ident,
        "savingsPlanType": kind,
        "commitment": f"{hourly:.6f}",
        "termDurationInSeconds": 365 * 24 * 3600,
        "start": "2026-01-01T00:00:00Z",
        "end": "2027-01-01T00:00:00Z",
        "state": "active",
        "region": extra.get("region", ""),
        "ec2InstanceFamily": extra.get("family", ""),
    }


# --- GCP -------------------------------------------------------------------------------------


def cud(name: str, *, gpus: int, vcpus: int, memory_gib: int, plan: str) -> dict[str, Any]:
    return {
        "name": name,
        "id": "1",
        "status": "ACTIVE",
        "plan": plan,
        "type": "ACCELERATOR_OPTIMIZED_A3",  # a3-highgpu's series
        "startTimestamp": "2026-01-01T00:00:00.000-08:00",
        "endTimestamp": "2029-01-01T00:00:00.000-08:00",
        "resources": [
            {"type": "ACCELERATOR", "amount": str(gpus), "acceleratorType": "nvidia-h100-80gb"},
            {"type": "VCPU", "amount": str(vcpus)},
            {"type": "MEMORY", "amount": str(memory_gib * 1024)},
        ],
    }


def test_gcp_committed_use_discounts_pay_for_whole_machines_only(
    compute: ComputeApi, tmp_path: Path
) -> None:
    """a3-highgpu-8g: 8 H100, 208 vCPUs, 1,872 GiB. A commitment that lacks memory for a
    second machine pays for one; the next page's pays for the other."""
    config = write_stack_config(tmp_path, [reserved("gcp", "gcp:ReservationPool", "reserved_3y")])
    compute.state.commitments[GCP_REGION] = [
        cud("short", gpus=16, vcpus=416, memory_gib=1872, plan="THIRTY_SIX_MONTH"),
        {
            **cud("gone", gpus=16, vcpus=416, memory_gib=3744, plan="TWELVE_MONTH"),
            "status": "EXPIRED",
        },
        cud("rest", gpus=8, vcpus=208, memory_gib=1872, plan="TWELVE_MONTH"),
    ]
    found = commitments(config, "--format", "json")
    assert found.exit_code == 0, found.output
    (serving,) = json.loads(found.output)["parts"]
    assert serving["covered_by_term"] == {"3y": 1.0, "1y": 1.0}
    assert sorted(serving["commitments"]) == ["rest", "short"]
    three = on_demand("gcp", "a3-highgpu-8g", GCP_REGION, "reserved_3y")
    one = on_demand("gcp", "a3-highgpu-8g", GCP_REGION, "reserved_1y")
    assert serving["monthly_usd"] == pytest.approx((three + one) * HOURS_PER_MONTH, abs=0.01)
    pages = [r for r in compute.received if r.path.endswith("/commitments")]
    assert len(pages) == 2 and pages[1].query["pageToken"] == "2"


# --- Azure -----------------------------------------------------------------------------------


def azure_reservation(name: str, quantity: int, **props: Any) -> dict[str, Any]:
    return {
        "id": f"/providers/Microsoft.Capacity/reservationOrders/o-1/reservations/{name}",
        "name": name,
        "location": AZURE_REGION,
        "sku": {"name": "Standard_NC24ads_A100_v4"},
        "properties": {
            "reservedResourceType": "VirtualMachines",
            "quantity": quantity,
            "term": "P3Y",
            "provisioningState": "Succeeded",
            "appliedScopeType": "Shared",
            "effectiveDateTime": "2026-01-01T00:00:00Z",
            "expiryDateTime": "2029-01-01T00:00:00Z",
            **props,
        },
    }


def test_azure_reservations_in_scope_pay_for_a_capacity_reservation(
    arm: ArmApi, tmp_path: Path
) -> None:
    config = write_stack_config(
        tmp_path, [reserved("azure", "azure:CapacityReservationGroup", "reserved_3y", 3)]
    )
    arm.state.reservations = [
        # Scoped to another subscription: pays for nothing here.
        azure_reservation(
            "elsewhere",
            3,
            appliedScopeType="Single",
            appliedScopes=["/subscriptions/99999999-0000-0000-0000-000000000000"],
        ),
        azure_reservation("storage", 9, reservedResourceType="BlockBlob"),
        azure_reservation(
            "ours",
            2,
            appliedScopeType="Single",
            appliedScopes=[f"/subscriptions/{AZURE_SUBSCRIPTION}"],
        ),
    ]
    found = commitments(config, "--format", "json")
    assert found.exit_code == 1, found.output  # 2 of 3
    (serving,) = json.loads(found.output)["parts"]
    assert serving["covered_instances"] == 2 and serving["commitments"] == ["ours"]
    assert serving["ends"] == ["2029-01-01"]
    # The second page was followed (the reservation in scope is on it).
    assert sum(r.path.endswith("Microsoft.Capacity/reservations") for r in arm.received) == 2


def test_a_stack_without_reservations_has_nothing_to_verify(tmp_path: Path) -> None:
    config = write_stack_config(
        tmp_path, [workload("w", "aws", [part("aws:SpotFleet", 1, "fixed")])]
    )
    found = commitments(config)
    assert found.exit_code == 0
    assert "no part of this stack is reserved" in found.output
