"""How much a group's own scaling schedule runs it: capacity-unit minutes a week.

Two shapes, as the clouds write schedules:

- **set points** (AWS scheduled actions, Azure recurring profiles): at a minute of the week the
  group is set to a size, which holds until the next set point (around the week's end);
- **windows** (GCP scaling schedules): from a minute of the week for a duration the group is
  held at least at a size; where windows overlap, the largest holds, and outside them the
  group's floor.

Minutes of the week are local to each schedule's time zone; a week has the same minutes in
every zone, so one zone's total does not depend on it. Entries in several zones are moved to
UTC's week by each zone's offset (``in_utc``), daylight-saving shifts not counted, as in the
planner.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gpufleet.planner.schedules import MINUTES_PER_WEEK, weekly_starts

# More changes a week than any schedule makes (a minute-by-minute cron is 10,080): a schedule
# past it is not read (the declared use prices the group), so a hostile one costs no time.
MAX_CHANGES = 100_000

SetPoint = tuple[int, float]  # (minute of the week, size from then on)
Window = tuple[int, int, float]  # (minute of the week, minutes, size at least)


def set_point_use(points: Iterable[SetPoint], least: float, most: float) -> float | None:
    """Unit-minutes a week of a group sized by ``points``, each size kept within its bounds;
    None without any point. Two points at one minute: the larger holds."""
    at: dict[int, float] = {}
    for minute, size in points:
        key = minute % MINUTES_PER_WEEK
        at[key] = max(at.get(key, size), size)
    if not at:
        return None
    starts = sorted(at)
    total = 0.0
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else starts[0] + MINUTES_PER_WEEK
        total += _within(at[start], least, most) * (end - start)
    return total


def bounded_use(
    desired_points: Iterable[SetPoint],
    min_points: Iterable[SetPoint],
    max_points: Iterable[SetPoint],
    desired: float,
    least: float,
    most: float,
) -> float:
    """Unit-minutes a week of a group whose schedule sets its desired, min and max sizes, as
    an Auto Scaling group's scheduled actions do. A size holds until the next action sets it
    again (around the week's end); an action raising the min above the desired size raises
    the desired size with it, and one lowering the max below it lowers it, but a min lowered
    again does not lower the desired size (AWS's rules): a min raised once a week and never
    lowered by a desired set point holds all week. ``desired``, ``least`` and ``most`` are the
    group's own sizes, in force until its schedule first sets each. At one minute the bounds
    change before the desired size, and of two desired sizes the larger holds."""
    events: list[tuple[int, int, float]] = []  # (minute, 0 min / 1 max / 2 desired, size)
    for kind, points in enumerate((min_points, max_points, desired_points)):
        events += [(minute % MINUTES_PER_WEEK, kind, size) for minute, size in points]
    if not events:
        return _within(desired, least, most) * MINUTES_PER_WEEK
    events.sort()
    size, low, high = _within(desired, least, most), least, most
    total = 0.0
    # The week repeats: its first pass settles what carries over its end (each change is a
    # clamp, so a second pass starts where every later one would); the second is counted.
    for counted in (False, True):
        last = 0
        for minute, kind, value in events:
            if counted:
                total += size * (minute - last)
            last = minute
            if kind == 0:
                low = value
                size = max(size, low)
            elif kind == 1:
                high = value
                size = min(size, high)
            else:
                size = _within(value, low, high)
        if counted:
            total += size * (MINUTES_PER_WEEK - last)
    return total


def window_use(windows: Iterable[Window], least: float, most: float) -> float | None:
    """Unit-minutes a week of a group held at least at each window's size while it lasts, and
    at ``least`` otherwise; None without any window. A sweep over the windows' edges with the
    sizes in force counted, so any number of windows and sizes costs n log n."""
    found = list(windows)
    if not found:
        return None
    edges: list[tuple[int, int, float]] = []  # (minute, +1 starts / -1 ends, size)
    for start, minutes, size in found:
        held = _within(size, least, most)
        begin = start % MINUTES_PER_WEEK
        end = begin + min(max(minutes, 0), MINUTES_PER_WEEK)
        pieces = [(begin, min(end, MINUTES_PER_WEEK))]
        if end > MINUTES_PER_WEEK:  # runs into next week: its tail is this week's start
            pieces.append((0, end - MINUTES_PER_WEEK))
        edges += [e for a, b in pieces if b > a for e in ((a, 1, held), (b, -1, held))]
    edges.sort()
    in_force: Counter[float] = Counter()
    heap: list[float] = []  # sizes in force, negated (largest first); stale ones skipped
    total, last = 0.0, 0
    for minute, change, size in edges:
        while heap and not in_force[-heap[0]]:
            heapq.heappop(heap)
        total += max(-heap[0] if heap else least, least) * (minute - last)
        last = minute
        in_force[size] += change
        if change > 0:
            heapq.heappush(heap, -size)
    return total + least * (MINUTES_PER_WEEK - last)


# A Monday in winter: each zone's offset from UTC there is what minutes of its week are moved by
# to compare with another zone's (daylight-saving shifts aside, as in the planner).
_REFERENCE_MONDAY = datetime(2026, 1, 5)


def utc_offset_minutes(zone: str) -> int | None:
    """Minutes an IANA time zone is ahead of UTC (on a winter Monday); None for a name that
    is not one."""
    try:
        found = _REFERENCE_MONDAY.replace(tzinfo=ZoneInfo(zone)).utcoffset()
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return None if found is None else round(found.total_seconds() / 60)


def in_utc(minute: int, offset: int) -> int:
    """A minute of a zone's week (``offset`` ahead of UTC) as a minute of UTC's week."""
    return (minute - offset) % MINUTES_PER_WEEK


def cron_windows(expression: str, seconds: float, size: float) -> list[Window]:
    """The windows a weekly cron and a duration make; ScheduleError for a cron that does not
    repeat weekly."""
    minutes = max(0, round(seconds / 60))
    return [(start, minutes, size) for start in weekly_starts(expression)]


def cron_set_points(expression: str, size: float) -> list[SetPoint]:
    """The set points a weekly cron makes; ScheduleError for a cron that does not repeat
    weekly."""
    return [(start, size) for start in weekly_starts(expression)]


def _within(size: float, least: float, most: float) -> float:
    return min(max(size, least), most)
