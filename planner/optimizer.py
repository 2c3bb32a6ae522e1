"""Choose the cheapest feasible placement for every workload of an environment.

For one workload the optimizer narrows the catalog — GPU type and count, clouds, regions, and
the filters of its ``placement_criteria`` (managed service, cluster networking for multi-node
jobs, the environment's GPU cap, a mirrored environment's instance type) — and prices what is
left with ``offer_pricing`` (spot at its expected cost, on-demand, commitments for always-on
capacity; the environment and ``max_price_per_hour`` decide which may be used). The cheapest
total monthly cost wins; ties are broken by cloud, region, zone, instance type, pricing model
and GPU name, so a plan is a function of spec and catalog.

Result types live in ``planner.plan``; which GPUs qualify, in ``planner.gpu_need``; why a
workload lands where it does, or cannot be placed, in ``planner.explanation``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import defaultdict
from collections.abc import Callable, Iterable

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.catalog import Catalog, Offer
from gpufleet.planner.explanation import Evaluation, evaluate, unplaced_reason
from gpufleet.planner.offer_pricing import Candidate, OfferBucket, Sizing, to_placement
from gpufleet.planner.placement_criteria import Criteria, criteria_for
from gpufleet.planner.plan import Burst, EnvironmentPlan, Placement, Plan, Unplaced
from gpufleet.planner.pricing import resolve_assumptions
from gpufleet.planner.quotas import Market, Quota, QuotaBook, demand, machine_covers, market_of
from gpufleet.planner.rates import RateCard
from gpufleet.planner.spec import EnvironmentLimits, Workload, WorkloadSpec
from gpufleet.pricing_models import PRICING_ORDER, Pricing
from gpufleet.process_signals import TERMINATING_SIGNALS

# Planning environments in parallel pays once a spec has this many searches (workloads times
# environments that differ in what decides a placement): a process costs ~0.1 s to start and
# its plans ~0.1 s per 10,000 placements to send back; a search, ~0.4 ms.
PARALLEL_FROM_SEARCHES = 20_000
MAX_PLANNING_PROCESSES = 8
# The planner a forked process plans with (set only while a pool runs).
_FORKED_PLANNER: Planner | None = None


def _plan_in_child(names: list[str]) -> list[EnvironmentPlan]:
    assert _FORKED_PLANNER is not None
    return [_FORKED_PLANNER.plan_environment(name) for name in names]


def _default_signals() -> None:
    """A worker dies of SIGTERM, SIGHUP and SIGINT as the default action has it: the handler
    it inherits from gpufleet (a signal as an exception, for clean-up) would have it unwind
    Python code while its parent waits on a lock it holds (a hang, seen)."""
    for number in TERMINATING_SIGNALS:
        signal.signal(number, signal.SIG_DFL)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _start_methods() -> list[str]:
    return multiprocessing.get_all_start_methods()


def workloads_in(spec: WorkloadSpec, environment: str) -> list[Workload]:
    return [w for w in spec.workloads if w.environments is None or environment in w.environments]


class Planner:
    """Plans a spec against a catalog. Build once, then plan any environment.

    ``plan`` keeps only the cheapest candidate per workload and reads offers from per
    (GPU, cloud, region) buckets; ``evaluate`` walks the same conditions stage by stage, counting
    what each excludes, for ``--explain`` and for the reason a workload cannot be placed.
    """

    def __init__(
        self, spec: WorkloadSpec, catalog: Catalog, quotas: QuotaBook | None = None
    ) -> None:
        self.spec = spec
        self.catalog = catalog
        # The account's quotas (a saved preflight): each environment is planned within them,
        # its workloads in spec order, each taking what it places from what is left.
        self.quotas = quotas
        self.assumptions = resolve_assumptions(
            spec.defaults.interruption_overhead,
            {
                cloud: discounts.model_dump()
                for cloud, discounts in spec.defaults.commitment_discounts.items()
            },
        )
        self.rates = RateCard(catalog, self.assumptions)
        self._by_gpu: dict[str, list[Offer]] = defaultdict(list)
        # (GPU, cloud, region) -> GPU count -> bucket
        self._buckets: dict[tuple[str, str, str], dict[int, OfferBucket]] = defaultdict(dict)
        for offer in catalog.offers:
            self._by_gpu[offer.gpu_name].append(offer)
            by_count = self._buckets[(offer.gpu_name, offer.cloud, offer.region)]
            by_count.setdefault(offer.gpu_count, OfferBucket([])).add(offer, self.rates)
        self._position = {id(offer): i for i, offer in enumerate(catalog.offers)}
        self._all_regions: dict[Cloud, frozenset[str]] = {
            cloud: frozenset(catalog.regions(cloud)) for cloud in CLOUDS
        }
        # (workload, environment) -> the offer a mirrored environment chose; None when the
        # environment mirrors nothing or cannot use it.
        self._pins: dict[tuple[str, str], Offer | None] = {}
        # Environments alike in what decides a placement (most specs repeat their limits over
        # many environments) choose alike: one search per workload and distinct settings.
        self._chosen: dict[tuple[object, ...], Placement | None] = {}
        self._eligible_buckets: dict[tuple[object, ...], list[OfferBucket]] = {}

    def plan(self, environments: Iterable[str] | None = None) -> Plan:
        names = list(environments) if environments is not None else list(self.spec.environments)
        return Plan(
            self.spec.project,
            self.catalog.as_of,
            self.assumptions,
            tuple(self._plan_environments(names)),
        )

    def _plan_environments(self, names: list[str]) -> list[EnvironmentPlan]:
        """Each environment's plan; a large spec's environments on every core, in processes
        forked from this one (the planner's tables shared), each given whole groups of alike
        environments so that they still share their searches. The result is the same."""
        groups: dict[tuple[object, ...], list[str]] = defaultdict(list)
        for name in names:
            limits = self.spec.environments[name]
            groups[(_deciding(limits), limits.mirror)].append(name)
        workers = min(len(groups), _cores(), MAX_PLANNING_PROCESSES)
        searches = len(groups) * len(self.spec.workloads)
        if workers < 2 or searches < PARALLEL_FROM_SEARCHES or "fork" not in _start_methods():
            return [self.plan_environment(name) for name in names]
        shares: list[list[str]] = [[] for _ in range(workers)]
        for group in sorted(groups.values(), key=len, reverse=True):
            min(shares, key=len).extend(group)
        global _FORKED_PLANNER
        _FORKED_PLANNER = self
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_default_signals)
        try:
            planned = pool.map(_plan_in_child, shares)
            # Ended by close and join, not terminate: terminate sends SIGTERM to workers
            # while holding the pool's queue lock.
            pool.close()
            pool.join()
        except BaseException:
            pool.terminate()
            raise
        finally:
            _FORKED_PLANNER = None
        by_name = {plan.environment: plan for share in planned for plan in share}
        return [by_name[name] for name in names]

    def plan_environment(self, environment: str) -> EnvironmentPlan:
        limits = self.spec.environments[environment]
        placements: list[Placement] = []
        unplaced: list[Unplaced] = []
        book = self.quotas.fresh() if self.quotas is not None else None
        for workload in workloads_in(self.spec, environment):
            over: list[Quota] = []
            best = self.best_placement(workload, environment, book, over)
            if best is None and over and self._mirrored(workload, environment) is not None:
                # The mirrored environment's choice (made without this one's quotas) does not
                # fit here: plan freely within them, as where the environment cannot use it.
                best = self.best_placement(workload, environment, book, over, pinned=False)
            if best is None:
                reason = _over_quota(over) if over else self.unplaced_reason(workload, environment)
                unplaced.append(Unplaced(workload.name, workload.kind, reason))
            else:
                placements.append(best)
                if book is not None and workload.managed is None:
                    book.place(*_quota_use(best))
        return EnvironmentPlan(environment, limits, tuple(placements), tuple(unplaced))

    def allowed_regions(self, workload: Workload, cloud: Cloud) -> frozenset[str]:
        if workload.regions is not None and cloud in workload.regions:
            return frozenset(workload.regions[cloud])
        if cloud in self.spec.defaults.regions:
            return frozenset(self.spec.defaults.regions[cloud])
        return self._all_regions[cloud]

    def best_placement(
        self,
        workload: Workload,
        environment: str,
        quotas: QuotaBook | None = None,
        over: list[Quota] | None = None,
        pinned: bool = True,
    ) -> Placement | None:
        """The cheapest placement, or None when nothing qualifies (``evaluate`` says why).
        With ``quotas``, only candidates that fit in what is left of them (a managed service's
        capacity counts against the service's own quotas, not read here); those that do not
        are skipped, and the quotas they overran added to ``over``.

        Buckets are visited cheapest lower bound first; once a bound exceeds the best cost found,
        no later bucket can win (a bound equal to it still can, on the tie-break), so we stop.
        """
        if workload.managed is not None:
            quotas = None
        pin = self._mirrored(workload, environment) if pinned else None
        key: tuple[object, ...] | None = None
        if quotas is None:
            limits = self.spec.environments[environment]
            key = (id(workload), _deciding(limits), id(pin) if pin is not None else None)
            if key in self._chosen:
                return self._chosen[key]
        # Under quotas the cheapest burst may not fit where a dearer one does: price them all.
        c = self._criteria(workload, environment, every_burst=quotas is not None, pin=pin)
        bounded: list[tuple[float, int, OfferBucket]] = []
        lower_bound = c.lower_bound
        for bucket in self._eligible(c):
            bound = lower_bound(bucket)
            if bound is not None:
                bounded.append((bound, len(bounded), bucket))
        bounded.sort()
        filters = [f.keep for f in c.filters]
        best: Candidate | None = None
        for bound, _, bucket in bounded:
            # The bound multiplies in another order than the cost; the margin keeps float
            # rounding from pruning a bucket that ties with the best (it may win the tie-break).
            if best is not None and bound > best[0] * (1 + 1e-9):
                break
            for offer in bucket.offers:
                if filters and not all(keep(offer) for keep in filters):
                    continue
                for candidate in c.price(offer) or ():
                    if best is None or candidate < best:
                        if quotas is not None:
                            short = quotas.short(*_candidate_use(candidate, c.size_on))
                            if short is not None:
                                if over is not None:
                                    over.append(short)
                                continue
                        best = candidate
        placement = None if best is None else to_placement(workload, best, c.size_on, self.rates)
        if key is not None:
            self._chosen[key] = placement
        return placement

    def _eligible(self, c: Criteria) -> list[OfferBucket]:
        """The buckets of the GPU types and counts, clouds and regions ``c`` allows, in a fixed
        order; the same for every environment where those are (kept, for many environments)."""
        key = (
            tuple((option.gpu_name, option.min_per_node) for option in c.need.options),
            tuple((cloud, c.regions[cloud]) for cloud in c.clouds),
        )
        found = self._eligible_buckets.get(key)
        if found is None:
            found = self._eligible_buckets[key] = [
                bucket
                for option in c.need.options
                for cloud in c.clouds
                for region in c.regions[cloud]
                for count, bucket in self._buckets.get((option.gpu_name, cloud, region), {}).items()
                if count >= option.min_per_node
            ]
        return found

    def evaluate(self, workload: Workload, environment: str) -> Evaluation:
        """Every priced candidate for ``workload`` in ``environment``, with the narrowing stages."""
        criteria = self._criteria(workload, environment, pin=self._mirrored(workload, environment))
        return evaluate(criteria, self._by_gpu, self._all_regions)

    def unplaced_reason(self, workload: Workload, environment: str) -> str:
        """Why ``workload`` has no placement in ``environment`` (``evaluate``'s reason)."""
        c = self._criteria(workload, environment, pin=self._mirrored(workload, environment))
        eligible = (offer for bucket in self._eligible(c) for offer in bucket.offers)
        return unplaced_reason(c, eligible, self._by_gpu, self._all_regions) or ""

    def _mirrored(self, workload: Workload, environment: str) -> Offer | None:
        """The offer the mirrored environment chose for ``workload``, if this environment
        mirrors one, places the workload there, and can use that instance type itself."""
        key = (workload.name, environment)
        if key not in self._pins:
            self._pins[key] = None
            target = self.spec.environments[environment].mirror
            if target is not None and workload in workloads_in(self.spec, target):
                chosen = self.best_placement(workload, target)
                if chosen is not None:
                    self._pins[key] = chosen.offer
                    if self.best_placement(workload, environment) is None:
                        # Not allowed here (a cap, the GPU list, no spot): plan freely.
                        self._pins[key] = None
        return self._pins[key]

    def _criteria(
        self, workload: Workload, environment: str, pin: Offer | None, every_burst: bool = False
    ) -> Criteria:
        return criteria_for(
            workload,
            environment,
            self.spec,
            rates=self.rates,
            position=self._position,
            allowed_regions=lambda cloud: self.allowed_regions(workload, cloud),
            mirrored=pin,
            every_burst=every_burst,
        )


def _deciding(limits: EnvironmentLimits) -> tuple[tuple[str, object], ...]:
    """The environment settings a placement depends on, hashable. The budget only judges a
    plan, and the mirror acts through the offer it pins; every other field counts, including
    one added later."""
    return tuple(
        (field, tuple(value) if isinstance(value, list) else value)
        for field, value in limits
        if field not in ("monthly_budget_usd", "mirror")
    )


QuotaUse = tuple[Cloud, str, str | None, list[tuple[Market, float]]]


def _uses(offer: Offer, pricing: Pricing, instances: int, burst: Burst | None) -> QuotaUse:
    """What ``instances`` of ``offer`` (and a burst) use of the quotas they count against."""
    cloud = offer.cloud
    amounts: list[tuple[Market, float]] = [
        (market_of(pricing), demand(cloud, offer.vcpus, offer.gpu_count, instances))
    ]
    if burst is not None and burst.instances:
        amount = demand(cloud, offer.vcpus, offer.gpu_count, burst.instances)
        amounts.append((market_of(burst.pricing), amount))
    covered = machine_covers(cloud, offer.instance_type, offer.gpu_name)
    return cloud, offer.region, covered, amounts


def _candidate_use(candidate: Candidate, size_on: Callable[[Offer], Sizing]) -> QuotaUse:
    offer = candidate[8]
    return _uses(offer, PRICING_ORDER[candidate[5]], size_on(offer).instances, candidate[10])


def _quota_use(placement: Placement) -> QuotaUse:
    return _uses(placement.offer, placement.pricing, placement.instances, placement.burst)


def _over_quota(over: list[Quota]) -> str:
    """Why a workload that has offers cannot be placed within the account's quotas."""
    names = sorted({f"{q.cloud} {q.region} {q.name} ({q.free:g} {q.unit} free)" for q in over})
    shown = "; ".join(names[:3]) + (f"; and {len(names) - 3} more" if len(names) > 3 else "")
    return f"every offer that fits would overrun a quota the preflight found: {shown}"


def plan_spec(
    spec: WorkloadSpec, catalog: Catalog, environments: Iterable[str] | None = None
) -> Plan:
    return Planner(spec, catalog).plan(environments)
