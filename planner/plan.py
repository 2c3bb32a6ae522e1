"""What a plan is: placements per workload and environment, and their documented JSON shape."""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.clouds import Cloud
from gpufleet.planner.catalog import Offer
from gpufleet.planner.gpu_sharing import SharedGpu
from gpufleet.planner.hours import HoursModel
from gpufleet.planner.managed_services import Managed
from gpufleet.planner.pricing import PricingAssumptions
from gpufleet.planner.rates import SpotScope
from gpufleet.planner.schedules import WeeklySchedule
from gpufleet.planner.spec import EnvironmentLimits
from gpufleet.pricing_models import PRICING_ORDER, Pricing
from gpufleet.workload_kinds import Kind


@dataclass(frozen=True)
class Burst:
    instances: int
    pricing: Pricing
    hourly_usd: float
    hours_per_month: float
    monthly_usd: float
    # Hours a month the capacity is expected to bill: on spot, more than the work's hours by
    # the interruption overhead (lost work runs again).
    billed_hours: float = 0.0


@dataclass(frozen=True)
class Placement:
    name: str
    kind: Kind
    managed: Managed | None
    offer: Offer
    instance_type: str
    instances: int
    pricing: Pricing
    hourly_usd: float
    hours_per_month: float
    monthly_usd: float
    baseline_monthly_usd: float
    burst: Burst | None
    # Replicas (serving) or workers (batch) each instance runs (``planner.packing``), and how
    # they share its GPUs when they outnumber them (``planner.gpu_sharing``).
    replicas_per_instance: int = 1
    shared: SharedGpu | None = None
    # How its hours happen (``planner.hours``): always on, on a schedule, or on request.
    hours_model: HoursModel = "always_on"
    # Hours a month the base is expected to bill (see Burst.billed_hours).
    billed_hours: float = 0.0
    # The weekly runs of a scheduled workload (its base, or its burst above an always-on base).
    schedule: WeeklySchedule | None = None
    # Runs a month on request, and hours its instances idle after them before scaling down,
    # billed beside ``billed_hours`` (an Azure ML cluster's idle time-out; 0 for the rest).
    runs: int = 0
    idle_hours: float = 0.0
    # What the commitment it advises (a reserved pricing) saves a month on its base: until
    # one is held, its reservation bills this much more (the stack's cost shows it so).
    commitment_saving_usd: float = 0.0
    # The component the spec says builds its base (``runs_on``); None: the preferred one.
    runs_on: str | None = None
    # Where its spot capacity (the base's, else the burst's) is priced (``planner.rates``):
    # in its zone, or at the mean over ``spot_zones`` zones of its region; None: no spot.
    spot_scope: SpotScope | None = None
    spot_zones: int = 0

    @property
    def cloud(self) -> Cloud:
        return self.offer.cloud

    @property
    def savings_usd(self) -> float:
        return self.baseline_monthly_usd - self.monthly_usd

    @property
    def total_gpus(self) -> int:
        burst = self.burst.instances if self.burst else 0
        return self.offer.gpu_count * (self.instances + burst)

    @property
    def gpus_per_replica(self) -> int | None:
        """The whole GPUs each replica (or worker) of an instance gets: an equal share of its
        GPUs (any left over when they do not divide sit idle); None when they share GPUs."""
        if self.shared is not None:
            return None
        return self.offer.gpu_count // self.replicas_per_instance

    def sort_key(self) -> tuple[object, ...]:
        o = self.offer
        return (
            self.monthly_usd,
            o.cloud,
            o.region,
            o.zone,
            self.instance_type,
            PRICING_ORDER.index(self.pricing),
            o.gpu_name,
        )

    def as_dict(self) -> dict[str, object]:
        """The documented, stable JSON shape of one placement (see docs/planner.md, "Plan JSON")."""
        o = self.offer
        return {
            "name": self.name,
            "kind": self.kind,
            "managed": self.managed,
            "cloud": o.cloud,
            "region": o.region,
            "zone": o.zone,
            "instance_type": self.instance_type,
            "gpu_name": o.gpu_name,
            "gpus_per_instance": o.gpu_count,
            "instances": self.instances,
            "replicas_per_instance": self.replicas_per_instance,
            "gpus_per_replica": self.gpus_per_replica,
            "sharing": None if self.shared is None else self.shared.as_dict(),
            "pricing": self.pricing,
            "hours_model": self.hours_model,
            "hourly_usd": round(self.hourly_usd, 4),
            "hours_per_month": float(self.hours_per_month),
            "idle_hours": round(self.idle_hours, 4),
            "monthly_usd": round(self.monthly_usd, 2),
            "baseline_monthly_usd": round(self.baseline_monthly_usd, 2),
            "savings_usd": round(self.savings_usd, 2),
            "commitment_saving_usd": round(self.commitment_saving_usd, 2),
            "spot_priced_in": self.spot_scope,
            # Only when the spec chose one: plans that do not are as they were.
            **({"runs_on": self.runs_on} if self.runs_on is not None else {}),
            "burst": None
            if self.burst is None
            else {
                "instances": self.burst.instances,
                "pricing": self.burst.pricing,
                "hourly_usd": round(self.burst.hourly_usd, 4),
                "hours_per_month": float(self.burst.hours_per_month),
                "monthly_usd": round(self.burst.monthly_usd, 2),
            },
        }


