"""Defaults for the environments every team has: dev, staging and prod.

A spec's ``environments`` entry overrides any of these fields; fields it does not set come from
the profile of the same name. Other environment names get no profile (the field defaults).

- dev: spot / low-priority only, no commitments, at most 8 GPUs and 2 replicas per workload —
  a place to try things, never a place that runs up a bill;
- staging: the same instance types as prod (``mirror``) at half the replicas, no commitments —
  it should fail the way prod would, but nobody signs a 1-year term for it;
- prod: on-demand and reserved / committed-use allowed (the field defaults).
"""

from __future__ import annotations

from typing import Any

from gpufleet.planner.spec import EnvironmentLimits

PROFILES: dict[str, dict[str, Any]] = {
    "dev": {
        "allow_on_demand": False,
        "max_commitment": "none",
        "max_gpus_per_workload": 8,
        "max_replicas": 2,
    },
    "staging": {"max_commitment": "none", "replica_scale": 0.5, "mirror": "prod"},
    "prod": {},
}


def with_profile(
    environment: str, limits: EnvironmentLimits, spec_environments: dict[str, EnvironmentLimits]
) -> EnvironmentLimits:
    """``limits`` with the profile's values for the fields the spec left unset.

    A profile mirrors only an environment the spec defines and that mirrors nothing itself.
    """
    profile = PROFILES.get(environment, {})
    update = {
        field: value
        for field, value in profile.items()
        if field not in limits.model_fields_set
        and not (field == "mirror" and not _mirrorable(value, environment, spec_environments))
    }
    return limits.model_copy(update=update) if update else limits


def _mirrorable(target: str, environment: str, spec: dict[str, EnvironmentLimits]) -> bool:
    return target != environment and target in spec and spec[target].mirror is None
