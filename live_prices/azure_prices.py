"""Azure offers from Azure's own APIs.

- Prices: the public Retail Prices API (``prices.azure.com/api/retail/prices``, no credentials),
  virtual machine meters of each region, consumption prices per hour, Linux (a product without
  "Windows"): the size's pay-as-you-go price, and its Spot meter (``... Spot``) as spot.
  Low-priority meters are left out: Azure ML's low-priority VMs are priced at the spot rate
  (``planner.pricing``). Pages follow ``NextPageLink``; 429 and 5xx are retried by azure-core's
  retry policy, honouring ``Retry-After``.
- Sizes: Compute resource SKUs (azure-mgmt-compute ``resource_skus.list``) of the region, the
  sizes the subscription may run (no ``NotAvailableForSubscription`` restriction), with their
  vCPUs, memory and GPU count. A SKU does not name its GPU model: that comes from the catalog in
  use (the snapshot's sizes, cleaned, and ``catalog-overrides/``); a size it does not have is
  left out, said so.

Azure prices per region, so an offer's zone is empty. Credentials for the SKUs are
``DefaultAzureCredential``'s (``runs.azure_access``) on ``AZURE_SUBSCRIPTION_ID``;
``GPUFLEET_AZURE_RETAIL_PRICES`` points the price reader at another endpoint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from azure.core import PipelineClient
from azure.core.exceptions import AzureError, ClientAuthenticationError, HttpResponseError
from azure.core.pipeline.policies import RetryPolicy
from azure.core.rest import HttpRequest
from azure.identity import DefaultAzureCredential
from azure.mgmt.compute import ComputeManagementClient

from gpufleet.live_prices.price_source import RefreshError, SourceResult, read_at, shape_error
from gpufleet.live_prices.refresh import RefreshRequest
from gpufleet.planner.catalog import Offer
from gpufleet.runs.azure_access import NO_CREDENTIALS, client_options

RETAIL_PRICES = "https://prices.azure.com/api/retail/prices"
RETAIL_PRICES_ENV = "GPUFLEET_AZURE_RETAIL_PRICES"
SUBSCRIPTION_ENV = "AZURE_SUBSCRIPTION_ID"
SOURCE = "azure:retail-prices+resource-skus"
# A region's VM meters run to some thousands, at most 1,000 a page; a page count past this is
# an answer that never ends.
_MAX_PAGES = 10_000


@contextmanager
def _calling(call: str) -> Iterator[None]:
    try:
        yield
    except ClientAuthenticationError:
        raise RefreshError([f"azure: {NO_CREDENTIALS}"]) from None
    except HttpResponseError as exc:
        code = exc.error.code if exc.error is not None else exc.status_code
        raise RefreshError([f"azure: {call}: {code}: {_first_line(exc)}"]) from None
    except AzureError as exc:
        raise RefreshError([f"azure: {call}: {_first_line(exc)}"]) from None


def _first_line(error: Exception) -> str:
    text = str(getattr(error, "message", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


_shape_error = partial(shape_error, "azure")


def read_azure(request: RefreshRequest) -> SourceResult:
    subscription = os.environ.get(SUBSCRIPTION_ENV)
    if not subscription:
        raise RefreshError(
            [f"azure: set {SUBSCRIPTION_ENV}: the subscription whose resource SKUs say the sizes"]
        )
    compute = ComputeManagementClient(DefaultAzureCredential(), subscription, **client_options())
    endpoint = os.environ.get(RETAIL_PRICES_ENV) or RETAIL_PRICES
    prices = PipelineClient(
        endpoint, policies=[RetryPolicy(retry_total=8, retry_backoff_factor=0.5)]
    )
    as_of = read_at(request.now)
    offers: list[Offer] = []
    skipped: list[str] = []
    rows = 0
    for region in request.regions:
        restricted: list[str] = []
        sizes = _sizes(compute, region, restricted)
        skipped += [
            f"azure {region} {name}: not available to the subscription" for name in restricted
        ]
        meters, read = _meters(prices, endpoint, region)
        rows += read
        for name, (gpus, vcpus, memory) in sorted(sizes.items()):
            shape = request.base.shape("azure", name)
            if shape is None:
                skipped.append(f"azure {region} {name}: GPU model not known (catalog-overrides/)")
                continue
            on_demand, spot = meters.get(name.lower(), (None, None))
            if on_demand is None:
                skipped.append(f"azure {region} {name}: no pay-as-you-go Linux price")
                continue
            offers.append(
                Offer(
                    "azure",
                    region,
                    "",
                    name,
                    shape.gpu_name,
                    gpus or shape.gpu_count,
                    shape.gpu_memory_gib,
                    vcpus,
                    memory,
                    on_demand,
                    spot,
                    SOURCE,
                    as_of,
                )
            )
    return SourceResult("azure", offers, rows, skipped)


def _sizes(
    compute: Any, region: str, restricted_sizes: list[str]
) -> dict[str, tuple[int | None, float, float]]:
    """GPU size name -> (GPUs, vCPUs, GiB) the subscription may run in ``region``; the sizes
    it may not are added to ``restricted_sizes``."""
    call = "Microsoft.Compute/skus"
    sizes: dict[str, tuple[int | None, float, float]] = {}
    with _calling(call):
        for sku in compute.resource_skus.list(filter=f"location eq '{region}'"):
            if getattr(sku, "resource_type", None) != "virtualMachines":
                continue
            caps = {c.name: c.value for c in getattr(sku, "capabilities", None) or []}
            gpus = _whole(caps.get("GPUs"))
            if not gpus:
                continue
            restricted = [
                r
                for r in getattr(sku, "restrictions", None) or []
                if getattr(r, "reason_code", None) == "NotAvailableForSubscription"
                and getattr(r, "type", None) == "Location"
            ]
            if restricted:
                restricted_sizes.append(str(getattr(sku, "name", "?")))
                continue
            name = getattr(sku, "name", None)
            vcpus, memory = _positive(caps.get("vCPUs")), _positive(caps.get("MemoryGB"))
            if not isinstance(name, str) or vcpus is None or memory is None:
                raise _shape_error(call, f"a GPU size without a name, vCPUs or MemoryGB ({name!r})")
            sizes[name] = (gpus, vcpus, memory)
    return sizes


def _whole(text: Any) -> int | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return int(value) if value >= 1 and value.is_integer() else None


def _positive(text: Any) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def _meters(
    client: PipelineClient, endpoint: str, region: str
) -> tuple[dict[str, tuple[float | None, float | None]], int]:
    """Size name (lower case) -> (pay-as-you-go, spot) $/hour in ``region``; and items read."""
    call = "retail prices"
    query = (
        f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' "
        "and priceType eq 'Consumption'"
    )
    request: HttpRequest | None = HttpRequest("GET", endpoint, params={"$filter": query})
    found: dict[str, list[float | None]] = {}
    read = 0
    pages = 0
    while request is not None:
        pages += 1
        if pages > _MAX_PAGES:
            raise _shape_error(call, f"more than {_MAX_PAGES:,} pages")
        with _calling(call):
            response = client.send_request(request)
            response.raise_for_status()
            try:
                page = response.json()
            except ValueError:
                raise _shape_error(call, "a page that is not JSON") from None
        items = page.get("Items") if isinstance(page, dict) else None
        if not isinstance(items, list):
            raise _shape_error(call, "a page without Items")
        for item in items:
            read += 1
            _meter(item, found, call)
        link = page.get("NextPageLink")
        request = HttpRequest("GET", link) if isinstance(link, str) and link else None
    return {k: (v[0], v[1]) for k, v in found.items()}, read


def _meter(item: Any, found: dict[str, list[float | None]], call: str) -> None:
    if not isinstance(item, dict):
        raise _shape_error(call, "an item that is not an object")
    size, sku, product = item.get("armSkuName"), item.get("skuName"), item.get("productName")
    price = item.get("retailPrice")
    if not all(isinstance(v, str) for v in (size, sku, product)):
        raise _shape_error(call, "an item without armSkuName, skuName and productName")
    if isinstance(price, bool) or not isinstance(price, int | float):
        raise _shape_error(call, f"{size}: retailPrice {price!r} is not a number")
    assert isinstance(size, str) and isinstance(sku, str) and isinstance(product, str)
    if (
        item.get("type") != "Consumption"
        or item.get("unitOfMeasure") != "1 Hour"
        or "Windows" in product
        or "Low Priority" in sku
        or not size
    ):
        return
    slot = 1 if sku.endswith(" Spot") else 0
    entry = found.setdefault(size.lower(), [None, None])
    # Several meters of one size (a newer effective date): the latest listed with a price wins;
    # a zero price (a meter not sold) never replaces one.
    if price > 0:
        entry[slot] = float(price)
