"""Weekly schedules: windows and crons become the same runs of the week, merged, and the hours
a month they make on gpufleet's 730-hour month."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.planner.schedules import (
    DAY_SETS,
    DAYS,
    MINUTES_PER_WEEK,
    Run,
    ScheduleError,
    check_time_zone,
    from_cron,
    from_windows,
)
from gpufleet.pricing_models import HOURS_PER_MONTH

MON_0800 = 8 * 60


def test_business_hours() -> None:
    week = from_windows("Europe/Berlin", [(DAY_SETS["weekdays"], 8 * 60, 20 * 60)])
    assert [r.day for r in week.runs] == ["mon", "tue", "wed", "thu", "fri"]
    assert week.runs[0] == Run(MON_0800, 12 * 60) and week.runs[0].clock == (8, 0)
    assert week.hours_per_month == pytest.approx(HOURS_PER_MONTH * 60 / 168)


def test_a_window_past_midnight_and_into_next_week() -> None:
    week = from_windows("UTC", [(("sun",), 22 * 60, 2 * 60)])
    (run,) = week.runs
    assert (run.day, run.clock, run.minutes) == ("sun", (22, 0), 240)
    assert run.end > MINUTES_PER_WEEK  # ends Monday 02:00


def test_overlapping_and_touching_windows_merge_even_across_the_week() -> None:
    week = from_windows(
        "UTC",
        [(("mon",), 0, 6 * 60), (("mon",), 4 * 60, 8 * 60), (("sun",), 20 * 60, 0)],
    )
    # Sunday 20:00 to Monday 08:00 is one run of 12 hours.
    assert week.runs == (Run(6 * 1440 + 20 * 60, 12 * 60),)


def test_every_minute_of_the_week_is_always() -> None:
    week = from_windows("UTC", [(DAYS, 0, 24 * 60)])
    assert week.always and week.hours_per_month == pytest.approx(HOURS_PER_MONTH)


def test_a_weekly_cron_with_a_duration() -> None:
    week = from_cron("America/New_York", "0 2 * * MON", 8)
    assert week.runs == (Run(2 * 60, 8 * 60),)
    # Sunday is 0 and 7 in cron; the week here starts on Monday.
    assert from_cron("UTC", "30 23 * * 0", 1).runs == (Run(6 * 1440 + 23 * 60 + 30, 60),)
    assert from_cron("UTC", "30 23 * * 7", 1).runs == from_cron("UTC", "30 23 * * SUN", 1).runs
    nightly = from_cron("UTC", "0 1 * * *", 2)
    assert nightly.hours_per_month == pytest.approx(HOURS_PER_MONTH * 14 / 168)


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("0 2 1 * *", "does not repeat weekly"),
        ("0 2 * 1 *", "does not repeat weekly"),
        ("0 2 * *", "has 4 fields"),
        ("0 0 2 * * MON", "has 6 fields"),
        ("*/5 * * * *", "starts 2016 runs a week"),
        ("61 * * * *", "is not valid"),
    ],
)
def test_crons_gpufleet_cannot_realize(expression: str, why: str) -> None:
    with pytest.raises(ScheduleError, match=why):
        from_cron("UTC", expression, 1)


def test_time_zones_are_iana_names() -> None:
    assert check_time_zone("Asia/Kolkata") == "Asia/Kolkata"
    for bad in ("Mars/Base", "../etc/passwd", ""):
        with pytest.raises(ScheduleError, match="unknown time zone"):
            check_time_zone(bad)


windows = st.lists(
    st.tuples(
        st.lists(st.sampled_from(DAYS), min_size=1, max_size=7, unique=True).map(tuple),
        st.integers(0, 24 * 60 - 1),
        st.integers(1, 24 * 60),
    ),
    min_size=1,
    max_size=8,
)


@given(windows)
def test_merged_runs_never_overlap_and_cover_what_the_windows_cover(
    spec: list[tuple[tuple[str, ...], int, int]],
) -> None:
    week = from_windows("UTC", spec)  # type: ignore[arg-type]  # days drawn from DAYS
    covered = set()
    for days, start, end in spec:
        length = (end - start) % 1440 or 1440
        for day in days:
            first = DAYS.index(day) * 1440 + start
            covered |= {(first + m) % MINUTES_PER_WEEK for m in range(length)}
    runs = {(r.start + m) % MINUTES_PER_WEEK for r in week.runs for m in range(r.minutes)}
    assert runs == covered
    assert week.minutes_per_week == len(covered)
    ends = sorted(week.runs)
    for a, b in pairwise(ends):
        assert a.end < b.start
