"""Commitments a stack buys itself: GCP committed-use discounts declared as
``gcp.compute.RegionCommitment`` (a ReservationPool's ``purchase_commitment``, or by hand).

``pulumi up`` buys a declared commitment, and it bills from then on for its whole term, used
or not. For the cost engine it is a held commitment, active from the deployment, spent on the
stack's reservations like any other (``commitments.cover``). What it buys that no reservation
of the stack uses bills all the same, and gpufleet prices GPUs only as machines: that
remainder (GPUs, or vCPUs and memory beyond a machine's rounding) is a cost line of its own,
unpriced, never left out. One whose plan, region or resources cannot be read (unknown in a
preview, a secret, a value gpufleet does not know, more entries than a commitment has) pays
for nothing here and is unpriced, with the reason. Its own state says when it ended: one
whose end date has passed, or whose status is EXPIRED or CANCELLED, holds nothing and bills
nothing. A LICENSE commitment, or one without GPUs, pays for no GPU capacity and is not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.capacity.footprints.model import shipped_machine_catalog
from gpufleet.capacity.footprints.reading import Reading, shown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.planner.gcp_machines import (
    COMMITMENT_MB_PER_GIB,
    TERM_OF_COMMITMENT_PLAN,
    series_of_commitment,
)
from gpufleet.resource_types import GCP_REGION_COMMITMENT

# Where a declared commitment's id says it comes from, for people.
BOUGHT_BY_THE_STACK = "bought by the stack"
# A commitment lists a few resources (vCPUs, memory, GPUs, local SSDs); more is not one.
MAX_RESOURCES = 64
# The most one resource entry may say (memory in MB of a region's worth of GPU machines).
MAX_AMOUNT = 10**10
# Ended: it holds nothing and bills nothing.
_ENDED = frozenset({"EXPIRED", "CANCELLED"})
# Categories of machine commitments (the API's default is a machine one); LICENSE is not.
_MACHINE_CATEGORIES = frozenset({"MACHINE", "CATEGORY_UNSPECIFIED"})
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class DeclaredCommitment:
    """A commitment a stack declares: what it holds once bought, or why it cannot be read."""

    resource: StackResource
    name: str  # its name in the cloud, else in the program
    held: HeldCommitment | None  # None: not readable (``unread`` says why)
    unread: tuple[str, ...] = ()
    unknown: bool = False  # unreadable only for values a preview does not know yet


def declared_commitments(resources: Sequence[StackResource]) -> list[DeclaredCommitment]:
    """The GPU commitments ``resources`` declare, in stack order."""
    found = []
    for resource in resources:
        if resource.type == GCP_REGION_COMMITMENT:
            declared = _read(resource)
            if declared is not None:
                found.append(declared)
    return found


def _read(resource: StackResource) -> DeclaredCommitment | None:
    reading = Reading(resource.props, resource.provider_props, shipped_machine_catalog())
    name = resource.props.get("name")
    ident = name.strip() if isinstance(name, str) and name.strip() else resource.name
    category, status = reading.get("category"), reading.get("status")
    if category == "LICENSE" or (isinstance(status, str) and status in _ENDED):
        return None  # no machines, or no longer billing
    readable = category is not None and not reading.unreadable(category, "category")
    if readable and not (isinstance(category, str) and category in _MACHINE_CATEGORIES):
        reading.undetermined.append(f"category {shown(category)} is not MACHINE or LICENSE")
    accelerators, vcpus, memory_mib = _resources(reading)
    if not accelerators and not reading.undetermined:
        return None  # pays for no GPU
    term = None
    plan = reading.get("plan")
    if not reading.unreadable(plan, "plan"):
        term = TERM_OF_COMMITMENT_PLAN.get(plan) if isinstance(plan, str) else None
        if term is None:
            known = ", ".join(TERM_OF_COMMITMENT_PLAN)
            reading.undetermined.append(f"plan {shown(plan)} is not one of {known}")
    region = _region(reading)
    family = _series(reading)
    if reading.undetermined or term is None or region is None:
        why = tuple(reading.undetermined)
        return DeclaredCommitment(resource, ident, None, why, reading.only_unknown)
    held = HeldCommitment(
        cloud="gcp",
        id=f"{ident} ({BOUGHT_BY_THE_STACK})",
        term=term,
        kind="resources",
        region=region,
        family=family,
        accelerators=accelerators,
        vcpus=vcpus,
        memory_gib=memory_mib / COMMITMENT_MB_PER_GIB,
        # Known once bought (its state's outputs); before, it starts with the deployment.
        start=_date(reading.get("startTimestamp")),
        end=_date(reading.get("endTimestamp")),
        source=f"{GCP_REGION_COMMITMENT} {resource.name}",
    )
    return DeclaredCommitment(resource, ident, held)


def _series(reading: Reading) -> str | None:
    """The commitment type (the machine series it pays for); none given is the API's
    default, N1's."""
    kind = reading.get("type")
    if kind is not None and reading.unreadable(kind, "type"):
        return None
    if kind is not None and not isinstance(kind, str):
        reading.undetermined.append(f"type {shown(kind)} is not a commitment type")
        return None
    return series_of_commitment(kind)


