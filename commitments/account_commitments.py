"""``gpufleet commitments`` short of rendering: which of a stack's reservations the account's
commitments pay for, and what each costs with and without them.

The stack's reserved parts come from its stack config (``gpufleet:workloads``: parts priced
``reserved_1y`` / ``reserved_3y``), as ``gpufleet runs`` reads it, so nothing runs the
program. The commitments are read from the clouds those parts are in (their regions; the
project ``site:gcp`` names; the subscription ``site:azure`` names); a cloud that cannot be
read is a problem named with why, and its parts count as not covered. ``cover`` decides, as
the cost engine does; monthly figures are the catalog's rates for 730 h.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gpufleet.capacity.commitments import (
    Covering,
    HeldCommitment,
    ReservedNeed,
    cover,
)
from gpufleet.capacity.footprints.model import Machine, shipped_machine_catalog
from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.rates import RateCard, shipped_rate_card
from gpufleet.pricing_models import (
    HOURS_PER_MONTH,
    PRICING_OF_TERM,
    TERM_OF_PRICING,
    Commitment,
    Pricing,
    is_commitment,
)
from gpufleet.runs.cloud_error import CloudError
from gpufleet.runs.run_parts import ScaleInputError
from gpufleet.runs.stack_target import StackTarget, read_stack
from gpufleet.stacks.stack_config import StackConfigError, WorkloadPlacement


@dataclass(frozen=True)
class ReservedPart:
    """One reserved part of a workload, and what pays for it."""

    workload: str
    component: str
    cloud: Cloud
    region: str
    zone: str | None
    instance_type: str
    instances: int
    planned: Commitment  # the term the plan assumes
    covered: Mapping[Commitment, float]  # instances held commitments pay for, by term
    commitments: tuple[str, ...]  # which
    ends: tuple[str, ...]  # when they end (ISO dates)
    monthly_usd: float | None  # with what is held (the rest on-demand); None: no rate
    on_demand_usd: float | None  # with none
    planned_usd: float | None  # all at the plan's term
    unread: str | None = None  # why its cloud's commitments could not be read

    @property
    def covered_instances(self) -> float:
        return sum(self.covered.values())

    @property
    def fully_covered(self) -> bool:
        return self.covered_instances >= self.instances - 1e-9

    @property
    def saving_to_buy(self) -> float | None:
        """What buying the plan's commitment for the rest would save a month."""
        if self.monthly_usd is None or self.planned_usd is None:
            return None
        return max(self.monthly_usd - self.planned_usd, 0.0)


@dataclass(frozen=True)
class AccountCommitments:
    environment: str
    read_at: str  # ISO time
    parts: list[ReservedPart]
    # Every active commitment read, and those that pay for a part of this stack.
    held: list[HeldCommitment]
    used: list[HeldCommitment]
    problems: list[str]  # clouds that could not be read, with why

    @property
    def all_covered(self) -> bool:
        return not self.problems and all(p.fully_covered for p in self.parts)


# How each cloud's commitments are read: (target, the regions of its reserved parts) -> held.
Reader = Callable[[StackTarget, list[str]], list[HeldCommitment]]


def _read_aws(target: StackTarget, regions: list[str]) -> list[HeldCommitment]:
    from gpufleet.commitments.aws_commitments import aws_commitments

    return aws_commitments(regions)


def _read_gcp(target: StackTarget, regions: list[str]) -> list[HeldCommitment]:
    from gpufleet.commitments.gcp_commitments import gcp_commitments

    return gcp_commitments(target.site.gcp().project, regions)


def _read_azure(target: StackTarget, regions: list[str]) -> list[HeldCommitment]:
    from gpufleet.commitments.azure_commitments import azure_commitments

    subscription = target.site.azure().subscription_id
    if subscription is None:
        raise StackConfigError(
            "site:azure: subscriptionId is not set; gpufleet commitments needs it"
        )
    return azure_commitments(subscription)


READERS: dict[Cloud, Reader] = {"aws": _read_aws, "gcp": _read_gcp, "azure": _read_azure}


