"""JUnit XML from gpufleet check: one suite per policy, failures exactly the mandatory findings."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.checks.check_runs import BAD_FINDINGS, bad


def test_junit(bad_json: dict) -> None:
    result = bad("--format", "junit")
    assert result.returncode == 1
    suites = ET.fromstring(result.stdout)
    assert int(suites.get("failures", "0")) == len(bad_json["findings"])
    failing = {s.get("name") for s in suites if int(s.get("failures", "0"))}
    assert failing == {p for p, _ in BAD_FINDINGS}
