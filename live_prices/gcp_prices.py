"""GCP offers from GCP's own APIs.

- Machines: Compute Engine machine types and accelerator types of every zone
  (google-cloud-compute ``aggregated_list``), in the chosen regions. A machine type that lists
  accelerators (A2, A3, G2) carries them; GPUs N1 may attach (``planner.gcp_machines``) are
  offered on an N1 host of 8 vCPUs and 30 GiB per GPU, as the shipped catalog composes them
  (``planner.catalog_build``), in the counts GCP allows, where the zone lists the accelerator.
- Prices: the Cloud Billing Catalog (google-cloud-billing ``list_skus`` of Compute Engine,
  service ``6F81-5844-456A``). GCP bills a GPU VM in parts, each a SKU priced per region: its
  vCPUs (``<Series> ... Instance Core running in ...``), its memory per GiB (``... Instance
  Ram ...``) and its GPUs (``Nvidia ... GPU running in ...``); ``OnDemand`` SKUs give the
  on-demand price, ``Preemptible`` ones spot (``Spot Preemptible A2 Instance Core ...``,
  ``Nvidia L4 GPU attached to Spot Preemptible VMs ...``). A machine missing a
  part's on-demand price is left out, said so; missing a spot part, it has no spot price.

Credentials are Application Default Credentials; ``CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE``
and ``CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING`` (gcloud's settings) point the clients at
other endpoints. The SDKs page and retry (429, 503) by their own policies.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from gpufleet.live_prices.price_source import RefreshError, SourceResult, read_at, shape_error
from gpufleet.live_prices.refresh import RefreshRequest
from gpufleet.planner.catalog import Offer
from gpufleet.planner.catalog_build import N1_MEMORY_GIB_PER_VCPU, N1_VCPUS_PER_GPU
from gpufleet.planner.gcp_machines import GPU_OF_ACCELERATOR, N1_VCPU_LIMITS
from gpufleet.planner.gpus import GPUS
from gpufleet.runs.cloud_error import CloudError
from gpufleet.runs.gcp_access import endpoint_options, gcp_access

with warnings.catch_warnings():
    # google.api_core warns on import that Python 3.11 support ends in 2027.
    warnings.simplefilter("ignore", FutureWarning)
    from google.api_core import exceptions as api_exceptions
    from google.api_core.retry import Retry, if_exception_type
    from google.auth import exceptions as auth_exceptions
    from google.cloud import billing_v1, compute_v1

COMPUTE_ENGINE_SERVICE = "services/6F81-5844-456A"
BILLING_ENDPOINT_OVERRIDE = "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING"
SOURCE = "gcp:cloudbilling.skus+compute.machineTypes"
# The Billing Catalog's default retry leaves 429 out; a refresh pages through thousands of SKUs.
_RETRY = Retry(
    predicate=if_exception_type(api_exceptions.TooManyRequests, api_exceptions.ServiceUnavailable),
    initial=0.2,
    maximum=10.0,
    timeout=60.0,
)
# "Spot Preemptible A2 Instance Core running in Americas" (a VM's spot cores and memory) and
# "Nvidia L4 GPU attached to Spot Preemptible VMs running in Virginia" (its spot GPUs).
_PART = re.compile(
    r"^(?:Spot Preemptible )?(?P<what>.+?)(?: attached to Spot Preemptible VMs)? running in "
)
_USAGE = {"OnDemand": 0, "Preemptible": 1}


@contextmanager
def _calling(call: str) -> Iterator[None]:
    try:
        yield
    except CloudError as exc:
        raise RefreshError([str(exc)]) from None
    except auth_exceptions.DefaultCredentialsError:
        raise RefreshError([f"gcp: {call}: no credentials found"]) from None
    except api_exceptions.GoogleAPICallError as exc:
        raise RefreshError([f"gcp: {call}: {exc.code}: {exc.message}"]) from None
    except api_exceptions.RetryError as exc:
        raise RefreshError([f"gcp: {call}: still refused after retries: {exc.cause}"]) from None
    except auth_exceptions.GoogleAuthError as exc:
        raise RefreshError([f"gcp: {call}: credentials rejected: {exc}"]) from None


_shape_error = partial(shape_error, "gcp")


def gpu_token(name: str) -> frozenset[str]:
    """The words that name one GPU SKU, however spelled: ``nvidia-h100-mega-80gb`` (the
    Compute API) and ``Nvidia H100 80GB Mega GPU`` (the Billing Catalog) alike."""
    words = re.split(r"[\s\-]+", name.lower())
    return frozenset(w for w in words if w and w not in ("nvidia", "tesla", "gpu"))


def gpu_of_accelerator(accelerator: str) -> str | None:
    """The vocabulary's GPU for a Compute accelerator type (``planner.gcp_machines``: a new
    one is added there); None for one it does not list."""
    return GPU_OF_ACCELERATOR.get(accelerator)


def read_gcp(request: RefreshRequest) -> SourceResult:
    project = request.gcp_project
    if not project:
        raise RefreshError(
            [
                "gcp: name the project whose Compute API lists machine types: --gcp-project "
                "(or GOOGLE_CLOUD_PROJECT)"
            ]
        )
    with _calling("credentials"):
        access = gcp_access(project)
        billing_options = endpoint_options(
            BILLING_ENDPOINT_OVERRIDE, "https://cloudbilling.googleapis.com/"
        )
    wanted = set(request.regions)
    machines, accelerators = _machines(access, wanted)
    prices, rows = _prices(access, billing_options)
    as_of = read_at(request.now)
    offers: list[Offer] = []
    skipped: list[str] = []

    def add(zone: str, name: str, accelerator: str, gpus: int, vcpus: float, memory: float) -> None:
        """The offer of ``name`` in ``zone``, priced from its parts' SKUs."""
        gpu = gpu_of_accelerator(accelerator)
        if gpu is None:
            skipped.append(
                f"gcp {zone} {name}: accelerator {accelerator!r} is not one gpufleet knows"
            )
            return
        region = zone.rsplit("-", 1)[0]
        series = name.split("-", 1)[0].upper()
        parts: list[tuple[tuple[str, Any], float]] = [
            (("core", series), vcpus),
            (("ram", series), memory),
            (("gpu", gpu_token(accelerator)), float(gpus)),
        ]
        on_demand, spot = (_priced(prices, parts, usage, region) for usage in (0, 1))
        if on_demand is None:
            skipped.append(f"gcp {zone} {name}: a part has no on-demand price in {region}")
            return
        offers.append(
            Offer(
                "gcp",
                region,
                zone,
                name,
                gpu,
                gpus,
                GPUS[gpu].memory_gib,
                vcpus,
                memory,
                on_demand,
                spot,
                SOURCE,
                as_of,
            )
        )

    for zone, name, accelerator, count, vcpus, memory in machines:
        add(zone, name, accelerator, count, vcpus, memory)
    for zone, accelerator, most in accelerators:
        gpu = gpu_of_accelerator(accelerator)
        for count, vcpu_limit in sorted(N1_VCPU_LIMITS.get(gpu or "", {}).items()):
            vcpus = N1_VCPUS_PER_GPU * count
            if count <= most and vcpus <= vcpu_limit:
                memory = vcpus * N1_MEMORY_GIB_PER_VCPU
                add(zone, f"n1-standard-{vcpus}", accelerator, count, float(vcpus), memory)
    return SourceResult("gcp", offers, rows, sorted(set(skipped)))


