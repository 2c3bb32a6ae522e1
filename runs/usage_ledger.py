"""What a group on request has run this calendar month, kept on the group itself, and the rule
that holds its runs to the plan.

The plan prices a part on request for its expected hours a month at its full size
(``Part.expected_hours``: the spec's hours, plus spot's interruption overhead). ``gpufleet
scale`` books each run against them before it sizes anything: a run of N of the part's M
instances for D hours books N/M x D hours. A run that would take the part past its planned
hours is refused unless given ``--over-plan REASON``, which is recorded on the group. A part
on a schedule has none to book against (its schedule runs its planned hours): every run
beside it is over the plan. ``--to 0`` before a run's end gives back what it had not run.

The ledger is three tags (labels, or words of a GCP autoscaler's description) on the group,
readable by anyone who can read the group, written with each run (``tag_keys``):
``gpufleet-used`` ``<month>_<minutes>_<runs>`` (month ``2026-11``, whole minutes at full
size, runs), ``gpufleet-last-run`` ``<start>_<end>_<minutes>`` (UTC ``20261127t1541``; what
``--to 0`` gives back from) and ``gpufleet-over-plan`` (the last reason given). Values keep to
GCP's label alphabet. A run is booked in the month it starts (all of it). A ledger of an
earlier month starts the month at zero; one that cannot
be read (edited by hand, or of a month to come) is refused as over the plan, as nothing can
tell what was used. Two runs started at once both read the ledger before either writes it:
the last write wins (a run is booked once it has started; runs of one workload are meant to
be started one at a time).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from gpufleet import tag_keys
from gpufleet.runs.run_duration import RunWindow

_MONTH = "%Y-%m"
_MOMENT = "%Y%m%dt%H%M"
_USED = re.compile(r"([0-9]{4}-[0-9]{2})_([0-9]{1,9})_([0-9]{1,6})")
_LAST = re.compile(r"([0-9]{8}t[0-9]{4})_([0-9]{8}t[0-9]{4})_([0-9]{1,9})")


class OverPlanError(Exception):
    """A run the plan has no hours left for (exit 1): what it would use, and how to run it
    anyway."""


@dataclass(frozen=True)
class LastRun:
    start: datetime
    end: datetime
    minutes: int  # booked, at full size


@dataclass(frozen=True)
class Ledger:
    month: str  # ``2026-11``
    minutes: int  # at full size, this month
    runs: int
    last: LastRun | None = None
    over_plan: str | None = None
    unreadable: str | None = None  # why it could not be read

    @property
    def hours(self) -> float:
        return self.minutes / 60


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(_MONTH)


def read_ledger(tags: Mapping[str, str] | None, now: datetime) -> Ledger:
    """The group's ledger for ``now``'s month (empty in a new month, or on a group no run has
    booked)."""
    tags = tags or {}
    month = month_of(now)
    used, last = tags.get(tag_keys.RUN_USED), tags.get(tag_keys.RUN_LAST)
    over = tags.get(tag_keys.RUN_OVER_PLAN) or None
    if used is None:
        return Ledger(month, 0, 0, over_plan=over)
    found = _USED.fullmatch(used)
    try:
        if found is None:
            raise ValueError(used)
        datetime.strptime(found.group(1), _MONTH)  # a month that is one
        last_run = _last_run(last)
    except ValueError:
        why = f"{tag_keys.RUN_USED}={used!r}, {tag_keys.RUN_LAST}={last!r} is not a ledger"
        return Ledger(month, 0, 0, over_plan=over, unreadable=why)
    if found.group(1) > month:
        # A month to come: written by a clock ahead of this one, or by hand.
        why = f"{tag_keys.RUN_USED}={used!r} is of a month after {month}"
        return Ledger(month, 0, 0, over_plan=over, unreadable=why)
    if found.group(1) != month:
        return Ledger(month, 0, 0, last_run, over)
    return Ledger(month, int(found.group(2)), int(found.group(3)), last_run, over)


def _last_run(text: str | None) -> LastRun | None:
    """The last run, None without one; ValueError for a value that is not one."""
    if not text:
        return None
    found = _LAST.fullmatch(text)
    if found is None:
        raise ValueError(text)
    start, end = (datetime.strptime(found.group(i), _MOMENT).replace(tzinfo=UTC) for i in (1, 2))
    if end < start:
        raise ValueError(text)
    return LastRun(start, end, int(found.group(3)))


def booked_minutes(instances: int, part_instances: int, window: RunWindow) -> int:
    """Minutes at the part's full size a run books: its share of the part, for its time."""
    if window.until is None or part_instances <= 0:
        return 0
    minutes = (window.until - window.start).total_seconds() / 60
    return math.ceil(minutes * instances / part_instances)


