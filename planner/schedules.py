"""When scheduled capacity runs: weekly windows in a time zone, and the hours a month they make.

A workload's ``schedule`` (spec) is either windows (``weekdays 08:00-20:00``) or a cron with a
duration (``0 2 * * MON`` for 8 h). Both become the same thing here, a ``WeeklySchedule``: the
minutes of the week the capacity runs, in the schedule's own time zone. Weekly, because that is
what all three clouds can realize — AWS scheduled actions and GCP scaling schedules take crons,
Azure autoscale profiles take days, hours and minutes of the week — so a cron must repeat
weekly (day of month and month ``*``).

Hours a month are the share of the week that runs times ``HOURS_PER_MONTH``: the same month
gpufleet prices everything with (a 365-day year over 12), so an always-on schedule is 730 h.
Daylight-saving shifts are not counted (a window keeps its local start and length).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from gpufleet.pricing_models import HOURS_PER_MONTH

Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
DAYS: tuple[Day, ...] = get_args(Day)
DaySet = Literal["daily", "weekdays", "weekends"]
DAY_SETS: dict[DaySet, tuple[Day, ...]] = {
    "daily": DAYS,
    "weekdays": DAYS[:5],
    "weekends": DAYS[5:],
}
MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
# A cron that starts more often than this is not a schedule of runs: say so rather than build
# thousands of scheduled actions.
MAX_STARTS_PER_WEEK = 100


class ScheduleError(ValueError):
    """A schedule gpufleet cannot realize; the message says why, for a spec error line."""


@dataclass(frozen=True, order=True)
class Run:
    """One run a week: it starts ``start`` minutes into the week (Monday 00:00 is 0) and
    lasts ``minutes``."""

    start: int
    minutes: int

    @property
    def day(self) -> Day:
        return day_at(self.start)

    @property
    def clock(self) -> tuple[int, int]:
        """(hour, minute) it starts at, local time."""
        return divmod(self.start % MINUTES_PER_DAY, 60)

    @property
    def end(self) -> int:
        """Minutes into the week it ends; past MINUTES_PER_WEEK when it runs into next week."""
        return self.start + self.minutes


@dataclass(frozen=True)
class WeeklySchedule:
    """The runs of a week in a time zone, merged: none overlaps or touches another."""

    time_zone: str
    runs: tuple[Run, ...]

    @property
    def minutes_per_week(self) -> int:
        return sum(r.minutes for r in self.runs)

    @property
    def hours_per_month(self) -> float:
        return HOURS_PER_MONTH * self.minutes_per_week / MINUTES_PER_WEEK

    @property
    def always(self) -> bool:
        return self.minutes_per_week >= MINUTES_PER_WEEK


def day_at(minute_of_week: int) -> Day:
    """The day a minute of the week falls on (past the week's end: next week's)."""
    return DAYS[(minute_of_week % MINUTES_PER_WEEK) // MINUTES_PER_DAY]


def from_runs(zone: str, runs: list[Run]) -> WeeklySchedule:
    """The week these runs make, overlapping or touching ones merged."""
    return WeeklySchedule(zone, _merged(runs))


# Names the time zone database holds that are not zones a cloud's scheduler takes: the
# machine's own zone, a POSIX default rule, the "Factory" placeholder and the leap-second and
# POSIX copies of the database.
_NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})
_NOT_ZONE_PREFIXES = ("posix/", "right/")
_MAX_ZONE_CHARS = 64


@functools.cache
def _zone_names() -> frozenset[str]:
    return frozenset(
        name
        for name in available_timezones()
        if name not in _NOT_ZONES and not name.startswith(_NOT_ZONE_PREFIXES)
    )


def check_time_zone(name: str) -> str:
    """``name`` if it is an IANA time zone; ScheduleError otherwise. Only a name the time
    zone database lists is looked up: ZoneInfo reads a file of the name it is given (a
    directory, "America", or a name too long for the file system fail with OSError)."""
    try:
        if name not in _zone_names():
            raise ValueError(name)
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        shown = name if len(name) <= _MAX_ZONE_CHARS else name[:_MAX_ZONE_CHARS] + "..."
        raise ScheduleError(
            f"unknown time zone {shown!r}; use an IANA name such as UTC, Europe/Berlin or "
            "America/New_York"
        ) from None
    return name


def windows_time_zone(iana: str) -> str:
    """The Windows name Azure autoscale takes for an IANA time zone (CLDR's table, as tzlocal
    ships it); ValueError if it has none (``GMT``, ``EST5EDT``, a zone renamed since)."""
    from tzlocal.windows_tz import tz_win

    found = tz_win.get(iana)
    if found is None:
        raise ValueError(f"Azure autoscale has no time zone for {iana!r}")
    return found


def clock_minutes(text: str) -> int:
    """Minutes after midnight of ``HH:MM`` (``24:00`` is the end of the day)."""
    hours, _, minutes = text.partition(":")
    return int(hours) * 60 + int(minutes)


def from_windows(zone: str, windows: list[tuple[tuple[Day, ...], int, int]]) -> WeeklySchedule:
    """Windows of (days, start, end) in minutes after midnight; an end at or before the start
    runs past midnight into the next day."""
    runs = []
    for days, start, end in windows:
        minutes = (end - start) % MINUTES_PER_DAY or MINUTES_PER_DAY
        runs += [Run(DAYS.index(day) * MINUTES_PER_DAY + start, minutes) for day in days]
    return from_runs(zone, runs)


def from_cron(zone: str, expression: str, hours: float) -> WeeklySchedule:
    """Runs that start when a weekly cron fires (``minute hour * * day-of-week``) and last
    ``hours``."""
    starts = weekly_starts(expression)
    if len(starts) > MAX_STARTS_PER_WEEK:
        raise ScheduleError(
            f"cron {expression!r} starts {len(starts)} runs a week (at most "
            f"{MAX_STARTS_PER_WEEK}); for capacity that runs for long stretches, give windows"
        )
    length = round(hours * 60)
    if not 1 <= length <= MINUTES_PER_WEEK:
        raise ScheduleError(f"duration_hours {hours:g} is not from 1 minute to a week")
    return from_runs(zone, [Run(start, length) for start in starts])


def weekly_starts(expression: str) -> list[int]:
    """The minutes of the week (Monday 00:00 is 0) a weekly cron (``minute hour * *
    day-of-week``) fires at; ScheduleError for anything else."""
    fields = expression.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"cron {expression!r} has {len(fields)} fields; give 5: minute hour "
            "day-of-month month day-of-week"
        )
    # Imported here: only a spec with a cron pays for it (``gpufleet plan`` starts faster).
    from croniter import croniter
    from croniter.croniter import CroniterError

    try:
        expanded, _ = croniter.expand(expression)
    except (CroniterError, ValueError) as exc:
        raise ScheduleError(f"cron {expression!r} is not valid: {exc}") from None
    minutes, clock_hours, days_of_month, months, weekdays = expanded
    if days_of_month != ["*"] or months != ["*"]:
        raise ScheduleError(
            f"cron {expression!r} does not repeat weekly: give day of month and month as * "
            "(all three clouds schedule by the week)"
        )
    days = range(7) if weekdays == ["*"] else sorted({int(d) % 7 for d in weekdays})
    return sorted(
        # cron counts days from Sunday (0); the week here starts on Monday.
        ((day - 1) % 7) * MINUTES_PER_DAY + int(hour) * 60 + int(minute)
        for day in days
        for hour in (range(24) if clock_hours == ["*"] else clock_hours)
        for minute in (range(60) if minutes == ["*"] else minutes)
    )


def _merged(runs: list[Run]) -> tuple[Run, ...]:
    """Runs sorted, overlapping or touching ones merged, none longer than the week."""
    merged: list[Run] = []
    for run in sorted(runs):
        if merged and run.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Run(last.start, max(last.end, run.end) - last.start)
        else:
            merged.append(run)
    # A run past the end of the week overlaps the first runs of the next.
    while len(merged) > 1 and merged[-1].end - MINUTES_PER_WEEK >= merged[0].start:
        first, last = merged.pop(0), merged[-1]
        end = max(last.end, first.end + MINUTES_PER_WEEK)
        merged[-1] = Run(last.start, end - last.start)
    if merged and sum(r.minutes for r in merged) >= MINUTES_PER_WEEK:
        return (Run(0, MINUTES_PER_WEEK),)
    return tuple(merged)