@dataclass(frozen=True)
class Unplaced:
    name: str
    kind: Kind
    reason: str


@dataclass(frozen=True)
class EnvironmentPlan:
    environment: str
    limits: EnvironmentLimits
    placements: tuple[Placement, ...]
    unplaced: tuple[Unplaced, ...]

    @property
    def monthly_usd(self) -> float:
        return sum(p.monthly_usd for p in self.placements)

    @property
    def baseline_monthly_usd(self) -> float:
        return sum(p.baseline_monthly_usd for p in self.placements)

    @property
    def uncommitted_monthly_usd(self) -> float:
        """What the environment bills until the commitments its plan advises are held: its
        reservations at the on-demand rate."""
        return self.monthly_usd + sum(p.commitment_saving_usd for p in self.placements)

    @property
    def hourly_usd(self) -> float:
        return sum(p.hourly_usd for p in self.placements)

    @property
    def total_gpus(self) -> int:
        return sum(p.total_gpus for p in self.placements)

    @property
    def savings_usd(self) -> float:
        """What the plan saves a month against the same capacity on-demand all month."""
        return self.baseline_monthly_usd - self.monthly_usd

    @property
    def over_budget_usd(self) -> float | None:
        budget = self.limits.monthly_budget_usd
        if budget is None or self.monthly_usd <= budget:
            return None
        return self.monthly_usd - budget

    def as_dict(self) -> dict[str, object]:
        baseline, savings = self.baseline_monthly_usd, self.savings_usd
        return {
            "environment": self.environment,
            "monthly_budget_usd": self.limits.monthly_budget_usd,
            "workloads": [p.as_dict() for p in self.placements],
            "unplaced": [
                {"name": u.name, "kind": u.kind, "reason": u.reason} for u in self.unplaced
            ],
            "totals": {
                "workloads": len(self.placements),
                "gpus": self.total_gpus,
                "hourly_usd": round(self.hourly_usd, 4),
                "monthly_usd": round(self.monthly_usd, 2),
                "uncommitted_monthly_usd": round(self.uncommitted_monthly_usd, 2),
                "baseline_monthly_usd": round(baseline, 2),
                "savings_usd": round(savings, 2),
                "savings_pct": round(100 * savings / baseline, 1) if baseline else 0.0,
                "over_budget_usd": None
                if self.over_budget_usd is None
                else round(self.over_budget_usd, 2),
            },
        }


@dataclass(frozen=True)
class Plan:
    project: str
    catalog_as_of: str
    assumptions: PricingAssumptions
    environments: tuple[EnvironmentPlan, ...]

    @property
    def ok(self) -> bool:
        return all(not e.unplaced and e.over_budget_usd is None for e in self.environments)

    def as_dict(self) -> dict[str, object]:
        return {
            "project": self.project,
            "catalog_as_of": self.catalog_as_of,
            "assumptions": self.assumptions.as_dict(),
            "environments": [e.as_dict() for e in self.environments],
        }
