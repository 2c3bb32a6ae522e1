"""How a workload's hours happen, and how many there are a month.

Three models (``HoursModel``), each realized differently by the stacks:

- ``always_on``: runs all month. Serving with ``always_on`` keeps ``replicas.min`` (the base,
  which may be on a commitment); the burst up to ``replicas.max`` sits at zero until the
  base's load asks, for its expected hours; serving
  without it, and without a schedule or fewer hours, runs ``replicas.max`` all month.
- ``schedule``: runs in the schedule's weekly windows, at zero (or at the always-on base)
  outside them; its hours a month follow from the windows.
- ``on_request``: training and batch without a schedule (and serving given fewer than 730
  hours): capacity at zero until a run asks for it (``gpufleet scale``); ``hours_per_month``
  is the expected use, priced, but bounds nothing.
"""

from __future__ import annotations

from typing import Literal

from gpufleet.planner.runs import AZURE_ML_IDLE_SECONDS, runs_per_month
from gpufleet.planner.spec import Workload
from gpufleet.pricing_models import HOURS_PER_MONTH

HoursModel = Literal["always_on", "schedule", "on_request"]
# Given hours_per_month and a schedule, they may differ by this share of the schedule's hours.
HOURS_TOLERANCE = 0.05


def hours_model(workload: Workload) -> HoursModel:
    if workload.schedule is not None:
        return "schedule"
    if workload.always_on:
        return "always_on"
    given = workload.hours_per_month
    if workload.kind == "inference" and (given is None or given >= HOURS_PER_MONTH):
        return "always_on"
    return "on_request"


def has_base(workload: Workload) -> bool:
    """Whether some of its capacity runs all month whatever the schedule: always-on serving
    with at least one replica at its minimum."""
    replicas_min = workload.replicas.min if workload.replicas else 1
    return workload.always_on and replicas_min > 0


def variable_hours(workload: Workload) -> float:
    """Hours a month the capacity above the base runs (all of it, without a base)."""
    if workload.schedule is not None:
        return workload.schedule.weekly().hours_per_month
    given = workload.hours_per_month
    return HOURS_PER_MONTH if given is None else given


def idle_hours(workload: Workload) -> tuple[int, float]:
    """(runs a month, hours its capacity idles after them) for a workload whose capacity keeps
    its nodes for a while after each run (an Azure ML cluster on request); (0, 0.0) for the
    rest, which ends with its run."""
    if workload.managed != "azureml" or hours_model(workload) != "on_request":
        return 0, 0.0
    runs = runs_per_month(variable_hours(workload))
    return runs, runs * AZURE_ML_IDLE_SECONDS / 3600
