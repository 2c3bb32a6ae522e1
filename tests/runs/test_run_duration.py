"""``--for`` as people write it, its bounds, and the words errors and output use for it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gpufleet.runs.run_duration import (
    MAX_DURATION,
    MIN_DURATION,
    RunWindow,
    describe_duration,
    parse_duration,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8h", timedelta(hours=8)),
        ("90m", timedelta(minutes=90)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("2d", timedelta(days=2)),
        ("1d2h3m", timedelta(days=1, hours=2, minutes=3)),
        ("5m", MIN_DURATION),
        ("30d", MAX_DURATION),
        (" 8h ", timedelta(hours=8)),
    ],
)
def test_durations_people_write(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "8", "h", "8 h", "8H", "1.5h", "-1h", "30m1h", "1h1h", "8h!", "\u0661h", "8s", "1w"],
)
def test_what_is_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration: write days, hours and minutes"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["4m", "0h", "30d1m", "721h", "9999999m"])
def test_bounded(text: str) -> None:
    with pytest.raises(ValueError, match=r"(a run lasts from 5m to 30d|longer than 30d)"):
        parse_duration(text)


def test_described_as_written() -> None:
    assert describe_duration(timedelta(days=1, hours=12)) == "1d12h"
    assert describe_duration(timedelta(minutes=90)) == "1h30m"
    assert describe_duration(timedelta(0)) == "0m"


def test_a_window_ends_its_duration_after_its_start() -> None:
    now = datetime(2026, 11, 23, 17, 59, 30, tzinfo=UTC)
    assert RunWindow.from_now(timedelta(hours=8), now).until == now + timedelta(hours=8)
    assert RunWindow.from_now(None, now).until is None
    assert RunWindow.from_now(None).start.tzinfo is UTC
