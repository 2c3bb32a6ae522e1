"""EC2 reserved instances and Savings Plans of an AWS account, as held commitments.

Reserved instances are read per region (``ec2:DescribeReservedInstances``, active ones);
Savings Plans once for the account (``savingsplans:DescribeSavingsPlans``, active ones, every
page): an EC2 Instance Savings Plan is for one family in one region, a Compute Savings Plan for
any; SageMaker Savings Plans pay for no reservation and are left out. Endpoints and credentials
are boto3's own (``AWS_ENDPOINT_URL_EC2``, ``AWS_ENDPOINT_URL_SAVINGSPLANS``, profiles, roles).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import boto3.session

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.pricing_models import Commitment
from gpufleet.runs.aws_access import aws_errors

_YEAR_SECONDS = 365 * 24 * 3600
# Savings Plans' API is global; its endpoint is in us-east-1.
_SAVINGS_PLANS_REGION = "us-east-1"


def aws_commitments(regions: Iterable[str]) -> list[HeldCommitment]:
    """The active reserved instances of ``regions`` and the account's active Savings Plans;
    CloudError when they cannot be read."""
    session = boto3.session.Session()
    found: list[HeldCommitment] = []
    for region in sorted(set(regions)):
        ec2 = session.client("ec2", region_name=region)
        with aws_errors("ec2:DescribeReservedInstances", region):
            reply = ec2.describe_reserved_instances(
                Filters=[{"Name": "state", "Values": ["active"]}]
            )
        found += [
            held
            for ri in reply.get("ReservedInstances", [])
            if (held := _reserved_instances(ri, region)) is not None
        ]
    plans = session.client("savingsplans", region_name=_SAVINGS_PLANS_REGION)
    token: str | None = None
    for _page in range(1000):  # a bound, not a limit anyone meets
        request: dict[str, Any] = {"states": ["active"]}
        if token:
            request["nextToken"] = token
        with aws_errors("savingsplans:DescribeSavingsPlans", "the account"):
            reply = plans.describe_savings_plans(**request)
        found += [held for plan in reply.get("savingsPlans", []) if (held := _savings_plan(plan))]
        token = reply.get("nextToken")
        if not token:
            break
    return found


def _reserved_instances(ri: dict[str, Any], region: str) -> HeldCommitment | None:
    term = _term(ri.get("Duration"))
    count = ri.get("InstanceCount")
    if term is None or not isinstance(count, int) or count <= 0 or not ri.get("InstanceType"):
        return None
    zonal = ri.get("Scope") == "Availability Zone"
    return HeldCommitment(
        cloud="aws",
        id=str(ri.get("ReservedInstancesId", "")),
        term=term,
        kind="instances",
        region=region,
        zone=ri.get("AvailabilityZone") if zonal else None,
        instance_type=str(ri["InstanceType"]),
        count=float(count),
        start=_date(ri.get("Start")),
        end=_date(ri.get("End")),
        source="ec2 reserved instances",
    )


def _savings_plan(plan: dict[str, Any]) -> HeldCommitment | None:
    kind = plan.get("savingsPlanType")
    if kind not in ("Compute", "EC2Instance"):
        return None  # a SageMaker Savings Plan pays for SageMaker use, no reservation
    term = _term(plan.get("termDurationInSeconds"))
    try:
        hourly = float(plan.get("commitment", ""))
    except ValueError:
        hourly = 0.0
    if term is None or not hourly > 0:
        return None
    instance = kind == "EC2Instance"
    return HeldCommitment(
        cloud="aws",
        id=str(plan.get("savingsPlanId", "")),
        term=term,
        kind="savings_plan",
        region=plan.get("region") or None if instance else None,
        family=plan.get("ec2InstanceFamily") or None if instance else None,
        hourly_usd=hourly,
        start=_date(plan.get("start")),
        end=_date(plan.get("end")),
        source=f"{kind} Savings Plan",
    )


def _term(seconds: object) -> Commitment | None:
    """1y or 3y from a term in seconds (AWS counts 365-day years); None for another term."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    years = round(seconds / _YEAR_SECONDS)
    return "1y" if years == 1 else "3y" if years == 3 else None


def _date(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, str) and len(value) >= 10:
        return value[:10]
    return None