def _date(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and _DATE.match(value) else None


def _resources(reading: Reading) -> tuple[dict[str, float], float, float]:
    """Accelerators by type, vCPUs and memory (MiB) of the commitment's ``resources``."""
    accelerators: dict[str, float] = {}
    vcpus = memory = 0.0
    entries = reading.get("resources")
    if entries is None or reading.unreadable(entries, "resources"):
        return accelerators, vcpus, memory
    if not isinstance(entries, list):
        reading.undetermined.append(f"resources {shown(entries)} is not a list")
        return accelerators, vcpus, memory
    if len(entries) > MAX_RESOURCES:
        reading.undetermined.append(f"resources lists {len(entries):,}; at most {MAX_RESOURCES}")
        return accelerators, vcpus, memory
    for index, entry in enumerate(entries):
        where = f"resources[{index}]"
        if reading.unreadable(entry, where):
            continue
        if not isinstance(entry, dict):
            reading.undetermined.append(f"{where} {shown(entry)} is not an object")
            continue
        kind = entry.get("type")
        if reading.unreadable(kind, f"{where}.type"):
            continue
        amount = _amount(reading, entry.get("amount"), f"{where}.amount")
        if kind == "ACCELERATOR":
            accelerator = entry.get("acceleratorType")
            if reading.unreadable(accelerator, f"{where}.acceleratorType"):
                continue
            if not isinstance(accelerator, str) or not accelerator.strip():
                reading.undetermined.append(f"{where}.acceleratorType is not named")
                continue
            name = accelerator.strip().rsplit("/", 1)[-1].lower()
            accelerators[name] = accelerators.get(name, 0.0) + amount
        elif kind == "VCPU":
            vcpus += amount
        elif kind == "MEMORY":
            memory += amount
    return accelerators, vcpus, memory


def _amount(reading: Reading, value: Any, where: str) -> float:
    """A resource's amount (the API takes a whole number, as a string); 0 and recorded when it
    is not one."""
    found = reading.number(value, where, 0.0, whole=True, most=MAX_AMOUNT)
    return 0.0 if found is None else found


def _region(reading: Reading) -> str | None:
    """The commitment's region: its own (a name or a URL), else its provider's."""
    for value, where in (
        (reading.get("region"), "region"),
        (reading.provider.get("region"), "its provider's region"),
    ):
        if value is None or reading.unreadable(value, where):
            continue
        if isinstance(value, str) and value.strip():
            return value.strip().rsplit("/", 1)[-1]
        reading.undetermined.append(f"{where} {shown(value)} is not a region")
    if not reading.undetermined:
        reading.undetermined.append("no region: neither it nor its provider names one")
    return None
