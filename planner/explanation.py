"""Why a workload is placed where it is, or why it cannot be (``gpufleet plan --explain`` and
``Unplaced.reason``).

``evaluate`` walks the conditions the search applies, stage by stage — GPU type and count,
clouds, regions, the criteria's filters, allowed pricing models, ``max_price_per_hour`` —
counting what each excludes, and prices every offer left. When none is left, the last stage
that excluded something gives the reason, e.g. "no 8x H100 offer under max_price_per_hour 20
in allowed regions".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from gpufleet.clouds import Cloud
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpu_need import GpuNeed
from gpufleet.planner.hours import has_base
from gpufleet.planner.offer_pricing import Candidate, Sizing, to_placement
from gpufleet.planner.placement_criteria import Criteria
from gpufleet.planner.plan import Placement
from gpufleet.planner.rates import RateCard
from gpufleet.planner.spec import EnvironmentLimits, GpuByModel, Workload


@dataclass(frozen=True)
class Stage:
    """One narrowing step: how many offers it excluded, what they failed, and the reason to give
    when it leaves nothing."""

    label: str
    excluded: int
    what: str
    empty_reason: str


@dataclass(frozen=True)
class Evaluation:
    workload: Workload
    need: GpuNeed
    stages: tuple[Stage, ...]
    candidates: tuple[Candidate, ...]
    reason: str | None
    size_on: Callable[[Offer], Sizing]
    rates: RateCard

    @property
    def best(self) -> Placement | None:
        return self._placement(min(self.candidates)) if self.candidates else None

    def ranked(self, limit: int) -> list[Placement]:
        """The cheapest candidates, one per cloud/region/instance type/GPU/pricing (cheapest
        zone)."""
        seen: set[tuple[str, str, str, int, str]] = set()
        out: list[Placement] = []
        for candidate in sorted(self.candidates):
            key = (candidate[1], candidate[2], candidate[4], candidate[5], candidate[6])
            if key not in seen:
                seen.add(key)
                out.append(self._placement(candidate))
                if len(out) == limit:
                    break
        return out

    def best_by_pricing(self) -> list[Placement]:
        """The cheapest candidate under each pricing model, cheapest first."""
        best: dict[int, Candidate] = {}
        for candidate in self.candidates:
            index = candidate[5]
            if index not in best or candidate < best[index]:
                best[index] = candidate
        return [self._placement(c) for c in sorted(best.values())]

    def _placement(self, candidate: Candidate) -> Placement:
        return to_placement(self.workload, candidate, self.size_on, self.rates)


def evaluate(
    c: Criteria,
    offers_by_gpu: Mapping[str, list[Offer]],
    all_regions: Mapping[Cloud, frozenset[str]],
) -> Evaluation:
    """Every priced candidate for the criteria's workload, with the narrowing stages."""
    workload, need = c.workload, c.need
    if not need.options:
        return Evaluation(workload, need, (), (), need.reason, c.size_on, c.rates)
    stages: list[Stage] = []
    desc = need.description

    def narrow(
        offers: list[Offer], label: str, keep: Callable[[Offer], bool], what: str, why: str
    ) -> list[Offer]:
        kept = [o for o in offers if keep(o)]
        stages.append(Stage(label, len(offers) - len(kept), what, why))
        return kept

    minimum = {o.gpu_name: o.min_per_node for o in need.options}
    offers = [
        o
        for option in need.options
        for o in offers_by_gpu.get(option.gpu_name, ())
        if o.gpu_count >= minimum[o.gpu_name]
    ]
    stages.append(Stage("gpu", 0, "GPU type and count", _no_offer_reason(need, workload)))
    cloud_list = ", ".join(c.clouds) or "none"
    offers = narrow(
        offers,
        "clouds",
        lambda o: o.cloud in c.regions,
        f"not on {cloud_list}",
        f"no {desc} offer on {cloud_list}",
    )
    summary = region_summary(c, all_regions)
    offers = narrow(
        offers,
        "regions",
        lambda o: o.region in c.regions[o.cloud],
        f"outside allowed regions ({summary})",
        f"no {desc} offer in allowed regions ({summary})",
    )
    for f in c.filters:
        offers = narrow(offers, f.label, f.keep, f.what, f.empty_reason)
    candidates: list[Candidate] = []
    no_pricing = over_cap = 0
    cap = workload.max_price_per_hour
    for offer in offers:
        priced = c.price(offer)
        if priced is None:
            no_pricing += 1
        elif not priced:
            over_cap += 1
        else:
            candidates.extend(priced)
    stages.append(
        Stage(
            "pricing",
            no_pricing,
            "no pricing model this environment allows",
            _no_pricing_reason(workload, c.limits, c.environment),
        )
    )
    if cap is not None:
        stages.append(
            Stage(
                "price", over_cap, f"over max_price_per_hour {cap:g}", _over_cap_reason(desc, cap)
            )
        )
    reason = None
    if not candidates:
        reason = next(
            (s.empty_reason for s in reversed(stages) if s.excluded), stages[0].empty_reason
        )
    return Evaluation(workload, need, tuple(stages), tuple(candidates), reason, c.size_on, c.rates)