def _priced(
    prices: dict[PriceKey, float],
    parts: list[tuple[tuple[str, Any], float]],
    usage: int,
    region: str,
) -> float | None:
    """Parts x their unit prices, summed; None when a part has no price."""
    total = 0.0
    for key, amount in parts:
        price = prices.get((*key, usage, region))
        if price is None:
            return None
        total += price * amount
    return round(total, 6)


Machine = tuple[str, str, str, int, float, float]  # zone, type, accelerator, GPUs, vCPUs, GiB


def _zone_items(pages: Any, key: str, wanted: set[str], call: str) -> Iterator[tuple[str, Any]]:
    """(zone, item) of an aggregated list, zones of the ``wanted`` regions only."""
    for scope, scoped in pages:
        zone = scope.rsplit("/", 1)[-1]
        if zone.rsplit("-", 1)[0] not in wanted:
            continue
        for item in getattr(scoped, key, None) or []:
            yield zone, item


def _machines(access: Any, wanted: set[str]) -> tuple[list[Machine], list[tuple[str, str, int]]]:
    """Machine types that carry accelerators, and accelerator types (zone, name, most a VM
    takes), in the zones of the ``wanted`` regions."""
    machines: list[Machine] = []
    call = "compute.machineTypes.aggregatedList"
    with _calling(call):
        pages = access.client(compute_v1.MachineTypesClient).aggregated_list(
            request={"project": access.project}
        )
        for zone, item in _zone_items(pages, "machine_types", wanted, call):
            listed = list(item.accelerators)
            if not listed:
                continue
            first = listed[0]
            count = sum(a.guest_accelerator_count for a in listed)
            if not item.name or item.guest_cpus <= 0 or item.memory_mb <= 0 or count <= 0:
                raise _shape_error(call, f"{zone} {item.name!r}: no size or accelerators")
            machines.append(
                (
                    zone,
                    item.name,
                    first.guest_accelerator_type,
                    count,
                    float(item.guest_cpus),
                    item.memory_mb / 1024,
                )
            )
    accelerators: list[tuple[str, str, int]] = []
    call = "compute.acceleratorTypes.aggregatedList"
    with _calling(call):
        pages = access.client(compute_v1.AcceleratorTypesClient).aggregated_list(
            request={"project": access.project}
        )
        for zone, item in _zone_items(pages, "accelerator_types", wanted, call):
            accelerators.append((zone, item.name, item.maximum_cards_per_instance))
    return sorted(machines), sorted(accelerators)


