"""A local Cloud Billing Catalog API (``GET /v1/services/{service}/skus``, REST as
google-cloud-billing calls it): SKUs as the API documents them (``description``,
``category.usageType``, ``serviceRegions``, ``pricingInfo[].pricingExpression`` with
``usageUnit`` and ``tieredRates[].unitPrice`` in units and nanos), paged by ``pageToken``; the
caller's token checked as the Compute fake checks it; and the failures a refresh must survive
or refuse."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.runs.local_https import Reply, Request

SERVICE = "6F81-5844-456A"


def sku(description: str, regions: list[str], price: float, *, unit: str = "h") -> dict[str, Any]:
    """One Compute Engine SKU; descriptions that say Spot Preemptible are Preemptible usage."""
    usage = "Preemptible" if "Spot Preemptible" in description else "OnDemand"
    group = "GPU" if "GPU" in description else "RAM" if "Ram" in description else "CPU"
    units = int(price)
    return {
        "name": f"services/{SERVICE}/skus/{abs(hash((description, tuple(regions)))) % 10**8:08X}",
        "skuId": f"{abs(hash(description)) % 10**8:08X}",
        "description": description,
        "category": {
            "serviceDisplayName": "Compute Engine",
            "resourceFamily": "Compute",
            "resourceGroup": group,
            "usageType": usage,
        },
        "serviceRegions": regions,
        "pricingInfo": [
            {
                "effectiveTime": "2026-11-27T00:00:00Z",
                "pricingExpression": {
                    "usageUnit": unit,
                    "displayQuantity": 1,
                    "tieredRates": [
                        {
                            "startUsageAmount": 0,
                            "unitPrice": {
                                "currencyCode": "USD",
                                "units": str(units),
                                "nanos": round((price - units) * 1e9),
                            },
                        }
                    ],
                    "usageUnitDescription": "hour",
                    "baseUnit": "s",
                    "baseUnitConversionFactor": 3600,
                },
                "currencyConversionRate": 1,
            }
        ],
        "serviceProviderName": "Google",
    }


@dataclass
class BillingCatalogApi:
    authenticated: Callable[[str], bool]
    skus: list[dict[str, Any]] = field(default_factory=list)
    page_size: int = 50
    throttle_first: int = 0  # answer this many calls 429
    fail_after_pages: int | None = None  # then a 500 on every call
    calls: list[dict[str, str]] = field(default_factory=list)

    def route(self, request: Request) -> Reply:
        if request.path != f"/v1/services/{SERVICE}/skus":
            return _error(404, "NOT_FOUND", f"{request.path} not found")
        if not self.authenticated(request.headers.get("authorization", "")):
            return _error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        self.calls.append(request.query)
        if len(self.calls) <= self.throttle_first:
            return _error(
                429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests'"
            )
        served = len(self.calls) - self.throttle_first
        if self.fail_after_pages is not None and served > self.fail_after_pages:
            return _error(500, "INTERNAL", "Internal error encountered.")
        start = int(request.query.get("pageToken") or 0)
        page: dict[str, Any] = {"skus": self.skus[start : start + self.page_size]}
        if start + self.page_size < len(self.skus):
            page["nextPageToken"] = str(start + self.page_size)
        return Reply(200, page)


def _error(status: int, reason: str, message: str) -> Reply:
    return Reply(status, {"error": {"code": status, "message": message, "status": reason}})
