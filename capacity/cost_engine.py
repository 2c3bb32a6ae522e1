"""The cost engine: what a stack's GPU capacity costs, per resource and per workload.

Every price gpufleet shows of a stack — ``gpufleet cost``, the ``gpu-budget`` and
``gpu-fleet-size`` policies, the pull-request comment — comes from ``price_stack``. It prices
each capacity resource of the stack (``stack_capacity``: templates resolved) as instance type x
instances x hours x rate, with the rate from ``planner.rates`` (the planner's own lookups) for
the pricing model the resource itself says: spot / low-priority, on-demand, a mix of the two
(weighted by its on-demand base and percentage), reserved capacity (a reservation bills whether
used or not: at the committed rate for the instances a held commitment pays for, as
``capacity.commitments.cover`` decides, else on-demand; its ``commitment`` tag is the plan's
forecast, which the saving beside it is priced at), a VM inside a reservation (paid by the
reservation), a SageMaker job (per run).

Two figures per resource:

- **expected**: what the resource's own scaling settings run — desired size (an ASG's
  ``desiredCapacity``, else its ``minSize``; an Azure ML cluster's ``minNodeCount``), a
  group's target size — for the hours the ``Usage`` model gives: 730 h a month by default
  (``resource_settings``), one run for a job. Schedules and autoscaling come in through that
  model, not here;
- **maximum**: every group at its max size for 730 h (a job: one run of its maximum runtime).

Capacity in units (an ASG weighting its machines by GPUs or vCPUs) becomes instances of each
machine it may launch, rounded up; with several machines, the expected figure is their mean and
the maximum the dearest. A rate not found in the resource's region is the type's highest
catalog rate, marked estimated; a GPU resource with no rate, or whose size cannot be known, is
unpriced and listed — never counted as $0. What is not priced at all (storage, network, the
commitment purchases themselves, other resources) is named in ``StackCost.not_priced``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from statistics import fmean
from typing import Literal, get_args

from gpufleet import tag_keys
from gpufleet.capacity.commitments import (
    NO_COVERING,
    NOTHING,
    Coverage,
    Covering,
    HeldCommitment,
    ReservedNeed,
    cover,
)
from gpufleet.capacity.declared_commitments import DeclaredCommitment, declared_commitments
from gpufleet.capacity.footprints.model import GpuFootprint, Machine, instances
from gpufleet.capacity.property_values import is_unknown
from gpufleet.capacity.stack_capacity import StackCapacity, stack_capacity
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.capacity.taggable import tag_entries, tag_property
from gpufleet.capacity.zone_names import NO_ZONE_NAMES, ZoneNames, stack_zone_names
from gpufleet.clouds import cloud_of_type
from gpufleet.planner.rates import Rate, RateCard
from gpufleet.planner.runs import runs_per_month
from gpufleet.planner.schedules import MINUTES_PER_WEEK
from gpufleet.pricing_models import (
    HOURS_PER_MONTH,
    PRICING_OF_TERM,
    Commitment,
    Pricing,
)

Figure = Literal["expected", "maximum"]
FIGURES: tuple[Figure, ...] = get_args(Figure)
UNTAGGED = "(no workload tag)"
# The kind of a line for a commitment the stack buys (``declared_commitments``).
COMMITMENT_KIND = "commitment"
UNKNOWN_USE_ABOVE_MIN = (
    "runs or load add capacity above that and it declares no expected use of it "
    f"({tag_keys.EXPECTED_MINUTES})"
)
UNKNOWN_USE = (
    "it sits at zero until something other than its settings sizes it (a run, its "
    f"autoscaler) and declares no expected use ({tag_keys.EXPECTED_MINUTES})"
)


@dataclass(frozen=True)
class Usage:
    """What the expected figure assumes for one capacity resource: ``units`` for ``hours``,
    and above them ``extra_units`` more for ``extra_hours`` (a burst, a run on request)."""

    units: float | None  # capacity units running (None: unknown)
    hours: float  # per month (a job: one run)
    basis: str  # how it was decided, for people
    extra_units: float = 0.0
    extra_hours: float = 0.0
    unpriced: str | None = None  # why what it runs is not known (then ``units`` is None)
    declared_minutes: int | None = None  # the expected use it declares, when it does


UsageModel = Callable[[StackCapacity, Mapping[str, str]], Usage]


def resource_settings(item: StackCapacity, tags: Mapping[str, str]) -> Usage:
    """The default usage model (``settings_usage``), with the use the resource declares."""
    return replace(
        settings_usage(item, tags), declared_minutes=declared_minutes(item.footprint, tags)
    )


def declared_minutes(footprint: GpuFootprint, tags: Mapping[str, str]) -> int | None:
    """The expected use a resource declares, in minutes a month: its ``expected-minutes`` tag,
    else what its settings declare; what its own settings declare (a VM's run until its max
    run duration) is a floor a tag cannot lower."""
    minutes = tag_keys.expected_minutes(tags.get(tag_keys.EXPECTED_MINUTES))
    if minutes is None:
        return footprint.declared_minutes
    if footprint.declared_minutes is not None:
        return max(minutes, footprint.declared_minutes)
    return minutes


def settings_usage(item: StackCapacity, tags: Mapping[str, str]) -> Usage:
    """The default usage model: what the resource's own settings say — its size around the
    clock, what its own schedule runs, and above that, up to its max size, the expected use
    its ``expected-minutes`` tag declares (the plan's hours for a burst or a group at zero
    until a run asks). The settings are the truth and the tag a forecast: where the settings
    run more than the tag declares (a min size at the max, a group nothing scales in), the
    settings price it and the basis says so; a group at zero that declares no use is
    unpriced, never $0."""
    footprint = item.footprint
    if footprint.run_hours is not None:
        kept = footprint.idle_hours_per_run
        if kept:
            # Its warm pool keeps the instances (billed) after the run.
            return Usage(
                footprint.expected_units,
                footprint.run_hours + kept,
                f"one run, and its instances kept {kept * 60:g} min after it (warm pool)",
            )
        return Usage(footprint.expected_units, footprint.run_hours, "one run")
    declared = tags.get(tag_keys.EXPECTED_MINUTES)
    minutes = declared_minutes(footprint, tags)
    least, most = footprint.expected_units, footprint.max_units
    if footprint.never_scales_in is not None and most:
        return Usage(
            most,
            HOURS_PER_MONTH,
            f"its max size all month: {footprint.never_scales_in}{_over_declared(minutes)}",
        )
    if footprint.weekly_use is not None and most:
        return _scheduled(footprint, most, minutes)
    if minutes is None and least == 0 and most and footprint.market != "in_reservation":
        # Something other than its settings sizes it (a run, its autoscaler) and it declares
        # no expected use: what it runs is not known. Not $0: unpriced, and said why.
        why = UNKNOWN_USE
        if declared is not None:
            why = f"its {tag_keys.EXPECTED_MINUTES} tag {declared!r} is not whole minutes"
        return Usage(None, HOURS_PER_MONTH, why, unpriced=why)
    if minutes is None or least is None or most is None or most <= least:
        basis = _size_basis(footprint)
        if minutes is not None and least:
            basis += _over_declared(minutes)
        elif footprint.scales_itself and least is not None and most and most > least:
            # Its floor is known; what load adds above it is not, and is not guessed: the
            # maximum figure counts it, and a generated stack's plan-drift sees it missing.
            basis += f"; {UNKNOWN_USE_ABOVE_MIN}: not priced above its min size"
        return Usage(least, HOURS_PER_MONTH, basis)
    hours = min(minutes / 60, HOURS_PER_MONTH)
    basis = f"up to its max size for {hours:g} h a month (its expected use, as planned)"
    idle = footprint.idle_hours_per_run
    if idle and hours:
        # Each run keeps the nodes for the idle time-out after it: what the settings add.
        runs = tag_keys.expected_runs(tags.get(tag_keys.EXPECTED_RUNS))
        # Hours of use are at least one run (a declared 0 does not remove the idle time).
        runs = runs_per_month(hours) if runs is None else max(runs, 1)
        held = min(hours + runs * idle, HOURS_PER_MONTH)
        basis = (
            f"up to its max size for {held:.4g} h a month: its expected use ({hours:g} h, as "
            f"planned) and the idle time after each of {runs} run{'s' if runs != 1 else ''} "
            f"({idle * 60:.4g} min)"
        )
        hours = held
    if least:
        basis = f"its minimum all month, {basis}"
    return Usage(least, HOURS_PER_MONTH, basis, most - least, hours)


def _over_declared(minutes: int | None) -> str:
    """Said of a resource whose settings run more than its declared use."""
    if minutes is None:
        return ""
    return (
        f" (its settings run more than its declared use, {tag_keys.EXPECTED_MINUTES}="
        f"{minutes}: the settings win)"
    )


def _scheduled(footprint: GpuFootprint, most: float, minutes: int | None) -> Usage:
    """What a group's own schedule runs: that, not a declared figure, is the bill; where the
    schedule sets only its bounds, runs add their declared use above them."""
    share = footprint.fixed_share
    weekly = footprint.weekly_use or 0.0
    fixed = share.max_units if share is not None and share.weekly_use is not None else None
    if share is not None and share.weekly_use is not None and fixed and most > fixed:
        # Its fixed version's units for what the schedule runs of them, the rest above.
        hours = _monthly_hours(share.weekly_use, fixed)
        rest = weekly - share.weekly_use
        said = ""
        if footprint.runs_above_schedule and minutes:
            # Runs (or load) for the declared hours, above what the schedule holds of the rest.
            rest += _declared_weekly(minutes, most - fixed, rest)
            said = f", with {minutes / 60:g} h above its schedule (declared use)"
        elif footprint.runs_above_schedule:
            said = f"; {UNKNOWN_USE_ABOVE_MIN}: not priced above its schedule"
        extra = min(_monthly_hours(rest, most - fixed), HOURS_PER_MONTH)
        return Usage(
            fixed,
            hours,
            f"its schedule: its fixed version for {hours:.4g} h a month, its max size "
            f"for {extra:.4g} h{said}",
            most - fixed,
            extra,
        )
    basis = "its schedule"
    if footprint.runs_above_schedule and minutes:
        # Runs (or load) for the declared hours at its max size, above the floor the schedule
        # holds (taken at its mean over the week).
        weekly += _declared_weekly(minutes, most, weekly)
        basis = f"its schedule's floor, and above it for {minutes / 60:g} h (declared use)"
    elif footprint.runs_above_schedule and footprint.market != "in_reservation":
        # Runs or load size it above what its schedule holds, and it declares no use of that.
        if weekly <= 0:
            return Usage(None, HOURS_PER_MONTH, UNKNOWN_USE, unpriced=UNKNOWN_USE)
        basis = f"its schedule's floor; {UNKNOWN_USE_ABOVE_MIN}: not priced above it"
    hours = min(_monthly_hours(weekly, most), HOURS_PER_MONTH)
    return Usage(most, hours, f"{basis}: its max size for {hours:.4g} h a month")


def _declared_weekly(minutes: int, units: float, held: float) -> float:
    """Unit-minutes a week that ``minutes`` a month of declared use at ``units`` add above
    what a schedule holds (``held`` unit-minutes a week, taken at its mean)."""
    floor = held / MINUTES_PER_WEEK
    return minutes / (HOURS_PER_MONTH * 60) * MINUTES_PER_WEEK * max(units - floor, 0.0)


def _monthly_hours(weekly_unit_minutes: float, units: float) -> float:
    """Hours a month at ``units`` that make a week's unit-minutes."""
    return max(weekly_unit_minutes, 0.0) / units / MINUTES_PER_WEEK * HOURS_PER_MONTH


