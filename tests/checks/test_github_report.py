"""GitHub output from gpufleet check: an annotation per finding, at its line; the job summary."""

from __future__ import annotations

from pathlib import Path

from tests.checks.check_runs import BAD, TEMPLATE_LINE, bad


def test_github_annotations_and_summary(tmp_path: Path, bad_json: dict) -> None:
    summary = tmp_path / "summary.md"
    result = bad("--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(bad_json["findings"])
    assert all(line.startswith("::error ") for line in lines)
    assert (
        f"::error file={BAD}/__main__.py,line={TEMPLATE_LINE},title=gpufleet imdsv2-required::"
        in (result.stdout)
    )
    text = summary.read_text()
    assert "mandatory violation(s)" in text and "| `training-on-spot` |" in text
