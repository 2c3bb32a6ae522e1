"""From what a workload's GPUs did to a cheaper spec that still fits it, priced by the planner.

Per workload with enough samples (``judgement``), from its p95 utilization and memory (each
GPU's; a replica of one GPU is one GPU's samples), the candidate changes are:

- **share GPUs** (serving replicas and batch workers of one GPU each): ``sharing: auto`` with
  ``replica_gpu`` the p95 memory and compute plus ``HEADROOM`` — MIG where the GPU has it;
- **fewer replicas** (serving): replicas scaled by p95 utilization over ``TARGET_UTILIZATION``;
- **fewer GPUs per replica** (serving and batch on several GPUs each): the count scaled the
  same way, never below what the p95 memory needs;
- **fewer hours** (work on request): the hours scaled by the share of samples its GPUs were
  busy (at least ``usage_stats.BUSY_PERCENT``), plus headroom;

and each with fewer hours. Each candidate is written into the spec's text (``spec_edit``),
parsed and validated again as ``gpufleet plan`` would, and priced by the same planner over the
workload's environments; the cheapest that saves is recommended, else the workload is kept.
Samples cannot say what the spec does not measure (the latency a replica needs, a peak no
sample saw): the headroom is the margin, and the change is the user's to make (``--write``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpufleet.planner.catalog import Catalog
from gpufleet.planner.gpus import GPUS, USABLE_MEMORY_FRACTION
from gpufleet.planner.hours import hours_model
from gpufleet.planner.optimizer import Planner, workloads_in
from gpufleet.planner.packing import packs
from gpufleet.planner.plan import Placement
from gpufleet.planner.spec import GpuByModel, GpuByName, Workload, WorkloadSpec
from gpufleet.planner.spec_loader import SpecError, parse_spec
from gpufleet.pricing_models import HOURS_PER_MONTH
from gpufleet.rightsizing.judgement import Thresholds, why_not_judged
from gpufleet.rightsizing.spec_edit import edited
from gpufleet.rightsizing.usage_stats import UsageStats

# Measured need times this: a peak between samples, and growth.
HEADROOM = 1.25
# Scale replicas or GPUs so the p95 load would keep them this busy.
TARGET_UTILIZATION = 0.7
# Below this share of busy samples, work on request is taken to run idle.
BUSY_TO_TRIM = 0.6


@dataclass(frozen=True)
class Measured:
    samples: int
    memory_samples: int
    span_hours: float
    newest_age_hours: float | None
    utilization_p50: float | None
    utilization_p95: float | None
    memory_p50_gib: float | None
    memory_p95_gib: float | None
    busy_fraction: float | None

    @classmethod
    def of(cls, stats: UsageStats, now: float) -> Measured:
        return cls(
            stats.utilization_samples,
            stats.memory_samples,
            stats.span_hours,
            None if stats.last is None else (now - stats.last) / 3600,
            stats.utilization_percentile(0.5),
            stats.utilization_percentile(0.95),
            stats.memory_percentile_gib(0.5),
            stats.memory_percentile_gib(0.95),
            stats.busy_fraction,
        )


@dataclass(frozen=True)
class Recommendation:
    workload: str
    measured: Measured | None
    not_judged: str | None
    change: str
    edits: dict[str, Any] = field(default_factory=dict)
    monthly_usd: float | None = None
    recommended_monthly_usd: float | None = None

    @property
    def saving_usd(self) -> float:
        if self.monthly_usd is None or self.recommended_monthly_usd is None:
            return 0.0
        return self.monthly_usd - self.recommended_monthly_usd


def _up(value: float, step: float) -> float:
    return round(math.ceil(value / step - 1e-9) * step, 4)


def _candidates(w: Workload, m: Measured) -> list[tuple[str, dict[str, Any]]]:
    """(what it does, the workload's keys to set) for each change the samples allow."""
    found: list[tuple[str, dict[str, Any]]] = []
    p95 = (m.utilization_p95 or 0.0) / 100
    load = p95 / TARGET_UTILIZATION
    gpu = w.gpu
    # A model sized by the planner may span several GPUs: one GPU's samples are not its need.
    count = gpu.count if gpu.count is not None else (0 if isinstance(gpu, GpuByModel) else 1)
    memory = m.memory_p95_gib
    if packs(w) and count == 1 and memory is not None and w.sharing == "none":
        need = _up(max(memory, 0.25) * HEADROOM, 0.5)
        compute = min(1.0, _up(max(p95, 0.01) * HEADROOM, 0.05))
        found.append(
            (
                f"share GPUs (sharing: auto; a replica needs {need:g} GiB, "
                f"{compute * 100:.0f}% of a GPU)",
                {"sharing": "auto", "replica_gpu": {"memory_gib": need, "compute": compute}},
            )
        )
    if w.kind == "inference" and w.replicas is not None and load < 1:
        most = max(1, math.ceil(w.replicas.max * load - 1e-9))
        least = min(most, math.ceil(w.replicas.min * load - 1e-9))
        if w.replicas.min > 0:
            least = max(1, least)
        if (least, most) != (w.replicas.min, w.replicas.max):
            found.append(
                (
                    f"fewer replicas ({w.replicas.min}..{w.replicas.max} -> {least}..{most})",
                    {"replicas": {"min": least, "max": most}},
                )
            )
    if packs(w) and count > 1 and load < 1 and not isinstance(gpu, GpuByModel):
        fewer = max(1, math.ceil(count * load - 1e-9))
        # Never below what the memory in use needs, on the smallest GPU the spec allows.
        usable = (
            GPUS[gpu.name].usable_memory_gib
            if isinstance(gpu, GpuByName)
            else gpu.min_memory_gib * USABLE_MEMORY_FRACTION
        )
        if memory is not None:
            fewer = max(fewer, math.ceil(memory * count * HEADROOM / usable - 1e-9))
        if fewer < count:
            found.append((f"fewer GPUs a replica ({count} -> {fewer})", {"gpu": {"count": fewer}}))
    busy = m.busy_fraction
    if hours_model(w) == "on_request" and busy is not None and busy < BUSY_TO_TRIM:
        hours = w.hours_per_month if w.hours_per_month is not None else HOURS_PER_MONTH
        fewer_hours = max(1.0, _up(hours * busy * HEADROOM, 1.0))
        if fewer_hours < hours:
            trim = (
                f"fewer hours ({hours:g} -> {fewer_hours:g} h: busy {busy * 100:.0f}% of samples)",
                {"hours_per_month": fewer_hours},
            )
            found += [
                (f"{what}; {trim[0]}", {**keys, **trim[1]})
                for what, keys in found
                if "hours_per_month" not in keys
            ]
            found.append(trim)
    return found


def _priced(
    planner: Planner, name: str, envs: Iterable[str]
) -> tuple[float | None, Placement | None]:
    """The workload's monthly cost over ``envs`` (where it runs; None if it does not place
    in one) and its first placement, planned once."""
    spec = planner.spec
    workload = next(w for w in spec.workloads if w.name == name)
    total, first = 0.0, None
    for env in envs:
        if workload not in workloads_in(spec, env):
            continue
        placed = planner.best_placement(workload, env)
        if placed is None:
            return None, None
        total += placed.monthly_usd
        first = first or placed
    return total, first


def _shared_words(placement: Placement | None) -> str:
    if placement is None or placement.shared is None:
        return ""
    s = placement.shared
    return f" -> {s.mode} {s.replicas} a GPU"


def rightsize(
    text: str,
    spec: WorkloadSpec,
    file: str,
    catalog: Catalog,
    environments: list[str],
    usage: Mapping[str, UsageStats],
    now: float,
    limits: Thresholds,
) -> list[Recommendation]:
    """A recommendation per workload of ``spec`` (its ``text``, from ``file``)."""
    found: list[Recommendation] = []
    planner = Planner(spec, catalog)
    for w in spec.workloads:
        reason = why_not_judged(usage.get(w.name), now, limits)
        stats = usage.get(w.name)
        measured = None if stats is None or reason is not None else Measured.of(stats, now)
        current, _ = _priced(planner, w.name, environments)
        if measured is None:
            found.append(Recommendation(w.name, None, reason, "not judged", {}, current, current))
            continue
        best: tuple[float, str, dict[str, Any]] | None = None
        for what, keys in _candidates(w, measured):
            try:
                changed = parse_spec(edited(text, {w.name: keys}), file, catalog)
            except SpecError:
                continue  # a change the spec's rules refuse here (sharing a managed job, say)
            cost, placed = _priced(Planner(changed, catalog), w.name, environments)
            if cost is None or current is None or cost >= current - 0.005:
                continue
            if best is None or cost < best[0]:
                best = (cost, what + _shared_words(placed), keys)
        if current is None:
            found.append(
                Recommendation(
                    w.name,
                    measured,
                    None,
                    "not placed in these environments: gpufleet plan says why",
                    {},
                    None,
                    None,
                )
            )
            continue
        if best is None:
            p95 = measured.utilization_p95
            keep = (
                f"keep: no change costs less (p95 utilization {p95:.0f}%)"
                if p95 is not None
                else "keep"
            )
            found.append(Recommendation(w.name, measured, None, keep, {}, current, current))
        else:
            found.append(Recommendation(w.name, measured, None, best[1], best[2], current, best[0]))
    return found


def applied(text: str, recommendations: Iterable[Recommendation]) -> str:
    """``text`` with every recommended change made."""
    return edited(text, {r.workload: r.edits for r in recommendations if r.edits})
