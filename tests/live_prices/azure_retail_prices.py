"""A local Azure Retail Prices API (``GET /api/retail/prices``, public, no credentials): meters
as the API documents them (``armSkuName``, ``skuName``, ``productName``, ``retailPrice``,
``unitOfMeasure``, ``type``), filtered by the ``armRegionName`` of ``$filter``, paged by
``NextPageLink``; and the failures a refresh must survive or refuse."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tests.runs.local_https import Reply, Request


def meter(
    size: str, region: str, price: float | str, *, spot: bool = False, windows: bool = False
) -> dict[str, Any]:
    """One virtual machine meter of ``size`` (``Standard_NC24ads_A100_v4``)."""
    short = size.removeprefix("Standard_").replace("_", " ")
    series = short.split(" ")[0]
    return {
        "currencyCode": "USD",
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": region,
        "effectiveStartDate": "2026-10-01T00:00:00Z",
        "meterName": f"{short}{' Spot' if spot else ''}",
        "productName": f"Virtual Machines {series} Series{' Windows' if windows else ''}",
        "skuName": f"{short}{' Spot' if spot else ''}",
        "serviceName": "Virtual Machines",
        "armSkuName": size,
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "isPrimaryMeterRegion": True,
    }


@dataclass
class RetailPricesApi:
    items: list[dict[str, Any]]
    page_size: int = 100
    throttle_first: int = 0  # answer this many calls 429, Retry-After 0
    fail_after_pages: int | None = None  # then a 500 on every call
    base: str = ""  # the server's URL, once it listens
    calls: list[dict[str, str]] = field(default_factory=list)

    def route(self, request: Request) -> Reply:
        if request.path != "/api/retail/prices" or request.method != "GET":
            return Reply(404, {"Error": {"Code": "NotFound"}})
        if "authorization" in request.headers:
            return Reply(400, {"Error": {"Message": "the public API takes no credentials"}})
        self.calls.append(request.query)
        if len(self.calls) <= self.throttle_first:
            return Reply(429, {"Error": {"Message": "Too many requests"}}, {"Retry-After": "0"})
        served = len(self.calls) - self.throttle_first
        if self.fail_after_pages is not None and served > self.fail_after_pages:
            return Reply(500, {"Error": {"Message": "internal error"}})
        query = request.query.get("$filter", "")
        found = re.search(r"armRegionName eq '([^']*)'", query)
        chosen = [i for i in self.items if found is None or i["armRegionName"] == found.group(1)]
        skip = int(request.query.get("$skip") or 0)
        page = chosen[skip : skip + self.page_size]
        body: dict[str, Any] = {
            "BillingCurrency": "USD",
            "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail",
            "Items": page,
            "NextPageLink": None,
            "Count": len(page),
        }
        if skip + self.page_size < len(chosen):
            body["NextPageLink"] = (
                f"{self.base}/api/retail/prices?$filter={quote(query, safe='')}"
                f"&$skip={skip + self.page_size}"
            )
        return Reply(200, body)