def _size_basis(footprint: GpuFootprint) -> str:
    if footprint.expected_units == footprint.max_units:
        return "its size, all month"
    return "its desired / minimum size, all month"


@dataclass(frozen=True)
class Amount:
    """One figure of one resource: how many instances, for how long, at what cost."""

    instances: float | None
    hours: float
    hourly_usd: float | None  # None: not priced
    monthly_usd: float | None


@dataclass(frozen=True)
class ResourceCost:
    urn: str
    name: str
    type: str
    kind: str  # "Auto Scaling group", "reservation", ...
    workload: str
    cloud: str | None  # None: GPUs asked for where gpufleet sees no cloud (a Kubernetes pod)
    region: str | None
    instance_types: tuple[str, ...]
    gpus_per_instance: int  # of the largest machine
    pricing: str  # how it is paid for, in words: "spot", "reserved_3y", "mixed", ...
    rate_usd: float | None  # per instance-hour, when it launches one machine at one rate
    expected: Amount
    maximum: Amount
    basis: str  # what the expected figure assumes
    estimated: tuple[str, ...] = ()  # why a rate is not the region's own catalog price
    unpriced: str | None = None  # why it has no price
    # Unpriced only because a value is unknown during a preview (known once deployed).
    unknown: bool = False
    notes: tuple[str, ...] = ()  # what its price assumes (a commitment, or none declared)
    declared_minutes: int | None = None  # the expected use it declares (expected-minutes)
    # Its workload tag is unknown during a preview: whose it is is known once deployed.
    workload_unknown: bool = False
    per_run: bool = False  # billed per run (the monthly figures are one run)
    outside_stack: bool = False  # runs start outside the stack: not in the monthly totals
    commitment: Commitment | None = None  # the held commitment that pays for most of it
    part: str | None = None  # which part of a resource of several (``GpuFootprint.part``)
    # Reserved capacity: the commitment its ``commitment`` tag forecasts (the plan's), the
    # instances held commitments pay for and which, and what the expected figure is above
    # the forecast while no commitment pays for the rest (0 when it forecasts none).
    planned_commitment: Commitment | None = None
    covered_instances: float = 0.0
    commitments: tuple[str, ...] = ()
    uncommitted_usd: float = 0.0

    @property
    def in_totals(self) -> bool:
        return not self.outside_stack

    def figure(self, which: Figure) -> Amount:
        return self.expected if which == "expected" else self.maximum