PriceKey = tuple[str, Any, int, str]  # ("core"|"ram", series) or ("gpu", token); usage; region


def _prices(access: Any, options: Any) -> tuple[dict[PriceKey, float], int]:
    """Per-unit prices of the VM parts GPU machines are billed in; and how many SKUs were read."""
    call = "cloudbilling.services.skus.list"
    prices: dict[PriceKey, float] = {}
    read = 0
    with _calling(call):
        client = billing_v1.CloudCatalogClient(
            credentials=access.credentials, client_options=options, transport="rest"
        )
        for sku in client.list_skus(parent=COMPUTE_ENGINE_SERVICE, retry=_RETRY):
            read += 1
            key = _part(sku.description)
            usage = _USAGE.get(sku.category.usage_type)
            if key is None or usage is None:
                continue
            price = _unit_price(sku, call)
            if price is None:
                continue
            for region in sku.service_regions:
                prices[(*key, usage, region)] = price
    return prices, read


def _part(description: str) -> tuple[str, Any] | None:
    """Which part of a VM a SKU prices: ("core", series), ("ram", series), ("gpu", token)."""
    found = _PART.match(description)
    if found is None:
        return None
    what = found["what"]
    if what.endswith(" GPU") and what.startswith("Nvidia "):
        return "gpu", gpu_token(what)
    series = what.split(" ", 1)[0]
    if what.endswith(" Instance Core") and "Custom" not in what:
        return "core", series
    if what.endswith(" Instance Ram") and "Custom" not in what:
        return "ram", series
    return None


def _unit_price(sku: Any, call: str) -> float | None:
    """The SKU's price per unit (an hour; a GiB-hour for memory), from its first tier."""
    info = list(sku.pricing_info)
    if not info:
        return None
    expression = info[-1].pricing_expression
    unit = expression.usage_unit
    if unit not in ("h", "GiBy.h"):
        raise _shape_error(call, f"{sku.description!r}: usage unit {unit!r}")
    rates = list(expression.tiered_rates)
    if not rates:
        return None
    money = rates[0].unit_price
    price = float(money.units) + money.nanos / 1e9
    return price if price > 0 else None
