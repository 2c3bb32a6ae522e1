"""How a group's size changes: the scaling settings every group component takes, and weekly
minutes turned into the crons AWS and GCP schedule by."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gpufleet.components.scaling import Scaling, WeeklyRun, cron_at
from gpufleet.planner.schedules import day_at


@pytest.mark.parametrize(
    ("minute", "cron", "day"),
    [
        (0, "0 0 * * 1", "mon"),  # Monday 00:00
        (8 * 60 + 30, "30 8 * * 1", "mon"),
        (6 * 1440 + 23 * 60 + 59, "59 23 * * 0", "sun"),  # cron counts Sunday as 0
        (7 * 1440 + 120, "0 2 * * 1", "mon"),  # past the end of the week: next Monday
    ],
)
def test_minutes_of_the_week_as_crons(minute: int, cron: str, day: str) -> None:
    assert cron_at(minute) == cron and day_at(minute) == day


def test_hours_and_the_cost_engines_tag() -> None:
    assert Scaling().monthly_hours == 730 and Scaling().expected_tags() == {}
    request = Scaling(mode="on_request", expected_hours=60.5)
    assert request.expected_tags() == {"expected-minutes": "3630"}
    weekly = Scaling(mode="schedule", runs=[WeeklyRun(start_minute=0, minutes=8 * 60)])
    assert weekly.monthly_hours == pytest.approx(730 * 8 / 168)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"mode": "schedule"}, "a schedule needs at least one run"),
        ({"mode": "on_request"}, "needs expected_hours"),
        ({"runs": [{"start_minute": 0, "minutes": 60}]}, "runs apply to mode schedule"),
        (
            {
                "mode": "schedule",
                "time_zone": "Nowhere/Land",
                "runs": [{"start_minute": 0, "minutes": 1}],
            },
            "unknown time zone",
        ),
        ({"mode": "on_request", "expected_hours": 800}, "less than or equal to 730"),
    ],
)
def test_scaling_that_cannot_be_built_is_refused(fields: dict, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Scaling.model_validate(fields)