@dataclass(frozen=True)
class WorkloadCost:
    name: str
    resources: tuple[ResourceCost, ...]
    # The plan's monthly cost of this workload, when the stack config carries it.
    plan_monthly_usd: float | None = None

    def total(self, which: Figure, *, hourly: bool = False) -> float:
        """Sum of the priced resources counted in the stack's totals."""
        return sum(
            (a.hourly_usd if hourly else a.monthly_usd) or 0.0
            for r in self.resources
            if r.in_totals
            for a in (r.figure(which),)
        )

    @property
    def unpriced(self) -> list[ResourceCost]:
        """Resources its totals leave out because they have no price."""
        return [r for r in self.resources if r.unpriced is not None and r.in_totals]


@dataclass(frozen=True)
class NotPriced:
    what: str
    why: str
    resources: tuple[str, ...] = ()  # names, where it is about particular resources


@dataclass(frozen=True)
class StackCost:
    workloads: tuple[WorkloadCost, ...]
    not_priced: tuple[NotPriced, ...]
    resource_count: int
    catalog_as_of: str

    @property
    def resources(self) -> list[ResourceCost]:
        return [r for w in self.workloads for r in w.resources]

    def total(self, which: Figure, *, hourly: bool = False) -> float:
        return sum(w.total(which, hourly=hourly) for w in self.workloads)

    @property
    def unpriced(self) -> list[ResourceCost]:
        return [r for r in self.resources if r.unpriced is not None and r.in_totals]

    @property
    def uncommitted_usd(self) -> float:
        """What reserved capacity costs a month above the commitments its plan assumes, until
        held commitments pay for it."""
        return sum(r.uncommitted_usd for r in self.resources if r.in_totals)

    @property
    def unpriceable(self) -> list[ResourceCost]:
        """Unpriced for good, not only until values unknown in a preview are known."""
        return [r for r in self.unpriced if not r.unknown]


