"""The catalog's age: plan and cost warn on stderr when its prices are older than
GPUFLEET_CATALOG_MAX_AGE_DAYS; GPUFLEET_CATALOG names the catalog every command prices from."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.planner.catalog import (
    DEFAULT_MAX_AGE_DAYS,
    MAX_AGE_ENV,
    catalog_age_days,
    load_catalog,
    max_catalog_age_days,
    write_catalog_csv,
)
from tests.helpers import EXAMPLE


def test_age_in_days_of_a_date_or_a_time() -> None:
    today = date(2026, 11, 28)
    assert catalog_age_days("2026-11-22", today) == 6
    assert catalog_age_days("2026-11-28T04:17:26Z", today) == 0
    assert catalog_age_days("not a date", today) is None


@pytest.mark.parametrize(
    ("setting", "limit"), [("3", 3), ("0", 0), ("", DEFAULT_MAX_AGE_DAYS), ("-1", 14), ("x", 14)]
)
def test_the_limit_is_a_whole_number_of_days_or_the_default(
    monkeypatch: pytest.MonkeyPatch, setting: str, limit: int
) -> None:
    monkeypatch.setenv(MAX_AGE_ENV, setting)
    assert max_catalog_age_days() == limit


def _aged_catalog(tmp_path: Path, days: int) -> Path:
    """The shipped catalog with every row read ``days`` ago."""
    when = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    path = tmp_path / f"aged-{days}.csv"
    path.write_text(write_catalog_csv(replace(o, as_of=when) for o in load_catalog().offers))
    return path


def test_plan_warns_of_an_old_catalog_and_not_of_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_AGE_ENV, "7")
    old = _aged_catalog(tmp_path, 30)
    runner = CliRunner()
    warned = runner.invoke(
        main, ["plan", str(EXAMPLE), "--env", "dev", "--format", "json", "--catalog", str(old)]
    )
    assert warned.exit_code == 0, warned.output
    assert "are 30 days old (more than 7, GPUFLEET_CATALOG_MAX_AGE_DAYS)" in warned.stderr
    json.loads(warned.stdout)  # the warning is not in what is piped
    fresh = _aged_catalog(tmp_path, 1)
    quiet = runner.invoke(main, ["plan", str(EXAMPLE), "--env", "dev", "--catalog", str(fresh)])
    assert quiet.exit_code == 0 and "days old" not in quiet.stderr


def test_gpufleet_catalog_names_the_catalog_plan_prices_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refreshed catalog in GPUFLEET_CATALOG is what plan (and cost, generate, the pack,
    through the same loader) price from; a bad one is a one-line error naming it."""
    catalog = tmp_path / "refreshed.csv"
    halved = (replace(o, on_demand_hourly=o.on_demand_hourly / 2) for o in load_catalog().offers)
    catalog.write_text(write_catalog_csv(halved))
    runner = CliRunner()
    args = ["plan", str(EXAMPLE), "--env", "staging", "--format", "json"]
    shipped = json.loads(runner.invoke(main, args).stdout)
    monkeypatch.setenv("GPUFLEET_CATALOG", str(catalog))
    chosen = json.loads(runner.invoke(main, args).stdout)
    assert chosen["environments"][0]["totals"]["baseline_monthly_usd"] == pytest.approx(
        shipped["environments"][0]["totals"]["baseline_monthly_usd"] / 2, rel=0.02
    )
    monkeypatch.setenv("GPUFLEET_CATALOG", str(tmp_path / "missing.csv"))
    failed = runner.invoke(main, args)
    assert failed.exit_code == 2
    assert str(tmp_path / "missing.csv") in failed.stderr
    assert "Traceback" not in failed.output


def test_a_row_without_a_date_is_a_bad_catalog(tmp_path: Path) -> None:
    """Its age could not be told (and an empty as_of would be the oldest, silencing the
    warning)."""
    rows = load_catalog().offers
    path = tmp_path / "undated.csv"
    path.write_text(write_catalog_csv([*rows[:3], replace(rows[3], as_of="")]))
    result = CliRunner().invoke(main, ["plan", str(EXAMPLE), "--catalog", str(path)])
    assert result.exit_code == 2
    assert f"{path}:5: as_of: '' is not a date" in result.stderr


def test_a_bad_gpufleet_catalog_is_one_line_in_every_command_that_prices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUFLEET_CATALOG", str(tmp_path / "missing.csv"))
    for command in ("cost", "preflight", "runs", "commitments", "check"):
        result = CliRunner().invoke(main, [command, "--env", "dev"])
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.startswith(f"{tmp_path / 'missing.csv'}:1: file: cannot read")
        assert "Traceback" not in result.output


def test_the_first_refresh_into_gpufleet_catalog_builds_on_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's first run: GPUFLEET_CATALOG names a file not there yet."""
    target = tmp_path / "catalog.csv"
    monkeypatch.setenv("GPUFLEET_CATALOG", str(target))
    monkeypatch.delenv("AZURE_SUBSCRIPTION_ID", raising=False)
    result = CliRunner().invoke(main, ["catalog", "refresh", "--cloud", "azure"])
    # It reaches the cloud (which says what to set) instead of failing on its base.
    assert result.exit_code == 1
    assert "azure: set AZURE_SUBSCRIPTION_ID" in result.output and not target.exists()


def test_refresh_writes_where_the_catalog_in_use_is_named() -> None:
    from gpufleet.cli.main import catalog_refresh
    from gpufleet.planner.catalog import CATALOG_ENV

    (output,) = [p for p in catalog_refresh.params if p.name == "output"]
    assert isinstance(output, click.Option) and output.envvar == CATALOG_ENV
