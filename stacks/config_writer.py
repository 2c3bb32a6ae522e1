"""``gpufleet generate``'s settings: a planned environment as the stack config keys gpufleet
owns (``gpufleet:*`` and ``pulumi:disable-default-providers``), and the ``site:`` settings the
program will need that the user has not set yet. ``stack_file`` splices the keys into the file.

The keys are a pure function of the plan: the same spec and catalog give the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufleet.clouds import PULUMI_PACKAGES
from gpufleet.planner.capabilities import CAPABILITIES
from gpufleet.planner.plan import EnvironmentPlan, Placement
from gpufleet.planner.pricing import DEFAULT_COMMITMENT_DISCOUNTS, PricingAssumptions
from gpufleet.planner.schedules import WeeklySchedule
from gpufleet.planner.spec import WorkloadSpec
from gpufleet.stacks import config_keys
from gpufleet.stacks.placement_parts import placement_parts
from gpufleet.stacks.stack_config import (
    Limits,
    ProviderSetting,
    ReplicaSlots,
    ScheduledRun,
    ScheduleSetting,
    SharedGpuSetting,
    StackSettings,
    WorkloadPlacement,
)


def stack_settings(
    spec: WorkloadSpec,
    env: EnvironmentPlan,
    catalog_as_of: str,
    assumptions: PricingAssumptions | None = None,
) -> StackSettings:
    """``assumptions``: what the plan priced with; discounts other than the defaults are
    written into the stack config, where the cost engine prices reserved capacity with them."""
    limits = env.limits
    discounts = None
    if assumptions is not None and assumptions.commitment_discounts != DEFAULT_COMMITMENT_DISCOUNTS:
        discounts = assumptions.commitment_discounts
    providers: dict[str, ProviderSetting] = {}
    workloads = []
    by_name = {w.name: w for w in spec.workloads}
    for p in env.placements:
        provider_name = f"{p.cloud}-{p.offer.region}"
        providers.setdefault(
            provider_name, ProviderSetting(name=provider_name, cloud=p.cloud, region=p.offer.region)
        )
        workload = by_name[p.name]
        workloads.append(
            WorkloadPlacement(
                name=p.name,
                kind=p.kind,
                cloud=p.cloud,
                region=p.offer.region,
                zone=p.offer.zone,
                instance_type=p.instance_type,
                gpu=p.offer.gpu_name,
                gpus_per_instance=p.offer.gpu_count,
                replica_slots=_replica_slots(p),
                provider=provider_name,
                parts=placement_parts(p),
                tags=dict(sorted(workload.tags.items())),
                max_price_per_hour=workload.max_price_per_hour,
                schedule=_schedule_setting(p.schedule),
                monthly_usd=round(p.monthly_usd, 2),
            )
        )
    return StackSettings(
        environment=env.environment,
        project=spec.project,
        owner=spec.owner,
        cost_center=spec.cost_center,
        catalog_as_of=catalog_as_of,
        limits=Limits(
            max_gpus_per_workload=limits.max_gpus_per_workload,
            allowed_gpus=limits.allowed_gpus,
            monthly_budget_usd=limits.monthly_budget_usd,
            allow_on_demand=limits.allow_on_demand,
            max_commitment=limits.max_commitment,
        ),
        providers=sorted(providers.values(), key=lambda p: p.name),
        workloads=sorted(workloads, key=lambda w: w.name),
        commitment_discounts=discounts,
    )


def _replica_slots(p: Placement) -> ReplicaSlots | None:
    """How the placement's instances are shared by its replicas; None for one an instance."""
    if p.replicas_per_instance == 1:
        return None
    shared = p.shared
    return ReplicaSlots(
        per_instance=p.replicas_per_instance,
        gpus_each=p.gpus_per_replica,
        shared=None
        if shared is None
        else SharedGpuSetting(
            mode=shared.mode,
            per_gpu=shared.replicas,
            mig_profiles=list(shared.mig_profiles) or None,
            memory_gib=shared.memory_gib,
            compute_percent=shared.compute_percent,
        ),
    )


def generated_config(settings: StackSettings) -> dict[str, Any]:
    """The keys gpufleet owns, in the order they are written."""
    dumped = settings.model_dump(by_alias=True, exclude_none=True, mode="json")
    config = {f"{config_keys.GPUFLEET_PREFIX}{key}": value for key, value in dumped.items()}
    packages = sorted({PULUMI_PACKAGES[p.cloud] for p in settings.providers})
    config["pulumi:disable-default-providers"] = packages
    return config


@dataclass(frozen=True)
class SiteNeed:
    key: str
    workloads: tuple[str, ...]


def missing_site_settings(settings: StackSettings, config: dict[str, Any]) -> list[SiteNeed]:
    """``site:`` settings the program will need that the stack file's ``config`` (the user's
    keys survive regeneration, so the existing file's) does not have yet."""
    needs: dict[str, list[str]] = {}
    for w in settings.workloads:
        for part in w.parts:
            for key in CAPABILITIES[part.component].needed_site_keys(w.region):
                needs.setdefault(key, []).append(w.name)
    missing = []
    for key, workloads in needs.items():
        if not _has_setting(config, key):
            missing.append(SiteNeed(key, tuple(dict.fromkeys(workloads))))
    return missing


def _has_setting(config: Any, dotted: str) -> bool:
    top, *path = dotted.split(".")
    node = config.get(top) if isinstance(config, dict) else None
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return node is not None


def _schedule_setting(schedule: WeeklySchedule | None) -> ScheduleSetting | None:
    if schedule is None:
        return None
    return ScheduleSetting(
        time_zone=schedule.time_zone,
        runs=[ScheduledRun(start_minute=r.start, minutes=r.minutes) for r in schedule.runs],
    )