def price_stack(
    resources: list[StackResource],
    rates: RateCard,
    usage: UsageModel = resource_settings,
    plan: dict[str, float] | None = None,
    capacity: list[StackCapacity] | None = None,
    commitments: Sequence[HeldCommitment] = (),
    today: date | None = None,
    zones: ZoneNames = NO_ZONE_NAMES,
) -> StackCost:
    """Price every GPU capacity resource of ``resources``. ``plan``: each workload's monthly
    cost in the plan the stack was generated from, to show beside it; ``capacity``: the
    stack's capacity when already read (``stack_capacity(resources)``); ``commitments``: those
    the account holds (``site:commitments``, ``--commitments``), active on ``today``;
    ``zones``: the zones of its subnets the stack config says (``site:aws``), beside those
    its subnet resources report."""
    by_urn = {r.urn: r for r in resources}
    zones = stack_zone_names(resources).merged(zones)
    items = stack_capacity(resources) if capacity is None else capacity
    day = today or datetime.now(UTC).date()
    declared = declared_commitments(resources)
    # The stack's own first: a pool of GCP commitments spends them first, so what is left
    # over is the account's (outside these totals). One listed again (site:commitments,
    # --commitments) is the same commitment, not another.
    bought = [d.held for d in declared if d.held is not None]
    names = {(h.cloud, h.region, d.name) for d in declared if (h := d.held) is not None}
    held = [*bought, *(c for c in commitments if (c.cloud, c.region, c.id) not in names)]
    covering = cover(reserved_needs(items), held, rates, day) if held else NO_COVERING
    lines = [
        _price(item, by_urn, rates, usage, covering.of(_need_key(i, item)), zones)
        for i, item in enumerate(items)
    ]
    lines += _declared_lines(declared, covering, by_urn)
    groups: dict[str, list[ResourceCost]] = {}
    for line in lines:
        groups.setdefault(line.workload, []).append(line)
    plan = plan or {}
    for name in plan:
        groups.setdefault(name, [])
    workloads = tuple(
        WorkloadCost(name, tuple(sorted(groups[name], key=lambda r: r.name)), plan.get(name))
        for name in sorted(groups, key=lambda n: (n == UNTAGGED, n))
    )
    # The stack and its providers are the engine's bookkeeping, not resources of the program.
    count = sum(1 for r in resources if not r.type.startswith("pulumi:"))
    priced = _not_priced(resources, items, lines, {d.resource.urn for d in declared})
    return StackCost(workloads, priced, count, rates.catalog.as_of)


def reserved_needs(items: Sequence[StackCapacity]) -> list[ReservedNeed]:
    """The reserved capacity of a stack that commitments may pay for: its instances of one
    known machine (a reservation of several machine types, or of an unknown size, none)."""
    needs = []
    for i, item in enumerate(items):
        f = item.footprint
        if f.market != "reserved" or f.cloud is None or len(f.machines) != 1 or not f.max_units:
            continue
        needs.append(
            ReservedNeed(_need_key(i, item), f.cloud, f.region, f.zone, f.machines[0], f.max_units)
        )
    return needs


def _declared_lines(
    declared: Sequence[DeclaredCommitment],
    covering: Covering,
    by_urn: dict[str, StackResource],
) -> list[ResourceCost]:
    """A line for each commitment the stack buys that bills beyond the reservations it pays
    for, or that cannot be read: unpriced, with why. The readable ones are the first of the
    commitments ``covering`` spent, in order."""
    lines = []
    index = 0
    for d in declared:
        if d.held is None:
            why = (
                f"the commitment cannot be read ({'; '.join(d.unread)}): it pays for no "
                "reservation here, and what it bills is not known"
            )
            lines.append(_commitment_line(d, why, by_urn))
            continue
        unspent = covering.unspent(index)
        index += 1
        if unspent:
            words = {"vcpus": "vCPUs", "memory": "GiB of memory"}
            said = ", ".join(
                f"{amount:,.4g} {words.get(dim) or dim.removeprefix('gpu:') + ' GPU(s)'}"
                for dim, amount in sorted(unspent.items())
            )
            why = (
                f"it buys {said} that no reservation of the stack uses, billed for its whole "
                f"{d.held.term} term whether used or not; gpufleet prices GPU machines, not a "
                "commitment's remainder"
            )
            lines.append(_commitment_line(d, why, by_urn))
    return lines


