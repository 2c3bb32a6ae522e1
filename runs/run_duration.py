"""How long a run lasts: ``--for`` as people write it (``8h``, ``90m``, ``1h30m``, ``2d``).

Days, hours and minutes, largest first, each at most once, ASCII digits only; bounded from
``MIN_DURATION`` (GCP's shortest scaling schedule, and no cloud's guard is finer) to
``MAX_DURATION`` (30 days, the furthest Cloud Tasks schedules a GCP group's guard; a longer
run is not on request, it is capacity the spec should say).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from gpufleet.components.scaling import GCP_MIN_SCHEDULE_SECONDS

MIN_DURATION = timedelta(seconds=GCP_MIN_SCHEDULE_SECONDS)
MAX_DURATION = timedelta(days=30)
_FORM = re.compile(r"(?:(?P<d>[0-9]+)d)?(?:(?P<h>[0-9]+)h)?(?:(?P<m>[0-9]+)m)?")
# Enough digits for any duration within the bounds in one unit (30 days is 43,200 minutes).
_MAX_DIGITS = 6


def parse_duration(text: str) -> timedelta:
    """The duration ``text`` says; ValueError saying what is wrong and what is accepted."""
    found = _FORM.fullmatch(text.strip())
    if not text.strip() or found is None or not any(found.groupdict().values()):
        raise ValueError(
            f"--for {text!r} is not a duration: write days, hours and minutes such as 8h, "
            "90m, 1h30m or 2d"
        )
    values = {unit: value for unit, value in found.groupdict().items() if value is not None}
    if any(len(value) > _MAX_DIGITS for value in values.values()):
        raise ValueError(f"--for {text!r} is longer than {describe_duration(MAX_DURATION)}")
    duration = timedelta(
        days=int(values.get("d", 0)), hours=int(values.get("h", 0)), minutes=int(values.get("m", 0))
    )
    if not MIN_DURATION <= duration <= MAX_DURATION:
        raise ValueError(
            f"--for {text!r} is {describe_duration(duration)}; a run lasts from "
            f"{describe_duration(MIN_DURATION)} to {describe_duration(MAX_DURATION)}"
        )
    return duration


def describe_duration(duration: timedelta) -> str:
    """``1d2h30m``-style text for a duration of whole minutes (``0m`` for none)."""
    minutes = int(duration.total_seconds()) // 60
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    text = "".join(f"{n}{unit}" for n, unit in ((days, "d"), (hours, "h"), (minutes, "m")) if n)
    return text or "0m"


@dataclass(frozen=True)
class RunWindow:
    """When a run starts (now, UTC) and when its guard returns the capacity to zero; no end
    for ``--to 0``, which ends a run."""

    start: datetime
    until: datetime | None

    @staticmethod
    def from_now(duration: timedelta | None, now: datetime | None = None) -> RunWindow:
        start = now or datetime.now(UTC)
        return RunWindow(start, None if duration is None else start + duration)
