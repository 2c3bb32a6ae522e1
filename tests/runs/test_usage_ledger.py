"""The month's ledger a run keeps on its group: booking at full size, a new month from zero, a
ledger edited by hand refused, what an early end gives back, values every cloud's tags take."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from gpufleet import tag_keys
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.usage_ledger import (
    Booking,
    OverPlanError,
    booked_minutes,
    over_plan_value,
    read_ledger,
)

NOW = datetime(2026, 11, 27, 15, 41, 30, tzinfo=UTC)
GCP_LABEL_VALUE = re.compile(r"[a-z0-9_-]{0,63}")


def booking(hours: float, planned: float = 60.0, over_plan: str | None = None) -> Booking:
    window = RunWindow(NOW, NOW + timedelta(hours=hours))
    return Booking("w: part", planned, booked_minutes(4, 4, window), window, over_plan)


def test_a_run_books_its_share_of_the_part_for_its_time() -> None:
    window = RunWindow(NOW, NOW + timedelta(hours=8))
    assert booked_minutes(4, 4, window) == 480
    assert booked_minutes(1, 4, window) == 120
    assert booked_minutes(0, 4, RunWindow(NOW, None)) == 0


def test_the_ledger_counts_the_month_and_a_new_month_starts_at_zero() -> None:
    tags = booking(8).after(read_ledger({}, NOW))
    assert tags[tag_keys.RUN_USED] == "2026-11_480_1"
    assert tags[tag_keys.RUN_LAST] == "20261127t1541_20261127t2342_480"
    assert all(GCP_LABEL_VALUE.fullmatch(value) for value in tags.values())
    again = booking(8).after(read_ledger(tags, NOW + timedelta(hours=9)))
    assert again[tag_keys.RUN_USED] == "2026-11_960_2"
    december = read_ledger(again, datetime(2026, 12, 1, tzinfo=UTC))
    assert (december.month, december.minutes, december.runs) == ("2026-12", 0, 0)


def test_a_run_past_the_plan_is_refused_unless_told_why() -> None:
    ledger = read_ledger({tag_keys.RUN_USED: "2026-11_3000_4"}, NOW)  # 50 h used
    booking(10).check(ledger)  # 60 h: within
    with pytest.raises(
        OverPlanError, match=re.escape("with the 50 h used in 2026-11 (4 run(s)) that is 62 h")
    ):
        booking(12).check(ledger)
    booking(12, over_plan="incident replay").check(ledger)
    tags = booking(12, over_plan="Incident replay!").after(ledger)
    assert tags[tag_keys.RUN_OVER_PLAN] == over_plan_value("Incident replay!") == "incident_replay_"
    # A part its schedule runs has no hours on request: every run beside it is over the plan.
    with pytest.raises(OverPlanError, match="which its weekly schedule runs"):
        booking(1, planned=0.0).check(read_ledger({}, NOW))


@pytest.mark.parametrize(
    ("used", "last"),
    [
        ("lots", ""),
        ("2026-11_-5_1", ""),
        ("2026-11_480", ""),
        ("2026-13-01_1_1", ""),
        ("2026-13_1_1", ""),  # no such month
        ("2027-01_1_1", ""),  # a month to come
        ("2026-11_60_1", "20261399t9999_20261127t2342_480"),  # no such moment
        ("2026-11_60_1", "20261127t2342_20261127t1541_480"),  # ends before it starts
        ("2026-11_60_1", "yesterday"),
    ],
)
def test_a_ledger_edited_by_hand_is_not_trusted(used: str, last: str) -> None:
    ledger = read_ledger({tag_keys.RUN_USED: used, tag_keys.RUN_LAST: last}, NOW)
    with pytest.raises(OverPlanError, match="its ledger cannot be read"):
        booking(1).check(ledger)
    booking(1, over_plan="ledger reset").check(ledger)  # told why: it starts afresh


def test_ending_a_run_early_gives_back_what_it_did_not_run() -> None:
    started = booking(8).after(read_ledger({}, NOW))
    two_hours_in = NOW + timedelta(hours=2)
    ended = Booking("w: part", 60.0, 0, RunWindow(two_hours_in, None), None).after(
        read_ledger(started, two_hours_in)
    )
    assert ended[tag_keys.RUN_USED] in ("2026-11_120_1", "2026-11_121_1")
    # Ended again, or after its end: nothing more to give back.
    later = Booking("w: part", 60.0, 0, RunWindow(NOW + timedelta(hours=9), None), None)
    assert later.after(read_ledger(started, NOW + timedelta(hours=9)))[tag_keys.RUN_USED] == (
        "2026-11_480_1"
    )


def test_ending_a_run_does_not_make_an_unreadable_ledger_readable() -> None:
    tags = {tag_keys.RUN_USED: "2026-11_3000x_5"}
    stop = Booking("w: part", 60.0, 0, RunWindow(NOW, None), None)
    assert stop.after(read_ledger(tags, NOW)) == {}  # left as it is: still refused after