def _commitment_line(
    declared: DeclaredCommitment, unpriced: str, by_urn: dict[str, StackResource]
) -> ResourceCost:
    resource, held = declared.resource, declared.held
    description = resource.props.get("description")
    tags = (
        tag_keys.tags_in_description(description)
        if isinstance(description, str) and not is_unknown(description)
        else {}
    )
    nothing = Amount(None, HOURS_PER_MONTH, None, None)
    return ResourceCost(
        urn=resource.urn,
        name=resource.name,
        type=resource.type,
        kind=COMMITMENT_KIND,
        workload=tags.get(tag_keys.WORKLOAD) or _ancestor_name(resource, by_urn) or UNTAGGED,
        cloud="gcp",
        region=held.region if held is not None else None,
        instance_types=(),
        gpus_per_instance=0,
        pricing=PRICING_OF_TERM[held.term] if held is not None else "commitment",
        rate_usd=None,
        expected=nothing,
        maximum=nothing,
        basis="a commitment bills for its whole term",
        unpriced=unpriced,
        unknown=declared.unknown,
    )


def _need_key(index: int, item: StackCapacity) -> str:
    # Stack order first: commitments pay for a stack's reservations in the order it declares them.
    return f"{index:06d} {item.resource.urn} {item.footprint.part or ''}"


def _price(
    item: StackCapacity,
    by_urn: dict[str, StackResource],
    rates: RateCard,
    usage: UsageModel,
    coverage: Coverage = NOTHING,
    zones: ZoneNames = NO_ZONE_NAMES,
) -> ResourceCost:
    resource, footprint = item.resource, item.footprint
    tags, unknown_tags = _costing_tags(item, by_urn)
    planned, commitment_note = _commitment(tags.get(tag_keys.COMMITMENT), footprint)
    used = usage(item, tags)
    max_hours = footprint.run_hours if footprint.run_hours is not None else HOURS_PER_MONTH
    held = _held_shares(footprint, coverage)
    priced = _Pricer(footprint, rates, held, zones.catalog_zone(footprint))
    expected = priced.amount(used.units, used.hours, fmean)
    if used.extra_units and expected.monthly_usd is not None and used.units is not None:
        expected = priced.with_extra(expected, used.units + used.extra_units, used.extra_hours)
    maximum = priced.amount(footprint.max_units, max_hours, max)
    machines = footprint.machines
    if footprint.fixed_share is not None:
        machines = (*footprint.fixed_share.machines, *machines)
    largest = max((m.gpus for m in machines), default=0)
    unpriced = priced.why_unpriced(footprint)
    if unpriced is None and used.unpriced is not None:
        unpriced = used.unpriced
    if unpriced is None and (expected.monthly_usd is None or maximum.monthly_usd is None):
        unpriced = "; ".join(footprint.undetermined) or "its size is not known"
    if unpriced is not None:
        # What cannot be priced is not priced: no figure of it in any total, never a guess.
        expected, maximum = _unpriced(expected), _unpriced(maximum)
    uncommitted = 0.0
    if unpriced is None and footprint.market == "reserved":
        said = _coverage_note(planned, coverage, footprint)
        commitment_note = f"{commitment_note}; {said}" if commitment_note else said
        if coverage.covered < (footprint.max_units or 0.0) - 1e-9:
            savings = _savings(footprint, rates, used, expected, held)
            said = ", ".join(
                f"a {term} commitment would save ${saved:,.2f}/month"
                for term, saved in savings.items()
            )
            if said:
                commitment_note = f"{commitment_note}; {said}"
            # What it costs above its forecast is what the forecast commitment would save.
            uncommitted = savings.get(planned, 0.0) if planned is not None else 0.0
    return ResourceCost(
        urn=resource.urn,
        name=item.name,
        type=resource.type,
        kind=footprint.kind,
        workload=tags.get(tag_keys.WORKLOAD) or _ancestor_name(resource, by_urn) or UNTAGGED,
        cloud=footprint.cloud,
        region=footprint.region,
        instance_types=tuple(dict.fromkeys(m.instance_type for m in machines)),
        gpus_per_instance=largest,
        pricing=_pricing_words(footprint, coverage.term()),
        rate_usd=priced.single_rate,
        expected=expected,
        maximum=maximum,
        basis=used.basis,
        estimated=tuple(dict.fromkeys(priced.estimated)),
        unpriced=unpriced,
        unknown=unpriced is not None and footprint.unknown,
        notes=(*footprint.notes, *filter(None, [commitment_note])),
        per_run=footprint.run_hours is not None,
        outside_stack=footprint.outside_stack,
        commitment=coverage.term(),
        part=footprint.part,
        planned_commitment=planned,
        covered_instances=coverage.covered,
        commitments=coverage.ids,
        uncommitted_usd=uncommitted,
        declared_minutes=used.declared_minutes,
        workload_unknown=tag_keys.WORKLOAD in unknown_tags,
    )


