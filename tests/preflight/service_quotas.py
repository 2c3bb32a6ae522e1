"""A local AWS Service Quotas API (JSON 1.1 over HTTPS, ``ServiceQuotasV20190624``):
``ListServiceQuotas`` (the account's applied values) and ``ListAWSDefaultServiceQuotas`` of a
service, paged by ``NextToken``, as the API documents them (moto has only VPC's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.runs.local_https import Reply, Request

PREFIX = "ServiceQuotasV20190624."


def quota(code: str, name: str, value: float) -> dict[str, Any]:
    return {
        "ServiceCode": "ec2",
        "ServiceName": "Amazon Elastic Compute Cloud (Amazon EC2)",
        "QuotaArn": f"arn:aws:servicequotas:us-west-2:123456789012:ec2/{code}",
        "QuotaCode": code,
        "QuotaName": name,
        "Value": value,
        "Unit": "None",
        "Adjustable": True,
        "GlobalQuota": False,
    }


# EC2's vCPU quotas, named as AWS names them, at their defaults.
DEFAULTS = [
    quota("L-1216C47A", "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances", 5),
    quota("L-417A185B", "Running On-Demand P instances", 0),
    quota("L-DB2E81BA", "Running On-Demand G and VT instances", 0),
    quota("L-34B43A08", "All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests", 5),
    quota("L-7212CCBC", "All P4, P3 and P2 Spot Instance Requests", 0),
    quota("L-C4BD4855", "All P5 Spot Instance Requests", 0),
    quota("L-3819A6DF", "All G and VT Spot Instance Requests", 0),
    quota("L-0263D0A3", "Number of EIPs - VPC EIPs", 5),
]


@dataclass
class ServiceQuotasApi:
    applied: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # region -> quotas
    page_size: int = 2
    calls: list[tuple[str, str]] = field(default_factory=list)

    def route(self, request: Request) -> Reply:
        target = request.headers.get("x-amz-target", "")
        body = request.body or {}
        # The signing region is in the credential scope of the Authorization header.
        region = request.headers.get("authorization", "").split("/")[2]
        self.calls.append((target, region))
        if body.get("ServiceCode") != "ec2":
            return Reply(400, {"__type": "NoSuchResourceException", "Message": "no service"})
        if target == f"{PREFIX}ListServiceQuotas":
            listed = self.applied.get(region, [])
        elif target == f"{PREFIX}ListAWSDefaultServiceQuotas":
            listed = DEFAULTS
        else:
            return Reply(400, {"__type": "UnknownOperationException"})
        start = int(body.get("NextToken") or 0)
        page: dict[str, Any] = {"Quotas": listed[start : start + self.page_size]}
        if start + self.page_size < len(listed):
            page["NextToken"] = str(start + self.page_size)
        return Reply(200, page)
