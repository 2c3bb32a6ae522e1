"""EC2's vCPU quotas per instance class in a region, through Service Quotas (boto3).

``list_service_quotas`` of ``ec2`` (every page) gives the account's applied values; a quota it
leaves out is at its default (``list_aws_default_service_quotas``). Only the running-instance
and spot-request vCPU quotas are kept (``planner.quotas.aws_quota_families`` reads their
names). Service Quotas gives limits, not use (that is in CloudWatch): what else runs in the
account counts against them too, which the report says.
"""

from __future__ import annotations

from collections.abc import Iterable

import boto3.session

from gpufleet.planner.quotas import Quota, aws_quota_families
from gpufleet.runs.aws_access import RETRIES, aws_errors


def aws_quotas(regions: Iterable[str]) -> list[Quota]:
    """The EC2 vCPU quotas of ``regions``; CloudError when they cannot be read."""
    session = boto3.session.Session()
    found: list[Quota] = []
    for region in sorted(set(regions)):
        client = session.client("service-quotas", region_name=region, config=RETRIES)
        listed: dict[str, dict] = {}
        for operation in ("list_aws_default_service_quotas", "list_service_quotas"):
            with aws_errors(f"servicequotas:{_action(operation)}", f"ec2 quotas in {region}"):
                for page in client.get_paginator(operation).paginate(ServiceCode="ec2"):
                    for quota in page.get("Quotas", []):
                        if isinstance(quota, dict) and isinstance(quota.get("QuotaCode"), str):
                            listed[quota["QuotaCode"]] = quota  # applied values win
        for code, quota in sorted(listed.items()):
            covered = aws_quota_families(str(quota.get("QuotaName", "")))
            value = quota.get("Value")
            if covered is None or not isinstance(value, int | float) or value < 0:
                continue
            market, families = covered
            found.append(
                Quota(
                    "aws",
                    region,
                    str(quota["QuotaName"]),
                    market,
                    "vcpus",
                    families,
                    float(value),
                    None,
                    code,
                )
            )
    return found


def _action(operation: str) -> str:
    return "".join(word.title() for word in operation.split("_"))
