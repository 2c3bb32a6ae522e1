"""AWS offers from AWS's own APIs, through boto3.

- On-demand: the Price List API (``pricing.get_products``, served from us-east-1), EC2 products
  of each region: Linux, shared tenancy, no pre-installed software, capacity status "Used" (the
  instance's own price, not a reservation's).
- Machines: ``ec2.describe_instance_types`` in each region; a GPU machine is one with
  ``GpuInfo`` (or ``NeuronInfo``: Inferentia, Trainium), its GPU named by the vocabulary from
  its chip name and memory (``planner.gpus``).
- Zones: ``ec2.describe_instance_type_offerings`` by AZ id, the catalog's zone names (the same
  physical zone in every account; ``describe_availability_zones`` maps names to ids).
- Spot: ``ec2.describe_spot_price_history`` from now: each zone's latest Linux price.

Credentials and endpoints come from boto3's usual chains (``AWS_PROFILE``, keys, SSO, a role;
``AWS_ENDPOINT_URL``). Throttling (429, 503, ``Throttling``) is retried by botocore's standard
retry mode; pagination by its paginators. An answer that is not the documented shape is a
``RefreshError`` naming the call: nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Any

import boto3.session
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from gpufleet.live_prices.price_source import RefreshError, SourceResult, read_at, shape_error
from gpufleet.live_prices.refresh import RefreshRequest
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpus import GPUS, gpu_by_name_and_memory
from gpufleet.runs.aws_access import NO_CREDENTIALS, RETRIES

# The Price List API answers in us-east-1 (and two others) for every region.
PRICING_REGION = "us-east-1"
SOURCE = "aws:pricing.get_products+ec2.describe_spot_price_history"
_PRODUCT_FILTERS = {
    "productFamily": "Compute Instance",
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
}
# describe_spot_price_history takes at most this many instance types a call.
_SPOT_TYPES_PER_CALL = 100
_LINUX = ("Linux/UNIX", "Linux/UNIX (Amazon VPC)")


@contextmanager
def _calling(call: str) -> Iterator[None]:
    """SDK failures as one line naming the call."""
    try:
        yield
    except NoCredentialsError:
        raise RefreshError([f"aws: {NO_CREDENTIALS}"]) from None
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", "error"), error.get("Message", "")
        raise RefreshError([f"aws: {call}: {code}: {message}".rstrip(": ")]) from None
    except BotoCoreError as exc:
        raise RefreshError([f"aws: {call}: {exc}"]) from None


_shape_error = partial(shape_error, "aws")


def read_aws(request: RefreshRequest) -> SourceResult:
    session = boto3.session.Session()
    pricing = session.client("pricing", region_name=PRICING_REGION, config=RETRIES)
    offers: list[Offer] = []
    skipped: list[str] = []
    rows = 0
    as_of = read_at(request.now)
    for region in request.regions:
        ec2 = session.client("ec2", region_name=region, config=RETRIES)
        machines, unknown = _gpu_machines(ec2)
        skipped += [f"aws {region} {name}" for name in unknown]
        if not machines:
            continue
        on_demand, read = _on_demand(pricing, region, set(machines))
        rows += read
        zone_ids = _zone_ids(ec2)
        spot = _spot(ec2, sorted(machines), zone_ids, request.now)
        for itype, zone in _offerings(ec2, set(machines)):
            price = on_demand.get(itype)
            if price is None:
                skipped.append(f"aws {region} {itype}: no on-demand price in the Price List")
                continue
            gpu, count, gpu_memory, vcpus, memory = machines[itype]
            offers.append(
                Offer(
                    "aws",
                    region,
                    zone,
                    itype,
                    gpu,
                    count,
                    gpu_memory,
                    vcpus,
                    memory,
                    price,
                    spot.get((itype, zone)),
                    SOURCE,
                    as_of,
                )
            )
    return SourceResult("aws", offers, rows, sorted(set(skipped)))


Machine = tuple[str, int, float, float, float]  # GPU, count, GiB per GPU, vCPUs, GiB


def _gpu_machines(ec2: Any) -> tuple[dict[str, Machine], list[str]]:
    """Instance type -> its GPUs and size; and the accelerated types whose chip gpufleet does
    not know (each with why)."""
    call = "ec2.describe_instance_types"
    machines: dict[str, Machine] = {}
    unknown: list[str] = []
    with _calling(call):
        pages = list(ec2.get_paginator("describe_instance_types").paginate())
    for page in pages:
        for item in _list(page, "InstanceTypes", call):
            itype = item.get("InstanceType") if isinstance(item, dict) else None
            if not isinstance(itype, str):
                raise _shape_error(call, "an instance type without InstanceType")
            accelerators = _accelerators(item)
            if accelerators is None:
                continue
            name, count, mib = accelerators
            gpu = gpu_by_name_and_memory(name, mib / 1024 if mib else None)
            if gpu is None:
                unknown.append(f"{itype}: accelerator {name!r} is not one gpufleet knows")
                continue
            vcpus = _number(item.get("VCpuInfo", {}).get("DefaultVCpus"), call, itype)
            memory = _number(item.get("MemoryInfo", {}).get("SizeInMiB"), call, itype) / 1024
            # Neuron devices may not say their memory: the vocabulary's figure.
            per_gpu = mib / 1024 if mib else GPUS[gpu].memory_gib
            machines[itype] = (gpu, count, per_gpu, vcpus, memory)
    return machines, unknown


def _accelerators(item: dict[str, Any]) -> tuple[str, int, float] | None:
    """(chip name, count, MiB per chip) of a GPU or Neuron machine; None for others."""
    for info, devices, count_key in (
        ("GpuInfo", "Gpus", "Count"),
        ("NeuronInfo", "NeuronDevices", "Count"),
    ):
        block = item.get(info)
        if not isinstance(block, dict):
            continue
        listed = block.get(devices)
        if not isinstance(listed, list) or not listed or not isinstance(listed[0], dict):
            continue
        first = listed[0]
        name, count = first.get("Name"), first.get(count_key)
        memory = first.get("MemoryInfo", {}).get("SizeInMiB")
        if isinstance(name, str) and isinstance(count, int) and count > 0:
            return name, sum(d.get(count_key, 0) for d in listed), float(memory or 0)
    return None


def _number(value: Any, call: str, itype: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    raise _shape_error(call, f"{itype} has no positive size ({value!r})")


def _list(page: Any, key: str, call: str) -> list[Any]:
    found = page.get(key) if isinstance(page, dict) else None
    if not isinstance(found, list):
        raise _shape_error(call, f"no {key} list")
    return found


def _on_demand(pricing: Any, region: str, wanted: set[str]) -> tuple[dict[str, float], int]:
    """Instance type -> on-demand $/hour in ``region``; and how many products were read."""
    call = "pricing.get_products"
    filters = [{"Type": "TERM_MATCH", "Field": "regionCode", "Value": region}] + [
        {"Type": "TERM_MATCH", "Field": field, "Value": value}
        for field, value in _PRODUCT_FILTERS.items()
    ]
    prices: dict[str, float] = {}
    read = 0
    with _calling(call):
        pages = pricing.get_paginator("get_products").paginate(
            ServiceCode="AmazonEC2", Filters=filters, FormatVersion="aws_v1"
        )
        for page in pages:
            for entry in _list(page, "PriceList", call):
                read += 1
                itype, price = _product_price(entry, call)
                if itype in wanted and price is not None:
                    prices[itype] = price
    return prices, read


def _product_price(entry: Any, call: str) -> tuple[str, float | None]:
    """(instance type, on-demand $/hour) of one Price List product (a JSON string)."""
    try:
        product = json.loads(entry) if isinstance(entry, str) else entry
        itype = product["product"]["attributes"]["instanceType"]
        terms = product["terms"].get("OnDemand") or {}
    except (ValueError, KeyError, TypeError, AttributeError):
        raise _shape_error(call, "a product without product.attributes and terms") from None
    if not isinstance(itype, str):
        raise _shape_error(call, "an instanceType that is not text")
    for term in terms.values() if isinstance(terms, dict) else ():
        dimensions = term.get("priceDimensions") if isinstance(term, dict) else None
        for dimension in dimensions.values() if isinstance(dimensions, dict) else ():
            if not isinstance(dimension, dict) or dimension.get("unit") not in ("Hrs", "Hours"):
                continue
            per_unit = dimension.get("pricePerUnit")
            usd = per_unit.get("USD") if isinstance(per_unit, dict) else None
            try:
                price = float(usd if isinstance(usd, str | int | float) else "none")
            except ValueError:
                raise _shape_error(call, f"{itype}: price {usd!r} is not a number") from None
            return itype, price if price > 0 else None
    return itype, None


def _zone_ids(ec2: Any) -> dict[str, str]:
    call = "ec2.describe_availability_zones"
    with _calling(call):
        zones = _list(
            ec2.describe_availability_zones(AllAvailabilityZones=True), "AvailabilityZones", call
        )
    found = {z.get("ZoneName"): z.get("ZoneId") for z in zones if isinstance(z, dict)}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def _offerings(ec2: Any, machines: set[str]) -> list[tuple[str, str]]:
    """(instance type, AZ id) of every GPU machine offered in the region's zones."""
    call = "ec2.describe_instance_type_offerings"
    found: set[tuple[str, str]] = set()
    with _calling(call):
        pages = list(
            ec2.get_paginator("describe_instance_type_offerings").paginate(
                LocationType="availability-zone-id"
            )
        )
    for page in pages:
        for item in _list(page, "InstanceTypeOfferings", call):
            itype = item.get("InstanceType") if isinstance(item, dict) else None
            zone = item.get("Location") if isinstance(item, dict) else None
            if not isinstance(itype, str) or not isinstance(zone, str):
                raise _shape_error(call, "an offering without InstanceType and Location")
            if itype in machines:
                found.add((itype, zone))
    return sorted(found)


