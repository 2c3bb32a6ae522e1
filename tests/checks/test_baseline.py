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