def _held_shares(footprint: GpuFootprint, coverage: Coverage) -> dict[Pricing, float]:
    """Reserved capacity: the share of its instances each pricing pays for (held commitments
    at theirs, the rest on-demand); empty for other capacity."""
    if footprint.market != "reserved":
        return {}
    total = footprint.max_units or 0.0
    shares: dict[Pricing, float] = {}
    for term, units in coverage.units.items():
        if total > 0:
            shares[PRICING_OF_TERM[term]] = min(units / total, 1.0)
    shares["on_demand"] = max(1.0 - sum(shares.values()), 0.0)
    return shares


def _rest_at(held: Mapping[Pricing, float], pricing: Pricing) -> dict[Pricing, float]:
    """``held`` with what no commitment pays for at ``pricing`` instead of on-demand."""
    shares: dict[Pricing, float] = {p: s for p, s in held.items() if p != "on_demand"}
    shares[pricing] = shares.get(pricing, 0.0) + held.get("on_demand", 1.0)
    return shares


def _coverage_note(planned: Commitment | None, coverage: Coverage, footprint: GpuFootprint) -> str:
    """What a reservation's price assumes of commitments, for people."""
    total = footprint.max_units or 0.0
    forecast = f"its plan assumes a {planned} commitment" if planned else "its plan assumes none"
    if coverage.covered <= 0:
        return (
            f"{forecast}; no held commitment pays for it: billed at the on-demand rate while it "
            "exists (gpufleet commitments --env ENV verifies; declare held ones under "
            "site:commitments, or pass --commitments FILE)"
        )
    terms = ", ".join(f"{u:g} at {t}" for t, u in sorted(coverage.units.items()))
    ends = f", ending {min(coverage.ends)}" if coverage.ends else ""
    said = f"held commitments ({', '.join(dict.fromkeys(coverage.ids))}{ends}) pay for {terms}"
    if coverage.covered >= total - 1e-9:
        return f"{said} of its {total:g} instance(s)"
    rest = total - coverage.covered
    return f"{said} of its {total:g} instance(s); {rest:g} at the on-demand rate ({forecast})"


def _savings(
    footprint: GpuFootprint,
    rates: RateCard,
    used: Usage,
    now: Amount,
    held: Mapping[Pricing, float],
) -> dict[Commitment, float]:
    """What buying each commitment for the rest of a reservation would save a month (the
    terms that save anything)."""
    if now.monthly_usd is None:
        return {}
    savings: dict[Commitment, float] = {}
    for term, pricing in PRICING_OF_TERM.items():
        committed = _Pricer(footprint, rates, _rest_at(held, pricing))
        amount = committed.amount(used.units, used.hours, fmean)
        if amount.monthly_usd is not None and amount.monthly_usd < now.monthly_usd:
            savings[term] = now.monthly_usd - amount.monthly_usd
    return savings


def _unpriced(amount: Amount) -> Amount:
    return replace(amount, hourly_usd=None, monthly_usd=None)