def unplaced_reason(
    c: Criteria,
    eligible: Iterable[Offer],
    offers_by_gpu: Mapping[str, list[Offer]],
    all_regions: Mapping[Cloud, frozenset[str]],
) -> str | None:
    """Why the search placed nothing, as ``evaluate`` says it; ``eligible``: the offers of
    the criteria's GPU types and counts, clouds and regions. When one of them passes every
    filter, nothing could be priced and the pricing stages say why (over the price cap, else
    no pricing model allowed): no stage-by-stage narrowing of every offer is needed."""
    keep = [f.keep for f in c.filters]
    survivors = (offer for offer in eligible if all(k(offer) for k in keep))
    first = next(survivors, None)
    if first is None:
        return evaluate(c, offers_by_gpu, all_regions).reason  # no offer to price: quick
    cap = c.workload.max_price_per_hour
    if cap is not None and any(c.price(offer) == [] for offer in (first, *survivors)):
        return _over_cap_reason(c.need.description, cap)
    return _no_pricing_reason(c.workload, c.limits, c.environment)


def _over_cap_reason(description: str, cap: float) -> str:
    return f"no {description} offer under max_price_per_hour {cap:g} in allowed regions"


def _no_offer_reason(need: GpuNeed, workload: Workload) -> str:
    if isinstance(workload.gpu, GpuByModel):
        per_node = ", ".join(f"{o.min_per_node}x {o.gpu_name}" for o in need.options[:4])
        return (
            f"{need.description} needs {per_node} per instance across {workload.nodes} node(s), "
            "and no instance has that many; raise nodes"
        )
    return f"no offer with {need.description} per instance in the catalog"


def _no_pricing_reason(workload: Workload, limits: EnvironmentLimits, env: str) -> str:
    if workload.runs_on is not None:
        builds = ", ".join(sorted(CAPABILITIES[workload.runs_on].pricings))
        return (
            f"its component {workload.runs_on} (runs_on) builds only {builds}, which {env}'s "
            "limits and the workload's shape do not allow here"
        )
    if has_base(workload) and not limits.allow_on_demand and limits.max_commitment == "none":
        return (
            f"always-on capacity needs on-demand or a commitment; {env} allows neither "
            "(allow_on_demand: false, max_commitment: none)"
        )
    if not limits.allow_on_demand and not workload.interruptible:
        if has_base(workload):
            return (
                f"{env} does not allow on-demand and the burst replicas are not "
                "interruptible (spot needs interruptible: true)"
            )
        return (
            f"{env} does not allow on-demand and the workload is not interruptible "
            "(spot needs interruptible: true)"
        )
    return f"no offer with a spot price in allowed regions, and {env} does not allow on-demand"


def region_summary(criteria: Criteria, all_regions: Mapping[Cloud, frozenset[str]]) -> str:
    """The allowed regions per cloud, ``any`` where every region is."""
    parts = []
    for cloud in criteria.clouds:
        allowed = criteria.regions[cloud]
        if allowed == all_regions[cloud]:
            parts.append(f"{cloud}: any")
        else:
            parts.append(f"{cloud}: {', '.join(sorted(allowed))}")
    return "; ".join(parts)
