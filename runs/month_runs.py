"""``gpufleet runs`` short of rendering: what each part on request has run this calendar month,
read from the ledger ``gpufleet scale`` keeps on its group (``usage_ledger``), against the
hours its plan gives it, with what that has cost so far.

Read only. Every workload part a run can size is looked up in its cloud, through the same
finders ``gpufleet scale`` uses; a part whose cloud cannot be read (credentials, permissions,
the stack not deployed) is listed with why, and the others still are. What a run has cost so
far is its hours at full size times the part's rate at full size (its instances at the
catalog's rate for its pricing: spot's expected cost, not the bill's).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from gpufleet.clouds import Cloud
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.runs.cloud_error import CloudError
from gpufleet.runs.run_parts import PartRun, ScaleInputError, unscalable_reason
from gpufleet.runs.scale_run import find_group, planned_hours
from gpufleet.runs.stack_target import StackTarget, check_site, read_stack
from gpufleet.runs.usage_ledger import Ledger, month_of, read_ledger
from gpufleet.stacks.stack_config import Part, WorkloadPlacement


@dataclass(frozen=True)
class PartMonth:
    workload: str
    component: str
    cloud: Cloud
    region: str
    scaling: str
    planned_hours: float  # a month at full size (0: its schedule runs them)
    hourly_usd: float | None  # at full size; None when the catalog has no rate
    ledger: Ledger | None  # None when its cloud could not be read
    problem: str | None = None  # why not

    @property
    def cost_so_far(self) -> float | None:
        if self.ledger is None or self.hourly_usd is None:
            return None
        return self.ledger.hours * self.hourly_usd


@dataclass(frozen=True)
class MonthRuns:
    environment: str
    month: str
    parts: list[PartMonth]


def month_runs(
    program: Path,
    stack: str,
    config_file: Path | None,
    workload: str | None = None,
    now: datetime | None = None,
) -> MonthRuns:
    """The month's runs of every part on request (of ``workload`` alone, when given);
    ScaleInputError for a stack config that cannot be read or an unknown workload."""
    moment = now or datetime.now(UTC)
    target = read_stack(program, stack, config_file)
    workloads = target.settings.workloads
    if workload is not None:
        workloads = [w for w in workloads if w.name == workload]
        if not workloads:
            names = ", ".join(w.name for w in target.settings.workloads) or "none"
            raise ScaleInputError(
                [f"no workload {workload!r} in environment {stack}; workloads: {names}"]
            )
    parts = [
        _part_month(target, w, index, part, moment)
        for w in workloads
        for index, part in enumerate(w.parts)
        if unscalable_reason(w, part) is None
    ]
    return MonthRuns(target.settings.environment, month_of(moment), parts)


def _part_month(
    target: StackTarget, workload: WorkloadPlacement, index: int, part: Part, now: datetime
) -> PartMonth:
    kind = CAPABILITIES[part.component].group
    assert kind is not None  # unscalable_reason said it scales
    found = PartMonth(
        workload.name,
        part.component,
        workload.cloud,
        workload.region,
        part.scaling,
        planned_hours(part),
        _hourly(target, workload, part),
        None,
    )
    try:
        check_site(target, workload)
        group = find_group(PartRun(workload, index, part, kind, 0), target)
    except ScaleInputError as exc:
        return replace(found, problem="; ".join(exc.problems))
    except CloudError as exc:
        return replace(found, problem=str(exc))
    return replace(found, ledger=read_ledger(group.ledger_tags, now))


def _hourly(target: StackTarget, workload: WorkloadPlacement, part: Part) -> float | None:
    discounts = target.settings.commitment_discounts
    rates = shipped_rate_card(
        None
        if discounts is None
        else {cloud: dict(terms.items()) for cloud, terms in discounts.items()}
    )
    attached = (workload.gpu, workload.gpus_per_instance) if workload.cloud == "gcp" else None
    # Spot where the part runs: its zone's price when its component holds it in one zone.
    where = {"zone": workload.zone, "one_zone": CAPABILITIES[part.component].one_zone}
    rate = rates.rate(
        workload.cloud, workload.instance_type, workload.region, part.pricing, attached, **where
    )
    if rate is None and attached is not None:
        rate = rates.rate(
            workload.cloud, workload.instance_type, workload.region, part.pricing, None, **where
        )
    return None if rate is None else rate.hourly * part.instances
