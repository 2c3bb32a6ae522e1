"""A local AWS Price List API (``AWSPriceListService.GetProducts``, JSON 1.1 over HTTPS): EC2
products as the API documents them (a JSON string per product, ``product.attributes`` and
``terms.OnDemand`` price dimensions), filtered by ``regionCode`` and paged by ``NextToken``;
and the failures a refresh must survive or refuse: throttling, a broken page, an error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tests.runs.local_https import Reply, Request

TARGET = "AWSPriceListService.GetProducts"


def product(instance_type: str, region: str, usd: float | str) -> str:
    """One EC2 product of the Price List, Linux, shared tenancy, on-demand."""
    sku = f"SKU{abs(hash((instance_type, region))) % 10**12:012d}"
    return json.dumps(
        {
            "product": {
                "productFamily": "Compute Instance",
                "attributes": {
                    "instanceType": instance_type,
                    "regionCode": region,
                    "operatingSystem": "Linux",
                    "tenancy": "Shared",
                    "preInstalledSw": "NA",
                    "capacitystatus": "Used",
                },
                "sku": sku,
            },
            "serviceCode": "AmazonEC2",
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "Hrs",
                                "pricePerUnit": {"USD": str(usd)},
                                "description": f"${usd} per On Demand Linux {instance_type}",
                            }
                        },
                        "sku": sku,
                        "offerTermCode": "JRTCKXETXF",
                    }
                }
            },
            "version": "20261127000000",
            "publicationDate": "2026-11-27T00:00:00Z",
        }
    )


@dataclass
class PriceListApi:
    products: list[tuple[str, str]]  # (regionCode, product JSON)
    page_size: int = 100
    throttle_first: int = 0  # answer this many calls with ThrottlingException
    fail_after_pages: int | None = None  # then a 500 on every call
    calls: list[dict[str, object]] = field(default_factory=list)

    def route(self, request: Request) -> Reply:
        if request.headers.get("x-amz-target") != TARGET:
            return Reply(400, {"__type": "UnknownOperationException"})
        self.calls.append(request.body)
        if len(self.calls) <= self.throttle_first:
            return Reply(400, {"__type": "ThrottlingException", "message": "Rate exceeded"})
        served = len(self.calls) - self.throttle_first
        if self.fail_after_pages is not None and served > self.fail_after_pages:
            return Reply(500, {"__type": "InternalFailure", "message": "try again later"})
        body = request.body or {}
        region = next(
            (f["Value"] for f in body.get("Filters", []) if f.get("Field") == "regionCode"), None
        )
        chosen = [p for r, p in self.products if region is None or r == region]
        start = int(body.get("NextToken") or 0)
        size = int(body.get("MaxResults") or self.page_size)
        size = min(size, self.page_size)
        page = chosen[start : start + size]
        reply: dict[str, object] = {"FormatVersion": "aws_v1", "PriceList": page}
        if start + size < len(chosen):
            reply["NextToken"] = str(start + size)
        return Reply(200, reply)
