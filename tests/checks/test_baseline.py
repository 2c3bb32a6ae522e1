"""Baselines: recorded findings are not reported again; one dropped from the baseline is new."""

from __future__ import annotations

import json
from pathlib import Path

from tests.checks.check_runs import bad


def test_baseline_reports_only_new_findings(tmp_path: Path, bad_json: dict) -> None:
    baseline = tmp_path / "baseline.json"
    written = bad("--write-baseline", str(baseline), "--format", "json")
    assert written.returncode == 1
    again = bad("--baseline", str(baseline), "--format", "json")
    assert again.returncode == 0, again.stdout
    report = json.loads(again.stdout)
    assert report["findings"] == [] and report["summary"]["baselined"] == len(bad_json["findings"])
    # One finding dropped from the baseline is new again: exit 1, only it reported.
    data = json.loads(baseline.read_text())
    dropped = data["findings"].pop(0)
    baseline.write_text(json.dumps(data))
    third = bad("--baseline", str(baseline), "--format", "json")
    assert third.returncode == 1
    assert [f["fingerprint"] for f in json.loads(third.stdout)["findings"]] == [
        dropped["fingerprint"]
    ]


def test_baseline_and_report_are_written_together_or_not_at_all(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    failed = bad(
        "--write-baseline", str(baseline), "--format", "sarif", "--output", str(blocker / "r.sarif")
    )
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert f"{blocker / 'r.sarif'}: cannot write" in failed.stderr
    assert not baseline.exists()  # the report failed, so the baseline was not written either
    # "-" is standard output; the baseline goes to its file.
    both = bad("--write-baseline", str(baseline), "--format", "json", "--output", "-")
    assert both.returncode == 1
    assert json.loads(both.stdout)["findings"]
    assert json.loads(baseline.read_text())["findings"]
