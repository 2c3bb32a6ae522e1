"""A local server speaking the two AWS APIs ``gpufleet commitments`` reads that moto does not
implement: EC2's ``DescribeReservedInstances`` (the Query protocol, XML) and Savings Plans'
``DescribeSavingsPlans`` (REST-JSON, paged by ``nextToken``), as boto3 calls them. It answers
``UnauthorizedOperation`` / ``AccessDeniedException`` in AWS's words for denied actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from tests.runs.local_https import Reply, Request

EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/"


@dataclass
class AwsCommitmentsState:
    # Region -> its reserved instances (DescribeReservedInstances' fields, camelCase as in XML).
    reserved_instances: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    savings_plans: list[dict[str, Any]] = field(default_factory=list)
    denied: set[str] = field(default_factory=set)


class AwsCommitmentsApi:
    def __init__(self) -> None:
        self.state = AwsCommitmentsState()
        self.received: list[Request] = []

    def route(self, request: Request) -> Reply:
        if request.path == "/DescribeSavingsPlans":
            return self._savings_plans(request)
        form = request.body if isinstance(request.body, dict) else {}
        if form.get("Action") == "DescribeReservedInstances":
            return self._reserved_instances(request, form)
        return Reply(400, {"message": f"unknown call {request.method} {request.path}"})

    def _region(self, request: Request) -> str:
        # SigV4's credential scope: <key>/<date>/<region>/<service>/aws4_request.
        scope = request.headers.get("authorization", "").split("Credential=", 1)[-1]
        parts = scope.split("/")
        return parts[2] if len(parts) > 2 else ""

    def _reserved_instances(self, request: Request, form: dict[str, str]) -> Reply:
        if "ec2:DescribeReservedInstances" in self.state.denied:
            return Reply(403, _ec2_error("UnauthorizedOperation", "You are not authorized."))
        wanted = {v for k, v in form.items() if k.startswith("Filter.1.Value.")}
        items = [
            ri
            for ri in self.state.reserved_instances.get(self._region(request), [])
            if not wanted or ri.get("state") in wanted
        ]
        body = "".join(
            "<item>" + "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in ri.items()) + "</item>"
            for ri in items
        )
        return Reply(
            200,
            (
                f'<DescribeReservedInstancesResponse xmlns="{EC2_NS}">'
                "<requestId>r-1</requestId>"
                f"<reservedInstancesSet>{body}</reservedInstancesSet>"
                "</DescribeReservedInstancesResponse>"
            ).encode(),
        )

    def _savings_plans(self, request: Request) -> Reply:
        if "savingsplans:DescribeSavingsPlans" in self.state.denied:
            return Reply(
                403,
                {"message": "User is not authorized"},
                {"x-amzn-ErrorType": "AccessDeniedException"},
            )
        body = request.body if isinstance(request.body, dict) else {}
        states = set(body.get("states") or [])
        plans = [p for p in self.state.savings_plans if not states or p.get("state") in states]
        start = int(body.get("nextToken") or 0)
        page: dict[str, Any] = {"savingsPlans": plans[start : start + 1]}
        if start + 1 < len(plans):
            page["nextToken"] = str(start + 1)
        return Reply(200, page)


def _ec2_error(code: str, message: str) -> bytes:
    return (
        f"<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message></Error>"
        "</Errors><RequestID>r-1</RequestID></Response>"
    ).encode()