def account_commitments(
    program: Path,
    stack: str,
    config_file: Path | None,
    now: datetime | None = None,
    readers: Mapping[Cloud, Reader] = READERS,
) -> AccountCommitments:
    """The stack's reserved parts and the commitments that pay for them; ScaleInputError for
    a stack config that cannot be read or lacks a ``site:`` setting a read needs."""
    moment = now or datetime.now(UTC)
    target = read_stack(program, stack, config_file)
    reserved: list[tuple[WorkloadPlacement, int, Pricing]] = [
        (w, index, part.pricing)
        for w in target.settings.workloads
        for index, part in enumerate(w.parts)
        if is_commitment(part.pricing) and part.instances > 0
    ]
    held: list[HeldCommitment] = []
    problems: list[str] = []
    unread: dict[Cloud, str] = {}
    in_use = {w.cloud for w, _, _ in reserved}
    clouds: list[Cloud] = [c for c in CLOUDS if c in in_use]
    for cloud in clouds:
        regions = sorted({w.region for w, _, _ in reserved if w.cloud == cloud})
        try:
            held += [h for h in readers[cloud](target, regions) if h.active(moment.date())]
        except StackConfigError as exc:
            raise ScaleInputError([f"{target.path}: {exc}"]) from None
        except CloudError as exc:
            unread[cloud] = str(exc)
            problems.append(str(exc))
    rates = _rates(target)
    needs = {f"{w.name}#{index}": _need(target, w, index) for w, index, _ in reserved}
    coverage = cover([n for n in needs.values() if n is not None], held, rates, moment.date())
    parts = [
        _part(w, index, pricing, needs[f"{w.name}#{index}"], coverage, rates, unread)
        for w, index, pricing in reserved
    ]
    ids = {i for p in parts for i in p.commitments}
    return AccountCommitments(
        target.settings.environment,
        moment.isoformat(timespec="seconds"),
        parts,
        held,
        [h for h in held if h.id in ids],
        problems,
    )


def _rates(target: StackTarget) -> RateCard:
    discounts = target.settings.commitment_discounts
    return shipped_rate_card(
        None
        if discounts is None
        else {cloud: dict(terms.items()) for cloud, terms in discounts.items()}
    )


def _need(target: StackTarget, w: WorkloadPlacement, index: int) -> ReservedNeed | None:
    attached = (w.gpu, w.gpus_per_instance) if w.cloud == "gcp" else None
    catalog = shipped_machine_catalog()
    machine = catalog.machine(w.cloud, w.instance_type, attached)
    if machine is None and attached is not None:
        machine = catalog.machine(w.cloud, w.instance_type)
    if machine is None:
        return None
    return ReservedNeed(
        f"{w.name}#{index}",
        w.cloud,
        w.region,
        _zone_name(target, w),
        machine,
        float(w.parts[index].instances),
    )


def _zone_name(target: StackTarget, w: WorkloadPlacement) -> str | None:
    """The zone as the cloud names it on a reservation: the plan keeps AWS zones by id
    (``usw2-az1``), a capacity reservation and a zonal reserved instance by name."""
    if not w.zone:
        return None
    if w.cloud != "aws" or target.site.aws_site is None:
        return w.zone
    region = target.site.aws_site.regions.get(w.region)
    names = {s.zone_id: s.zone for s in region.subnets} if region is not None else {}
    return names.get(w.zone, w.zone)


def _part(
    w: WorkloadPlacement,
    index: int,
    pricing: Pricing,
    need: ReservedNeed | None,
    coverage: Covering,
    rates: RateCard,
    unread: Mapping[Cloud, str],
) -> ReservedPart:
    part = w.parts[index]
    found = coverage.of(f"{w.name}#{index}")
    units = found.units
    machine = need.machine if need is not None else None

    def monthly(shares: Mapping[Pricing, float]) -> float | None:
        total = 0.0
        for pricing_of, instances in shares.items():
            if instances <= 0:
                continue
            rate = _rate(rates, w, machine, pricing_of)
            if rate is None:
                return None
            total += rate * instances * HOURS_PER_MONTH
        return total

    covered: dict[Pricing, float] = {PRICING_OF_TERM[t]: n for t, n in units.items()}
    rest = max(part.instances - sum(units.values()), 0.0)
    planned = TERM_OF_PRICING[pricing]
    with_held: dict[Pricing, float] = {**covered, "on_demand": rest}
    as_planned = dict(covered)
    as_planned[pricing] = as_planned.get(pricing, 0.0) + rest
    return ReservedPart(
        workload=w.name,
        component=part.component,
        cloud=w.cloud,
        region=w.region,
        zone=need.zone if need is not None else w.zone or None,
        instance_type=w.instance_type,
        instances=part.instances,
        planned=planned,
        covered=units,
        commitments=found.ids,
        ends=found.ends,
        monthly_usd=monthly(with_held),
        on_demand_usd=monthly({"on_demand": float(part.instances)}),
        planned_usd=monthly(as_planned),
        unread=unread.get(w.cloud),
    )


def _rate(
    rates: RateCard, w: WorkloadPlacement, machine: Machine | None, pricing: Pricing
) -> float | None:
    attached = machine.attached if machine is not None else None
    found = rates.rate(w.cloud, w.instance_type, w.region, pricing, attached)
    if found is None and attached is not None:
        found = rates.rate(w.cloud, w.instance_type, w.region, pricing)
    return None if found is None else found.hourly
