"""A group's own weekly schedule as capacity-unit minutes: sizes set at points of the week (held
until the next, around the week's end) or held by windows (the largest in force, else the
floor)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.capacity.footprints.weekly_use import (
    bounded_use,
    cron_set_points,
    cron_windows,
    set_point_use,
    window_use,
)
from gpufleet.planner.schedules import MINUTES_PER_DAY, MINUTES_PER_WEEK, ScheduleError

DAY, HOUR = MINUTES_PER_DAY, 60


def test_business_hours_set_points() -> None:
    points = [(d * DAY + 8 * HOUR, 3) for d in range(5)] + [
        (d * DAY + 20 * HOUR, 0) for d in range(5)
    ]
    assert set_point_use(points, 0, 3) == 5 * 12 * HOUR * 3


def test_a_set_point_holds_around_the_end_of_the_week() -> None:
    # Sunday 22:00 up to 2, Monday 02:00 down to 0: four hours across the week's end.
    points = [(6 * DAY + 22 * HOUR, 2), (2 * HOUR, 0)]
    assert set_point_use(points, 0, 4) == 4 * HOUR * 2
    assert set_point_use([(123, 1)], 0, 4) == MINUTES_PER_WEEK  # one point: all week


def test_set_points_are_kept_within_the_groups_bounds() -> None:
    assert set_point_use([(0, 9)], 0, 4) == 4 * MINUTES_PER_WEEK
    assert set_point_use([(0, 2), (0, 3)], 0, 4) == 3 * MINUTES_PER_WEEK  # same minute: larger
    assert set_point_use([], 0, 4) is None


def test_overlapping_windows_hold_the_largest_size_in_force() -> None:
    # 2 from 00:00 for 10 h, 5 from 04:00 for 2 h, floor 1 otherwise.
    windows = [(0, 10 * HOUR, 2), (4 * HOUR, 2 * HOUR, 5)]
    expected = 1 * MINUTES_PER_WEEK + (2 - 1) * 10 * HOUR + (5 - 2) * 2 * HOUR
    assert window_use(windows, 1, 8) == expected


def test_a_window_past_the_end_of_the_week_wraps() -> None:
    assert window_use([(MINUTES_PER_WEEK - HOUR, 3 * HOUR, 1)], 0, 1) == 3 * HOUR
    assert window_use([(0, 2 * MINUTES_PER_WEEK, 1)], 0, 1) == MINUTES_PER_WEEK
    assert window_use([], 0, 1) is None


def test_crons_become_points_and_windows_of_the_week() -> None:
    # Monday 02:00 (cron day 1), for 6 h.
    assert cron_windows("0 2 * * 1", 6 * 3600, 1) == [(2 * HOUR, 6 * HOUR, 1)]
    assert cron_set_points("30 8 * * 1-5", 3) == [(d * DAY + 8 * HOUR + 30, 3) for d in range(5)]
    with pytest.raises(ScheduleError, match="does not repeat weekly"):
        cron_windows("0 2 1 * *", 3600, 1)


windows = st.lists(
    st.tuples(
        st.integers(0, MINUTES_PER_WEEK - 1),
        st.integers(0, MINUTES_PER_WEEK),
        st.integers(0, 6),
    ),
    max_size=6,
)


@given(windows, st.integers(0, 3), st.integers(3, 6))
def test_window_use_is_the_minute_by_minute_integral(
    found: list[tuple[int, int, int]], least: int, most: int
) -> None:
    """Against the obvious count, minute by minute."""
    size = [least] * MINUTES_PER_WEEK
    for start, minutes, level in found:
        for minute in range(start, start + min(minutes, MINUTES_PER_WEEK)):
            here = minute % MINUTES_PER_WEEK
            size[here] = max(size[here], min(max(level, least), most))
    expected = sum(size) if found else None
    assert window_use(found, least, most) == expected


def simulated_bounded_use(
    events: list[tuple[int, int, float]], desired: float, least: float, most: float
) -> float:
    """``bounded_use`` minute by minute, over two weeks, the second counted: AWS's rules
    applied as they happen (a min raised lifts the desired size, a max lowered caps it)."""
    at: dict[int, list[tuple[int, float]]] = {}
    for minute, kind, size in sorted(events):
        at.setdefault(minute, []).append((kind, size))
    size, low, high = min(max(desired, least), most), least, most
    total = 0.0
    for tick in range(2 * MINUTES_PER_WEEK):
        for kind, value in at.get(tick % MINUTES_PER_WEEK, []):
            if kind == 0:
                low, size = value, max(size, value)
            elif kind == 1:
                high, size = value, min(size, value)
            else:
                size = min(max(value, low), high)
        if tick >= MINUTES_PER_WEEK:
            total += size
    return total


@given(
    st.lists(
        st.tuples(
            st.integers(0, 7 * 24 - 1).map(lambda hour: hour * HOUR),
            st.integers(0, 2),
            st.integers(0, 6).map(float),
        ),
        max_size=8,
    ),
    st.integers(0, 6).map(float),
    st.integers(0, 3).map(float),
)
def test_bounded_use_follows_the_group_minute_by_minute(
    events: list[tuple[int, int, float]], desired: float, least: float
) -> None:
    most = 6.0
    points: list[list[tuple[int, float]]] = [[], [], []]
    for minute, kind, size in events:
        points[kind].append((minute, size))
    found = bounded_use(points[2], points[0], points[1], desired, least, most)
    assert found == simulated_bounded_use(events, desired, least, most)


def test_a_min_raised_once_a_week_and_never_lowered_holds_all_week() -> None:
    assert bounded_use([], [(8 * HOUR, 3)], [], 0, 0, 3) == 3 * MINUTES_PER_WEEK
    # Lowered again the same evening: the desired size it lifted stays (AWS does not lower
    # it), until a desired set point does.
    lifted = bounded_use([], [(8 * HOUR, 3), (20 * HOUR, 0)], [], 0, 0, 3)
    assert lifted == 3 * MINUTES_PER_WEEK
    evening = bounded_use([(20 * HOUR, 0)], [(8 * HOUR, 3), (20 * HOUR, 0)], [], 0, 0, 3)
    assert evening == 3 * 12 * HOUR