def _spot(
    ec2: Any, machines: list[str], zone_ids: dict[str, str], now: datetime
) -> dict[tuple[str, str], float]:
    """(instance type, AZ id) -> the latest Linux spot price."""
    call = "ec2.describe_spot_price_history"
    latest: dict[tuple[str, str], tuple[str, float]] = {}
    for start in range(0, len(machines), _SPOT_TYPES_PER_CALL):
        chunk = machines[start : start + _SPOT_TYPES_PER_CALL]
        with _calling(call):
            pages = list(
                ec2.get_paginator("describe_spot_price_history").paginate(
                    InstanceTypes=chunk, ProductDescriptions=["Linux/UNIX"], StartTime=now
                )
            )
        for page in pages:
            for item in _list(page, "SpotPriceHistory", call):
                if not isinstance(item, dict) or item.get("ProductDescription") not in _LINUX:
                    continue
                itype, zone = item.get("InstanceType"), item.get("AvailabilityZone")
                zone_id = zone_ids.get(zone) if isinstance(zone, str) else None
                try:
                    price = float(item.get("SpotPrice"))  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    raise _shape_error(call, f"spot price {item.get('SpotPrice')!r}") from None
                if not isinstance(itype, str) or zone_id is None:
                    continue
                stamp = str(item.get("Timestamp", ""))
                key = (itype, zone_id)
                if key not in latest or stamp > latest[key][0]:
                    latest[key] = (stamp, price)
    return {key: price for key, (_, price) in latest.items() if price > 0}