class _Pricer:
    """Prices one footprint's machines at its market's rates, for any size and hours."""

    def __init__(
        self,
        footprint: GpuFootprint,
        rates: RateCard,
        held: Mapping[Pricing, float] | None = None,
        zone: str | None = None,
        one_zone: bool | None = None,
    ) -> None:
        """``zone``: the catalog zone it runs in, if known; ``one_zone``: whether it runs in
        one (by default, as the footprint says): then spot is that zone's price."""
        self.footprint = footprint
        self.zone = zone
        self.one_zone = footprint.one_zone if one_zone is None else one_zone
        self.estimated: list[str] = []
        self.missing: list[str] = []
        market = footprint.market
        self.free = market == "in_reservation"
        # Reserved capacity: the share of it each pricing pays for (``_held_shares``).
        unheld: dict[Pricing, float] = {"on_demand": 1.0}
        shares = dict(held) if held and market == "reserved" else unheld
        # (machine, weight, on-demand-side rate, spot rate)
        self.options: list[tuple[Machine, float, Rate | None, Rate | None]] = []
        for machine, weight in footprint.options():
            on_demand = spot = None
            if market != "spot" or footprint.on_demand_base is not None:
                on_demand = self._blend(rates, machine, shares)
            if market in ("spot", "mixed") or footprint.on_demand_base is not None:
                spot = self._rate(rates, machine, "spot")
            self.options.append((machine, weight, on_demand, spot))
        # A version of fixed size launched from its own template: its units are priced first,
        # at its own rates.
        self.share: _Pricer | None = None
        self.share_units = 0.0
        if footprint.fixed_share is not None:
            # A version of the same group: in its zones.
            self.share = _Pricer(footprint.fixed_share, rates, held, zone, self.one_zone)
            self.share_units = footprint.fixed_share.max_units or 0.0
            self.estimated += self.share.estimated
            self.missing += self.share.missing

    def _blend(
        self, rates: RateCard, machine: Machine, shares: Mapping[Pricing, float]
    ) -> Rate | None:
        """One rate for capacity paid for in shares under several pricings."""
        found = [(share, self._rate(rates, machine, p)) for p, share in shares.items() if share]
        if not found:
            return self._rate(rates, machine, "on_demand")
        if any(rate is None for _, rate in found):
            return None
        first = found[0][1]
        assert first is not None
        hourly = sum(share * rate.hourly for share, rate in found if rate is not None)
        return Rate(hourly, first.region, first.estimated)

    def _rate(self, rates: RateCard, machine: Machine, pricing: Pricing) -> Rate | None:
        if self.free:
            return None
        found = rates.rate(
            machine.cloud,
            machine.instance_type,
            self.footprint.region,
            pricing,
            machine.attached,
            self.zone,
            one_zone=self.one_zone,
        )
        if found is None:
            attached = machine.attached
            paired = f" with {attached[1]} x {attached[0]}" if attached and attached[1] else ""
            self.missing.append(f"{machine.instance_type}{paired} has no catalog price")
        elif found.estimated:
            self.estimated.append(f"{machine.instance_type}: {found.estimated}")
        return found

    @property
    def single_rate(self) -> float | None:
        """The rate per instance-hour when there is one machine at one rate."""
        if (
            len(self.options) != 1
            or self.free
            or self.footprint.market == "mixed"
            or self.share is not None
        ):
            return None
        _, _, on_demand, spot = self.options[0]
        chosen = spot if self.footprint.market == "spot" else on_demand
        return None if chosen is None else chosen.hourly

    def amount(
        self, units: float | None, hours: float, combine: Callable[[list[float]], float]
    ) -> Amount:
        if self.share is None or units is None:
            return self._amount(units, hours, combine)
        first = min(self.share_units, units)
        share = self.share.amount(first, hours, combine)
        rest = self._amount(units - first, hours, combine)
        if share.instances is None or rest.instances is None:
            return Amount(None, hours, None, None)
        count = share.instances + rest.instances
        if share.hourly_usd is None or rest.hourly_usd is None:
            return Amount(count, hours, None, None)
        hourly = share.hourly_usd + rest.hourly_usd
        return Amount(count, hours, hourly, hourly * hours)

    def _amount(
        self, units: float | None, hours: float, combine: Callable[[list[float]], float]
    ) -> Amount:
        if units is None or not self.options:
            return Amount(None, hours, None, None)
        counts, costs = [], []
        for _machine, weight, on_demand, spot in self.options:
            total = instances(units, weight)
            on_demand_count = min(instances(self.footprint.on_demand_units(units), weight), total)
            spot_count = total - on_demand_count
            counts.append(total)
            if self.free:
                costs.append(0.0)
                continue
            if (on_demand_count and on_demand is None) or (spot_count and spot is None):
                return Amount(combine(counts), hours, None, None)
            costs.append(
                on_demand_count * (on_demand.hourly if on_demand else 0.0)
                + spot_count * (spot.hourly if spot else 0.0)
            )
        hourly = combine(costs)
        return Amount(combine(counts), hours, hourly, hourly * hours)

    def with_extra(self, base: Amount, units: float, hours: float) -> Amount:
        """``base``, plus the capacity from its size up to ``units`` for ``hours`` more: the
        extra costs what ``units`` cost an hour less what the base does (a mixed group's
        on-demand share is counted right). Shown as the full size for the hours that make
        the same cost."""
        full = self.amount(units, hours, fmean)
        if full.hourly_usd is None or base.hourly_usd is None or base.monthly_usd is None:
            return Amount(full.instances, base.hours, None, None)
        monthly = base.monthly_usd + (full.hourly_usd - base.hourly_usd) * hours
        equivalent = monthly / full.hourly_usd if full.hourly_usd else hours
        return Amount(full.instances, equivalent, full.hourly_usd, monthly)

    def why_unpriced(self, footprint: GpuFootprint) -> str | None:
        if self.share is not None and footprint.fixed_share is not None:
            why = self.share.why_unpriced(footprint.fixed_share)
            if why is not None:
                return why
        # Anything the reader could not determine makes the price a guess: never shown as one.
        if footprint.undetermined:
            return "; ".join(dict.fromkeys(footprint.undetermined))
        if not footprint.machines:
            return "its machine type is not known"
        if self.missing:
            return "; ".join(dict.fromkeys(self.missing))
        if footprint.max_units is None:
            return "its size is not known"
        return None


