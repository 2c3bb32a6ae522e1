"""How a group's size changes over the month (``Scaling``), shared by the group components of
all three clouds, and the weekly schedule turned into what each cloud schedules by.

Four modes, following the ways the plan's hours happen (``planner.hours``):

- ``fixed``: the group runs its size all month;
- ``on_request``: the group sits at zero until a run (or, for a serving burst, the serving
  layer) asks for capacity; later ``pulumi up`` runs leave the size alone, so a running job is
  not scaled away;
- ``schedule``: the group runs its size in the schedule's weekly windows, zero outside them;
- ``on_load``: a serving burst, from zero up to its size on its always-on base's load (the
  base's average CPU: busy, one more instance; idle, one fewer), which the group component is
  given. Never on the group's own load alone: at zero it has no instance, so no metric. (On
  GCP, whose autoscaler reads only its own group, the burst is instead a second version of the
  base's group: ``SpotGroupArgs.burst``.)

Those that scale carry the plan's expected use as the ``expected-minutes`` tag
(``tag_keys.EXPECTED_MINUTES``), which is what the cost engine prices their expected figure
with (the schedule's own hours for ``schedule``, which the engine also reads from the
schedule itself).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from gpufleet import tag_keys
from gpufleet.components.component_args import ComponentArgs
from gpufleet.planner.capabilities import ScalingMode
from gpufleet.planner.schedules import (
    MINUTES_PER_DAY,
    MINUTES_PER_WEEK,
    Run,
    WeeklySchedule,
    check_time_zone,
    from_runs,
)
from gpufleet.pricing_models import HOURS_PER_MONTH

# What the clouds allow of a scaler, for the components that build one and for gpufleet scale,
# which adds to it: GCP's shortest scaling schedule; Azure's most profiles in one autoscale
# setting.
GCP_MIN_SCHEDULE_SECONDS = 300
AZURE_MAX_PROFILES = 20


class WeeklyRun(ComponentArgs):
    """One run of the week: starts ``start_minute`` after Monday 00:00 local time."""

    start_minute: int = Field(ge=0, lt=MINUTES_PER_WEEK)
    minutes: int = Field(ge=1, le=MINUTES_PER_WEEK)


class Scaling(ComponentArgs):
    mode: ScalingMode = "fixed"
    # schedule: the weekly runs, in this IANA time zone
    time_zone: str = "UTC"
    runs: list[WeeklyRun] = Field(default_factory=list)
    # on_request, on_load: hours a month the plan expects the group to run at its size
    expected_hours: float | None = Field(default=None, ge=0, le=HOURS_PER_MONTH)

    @model_validator(mode="after")
    def _consistent(self) -> Scaling:
        check_time_zone(self.time_zone)
        if self.mode == "schedule" and not self.runs:
            raise ValueError("a schedule needs at least one run")
        if self.mode != "schedule" and self.runs:
            raise ValueError(f"runs apply to mode schedule, not {self.mode}")
        if self.mode in ("on_request", "on_load") and self.expected_hours is None:
            raise ValueError(f"mode {self.mode} needs expected_hours (the plan's expected use)")
        return self

    @property
    def scales(self) -> bool:
        """Whether something other than ``pulumi up`` sets the group's size."""
        return self.mode != "fixed"

    def initial_size(self, size: int) -> int:
        """What the group is created at: its size when fixed; zero when something else (a run,
        the schedule) sizes it."""
        return 0 if self.scales else size

    @property
    def monthly_hours(self) -> float:
        """Hours a month the group runs at its size."""
        if self.mode == "fixed":
            return HOURS_PER_MONTH
        if self.mode == "schedule":
            return min(self.week().hours_per_month, HOURS_PER_MONTH)
        return self.expected_hours or 0.0

    def expected_tags(self) -> dict[str, str]:
        """The ``expected-minutes`` tag a group that scales carries for the cost engine."""
        if not self.scales:
            return {}
        return {tag_keys.EXPECTED_MINUTES: str(round(self.monthly_hours * 60))}

    def week(self) -> WeeklySchedule:
        return from_runs(self.time_zone, [Run(r.start_minute, r.minutes) for r in self.runs])

    def weekly_runs(self) -> tuple[Run, ...]:
        """The runs, overlapping ones merged (one scheduled action per edge)."""
        return self.week().runs


def cron_at(minute_of_week: int) -> str:
    """The weekly cron (``minute hour * * day-of-week``, Sunday 0) that fires at a minute of
    the week (Monday 00:00 is 0)."""
    minute_of_week %= MINUTES_PER_WEEK
    day, minute_of_day = divmod(minute_of_week, MINUTES_PER_DAY)
    hour, minute = divmod(minute_of_day, 60)
    return f"{minute} {hour} * * {(day + 1) % 7}"