@dataclass(frozen=True)
class Booking:
    """One part's run against its plan: what it books, and what the ledger then says."""

    part: str  # for messages: the workload and component
    planned_hours: float  # a month, at full size (0 for a part its schedule runs)
    minutes: int
    window: RunWindow
    over_plan: str | None  # --over-plan's reason

    def check(self, ledger: Ledger) -> None:
        """OverPlanError when the run would take the part past its plan (without a reason)."""
        if self.over_plan is not None or not self.minutes:
            return
        if ledger.unreadable is not None:
            raise OverPlanError(
                f"{self.part}: its ledger cannot be read ({ledger.unreadable}), so what it has "
                "used this month is not known; pass --over-plan REASON to run it anyway"
            )
        after = (ledger.minutes + self.minutes) / 60
        if after <= self.planned_hours + 1 / 60:
            return
        planned = (
            f"its planned {self.planned_hours:g} h a month at full size"
            if self.planned_hours
            else "its plan, which its weekly schedule runs (no hours on request)"
        )
        raise OverPlanError(
            f"{self.part}: this run books {self.minutes / 60:g} h at full size; with the "
            f"{ledger.hours:g} h used in {ledger.month} ({ledger.runs} run(s)) that is "
            f"{after:g} h, past {planned}; pass --over-plan REASON to run it anyway (the "
            "reason is recorded on the group), or change the spec's hours"
        )

    def after(self, ledger: Ledger) -> dict[str, str]:
        """The ledger's tags once the run has started (or, ``--to 0``, ended)."""
        if self.window.until is None:
            return _ended(ledger, self.window.start)
        start, end = self.window.start, self.window.until
        tags = {
            tag_keys.RUN_USED: f"{ledger.month}_{ledger.minutes + self.minutes}_{ledger.runs + 1}",
            tag_keys.RUN_LAST: f"{_moment(start)}_{_moment(end, up=True)}_{self.minutes}",
        }
        if self.over_plan is not None:
            tags[tag_keys.RUN_OVER_PLAN] = over_plan_value(self.over_plan)
        elif ledger.over_plan is not None:
            tags[tag_keys.RUN_OVER_PLAN] = ledger.over_plan
        return tags


def _ended(ledger: Ledger, now: datetime) -> dict[str, str]:
    """The ledger after ``--to 0``: the last run's time not run given back (this month's);
    one that cannot be read is left as it is (ending a run does not make it readable)."""
    if ledger.unreadable is not None:
        return {}
    minutes = ledger.minutes
    last = ledger.last
    tags: dict[str, str] = {}
    if last is not None and last.start <= now < last.end and month_of(last.start) == ledger.month:
        share = (last.end - now) / (last.end - last.start)
        back = min(math.floor(last.minutes * share), minutes)
        minutes -= back
        ended = LastRun(last.start, now, last.minutes - back)
        tags[tag_keys.RUN_LAST] = (
            f"{_moment(ended.start)}_{_moment(ended.end, up=True)}_{ended.minutes}"
        )
    tags[tag_keys.RUN_USED] = f"{ledger.month}_{minutes}_{ledger.runs}"
    if ledger.over_plan is not None:
        tags[tag_keys.RUN_OVER_PLAN] = ledger.over_plan
    return tags


def _moment(moment: datetime, *, up: bool = False) -> str:
    """Whole minutes: a start rounded down, an end (``up``) up: a run is not shorter in the
    ledger than it was."""
    rounded = moment.astimezone(UTC)
    if up and (rounded.second or rounded.microsecond):
        rounded += timedelta(minutes=1)
    return rounded.replace(second=0, microsecond=0).strftime(_MOMENT)


def over_plan_value(reason: str) -> str:
    """A reason as a tag value every cloud takes (GCP's label alphabet, 63 characters)."""
    return tag_keys.gcp_label_value(reason.strip()) or "given"