def _pricing_words(footprint: GpuFootprint, commitment: Commitment | None) -> str:
    if footprint.fixed_share is not None:
        first = _pricing_words(footprint.fixed_share, commitment)
        rest = _pricing_words(replace(footprint, fixed_share=None), commitment)
        return first if first == rest else f"{first} + {rest}"
    market = footprint.market or "on_demand"
    if footprint.run_hours is not None:
        return f"{market} per run"
    if market == "reserved":
        return PRICING_OF_TERM[commitment] if commitment else "reserved (on-demand rate)"
    if market == "spot":
        return footprint.spot_name
    return market


def _commitment(value: object, footprint: GpuFootprint) -> tuple[Commitment | None, str | None]:
    """The commitment a reservation's ``commitment`` tag forecasts (the plan's advice, not a
    purchase), and a note when the tag cannot be read as one."""
    if footprint.market != "reserved" or value is None or is_unknown(value):
        return None, None
    word = str(value).strip().lower()
    for commitment in PRICING_OF_TERM:
        if word == commitment:
            return commitment, None
    return None, f"{tag_keys.COMMITMENT}={value!s} is not 1y or 3y: forecasts no commitment"


def _costing_tags(
    item: StackCapacity, by_urn: dict[str, StackResource]
) -> tuple[dict[str, str], set[str]]:
    """The workload and commitment a capacity resource carries: its own tags (labels), its
    template's, or, on a type that takes none, the words in its description; and the keys
    whose value is unknown during a preview (known once deployed)."""
    found: dict[str, str] = {}
    unknown: set[str] = set()
    for source in (item.resource, item.template):
        if source is None:
            continue
        prop = tag_property(source.type)
        if prop is not None:
            entries, keys_unknown = tag_entries(prop, source.props, source.provider_props)
            for key in tag_keys.COSTING_KEYS:
                value = entries.get(prop.key_for(key))
                if is_unknown(value) or (value is None and keys_unknown):
                    unknown.add(key)
                elif isinstance(value, str) and value.strip():
                    found.setdefault(key, value.strip())
        description = source.props.get("description")
        if isinstance(description, str) and not is_unknown(description):
            for key, value in tag_keys.tags_in_description(description).items():
                found.setdefault(key, value)
    return found, unknown - set(found)


def _ancestor_name(resource: StackResource, by_urn: dict[str, StackResource]) -> str | None:
    """The name of the component a resource belongs to (its outermost ancestor below the
    stack), for resources without a workload tag; a component itself: its own name."""
    chain = [resource]
    while chain[-1].parent and chain[-1].parent in by_urn and len(chain) < 64:
        chain.append(by_urn[chain[-1].parent])
    # Not the stack itself (the engine's), whether or not a reader is given its parent link.
    components = [
        r for r in chain if cloud_of_type(r.type) is None and not r.type.startswith("pulumi:")
    ]
    return components[-1].name if components else None


# --- what is not priced --------------------------------------------------------------------


def _not_priced(
    resources: list[StackResource],
    items: list[StackCapacity],
    lines: list[ResourceCost],
    commitments: set[str],
) -> tuple[NotPriced, ...]:
    # Commitments the stack buys are priced through the reservations they pay for, or lines.
    capacity = {i.resource.urn for i in items} | commitments
    templates = {t.urn for i in items for t in (i.template, i.share_template) if t is not None}
    others: dict[str, int] = {}
    for r in resources:
        if r.urn in capacity or r.urn in templates or cloud_of_type(r.type) is None:
            continue  # priced, a template of something priced, or not a cloud resource
        others[r.type] = others.get(r.type, 0) + 1
    out: list[NotPriced] = []
    if lines:
        out.append(
            NotPriced(
                "disks, volumes and network traffic of the GPU machines",
                "gpufleet prices GPU compute; storage and egress depend on use",
            )
        )
    committed = [r.name for r in lines if r.commitment is not None]
    if committed:
        out.append(
            NotPriced(
                "the commitment purchases (reserved instances, Savings Plans, committed use "
                "discounts, Azure reservations)",
                "the reservations they pay for are priced at the committed rate; what of an "
                "account's commitment pays for nothing here is not in these totals (what of "
                "one the stack buys does is a line of its own)",
                tuple(committed),
            )
        )
    outside = [r.name for r in lines if r.outside_stack]
    if outside:
        out.append(
            NotPriced(
                "runs of job templates started outside the stack",
                "billed per run; each run's cost is shown, not counted in the monthly totals",
                tuple(outside),
            )
        )
    if others:
        listed = ", ".join(f"{t} x{n}" if n > 1 else t for t, n in sorted(others.items()))
        count = sum(others.values())
        out.append(
            NotPriced(
                f"{count} other resource{'s' if count > 1 else ''} ({listed})",
                "not read as GPU capacity: storage, networking, identity and the like, or GPU "
                "capacity of a type gpufleet does not read yet (see docs/gpu-coverage.md)",
            )
        )
    return tuple(out)
