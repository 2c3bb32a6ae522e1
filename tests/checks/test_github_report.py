"""GitHub output from gpufleet check: an annotation per finding, at its line, up to what GitHub
shows of a step; the job summary, its untrusted text made literal and its size within GitHub's
limit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.checks import github_report
from gpufleet.checks.check_run import SourceLocation, Suppressed
from gpufleet.checks.github_report import job_summary, workflow_annotations
from gpufleet.checks.stack_check import CheckOutcome
from gpufleet.cli.main import main
from gpufleet.github_text import ANNOTATIONS_PER_KIND, SUMMARY_LIMIT
from tests.checks.check_runs import BAD, TEMPLATE_LINE, bad
from tests.checks.reports import THRIFTY, finding, report


def test_github_annotations_and_summary(tmp_path: Path, bad_json: dict) -> None:
    summary = tmp_path / "summary.md"
    result = bad("--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    found = len(bad_json["findings"])
    assert found > ANNOTATIONS_PER_KIND
    # GitHub shows 10 errors of a step: 10, then a notice of the rest.
    assert len(lines) == ANNOTATIONS_PER_KIND + 1
    assert all(line.startswith("::error ") for line in lines[:-1])
    assert lines[-1] == (
        f"::notice title=gpufleet check::{found - ANNOTATIONS_PER_KIND} finding(s) not "
        "annotated: GitHub shows 10 error and 10 warning annotations per step: gpufleet check "
        "--format json lists them all"
    )
    # The first annotations are the first findings, at their lines.
    assert re.search(
        rf"^::error file={BAD}/__main__.py,line=\d+,title=gpufleet aml-scale-to-zero::",
        result.stdout,
        re.M,
    )
    text = summary.read_text()
    assert "mandatory violation(s)" in text and "| <code>training-on-spot</code> |" in text
    # Every finding has its row; a file name is not markdown.
    assert text.count("\n| mandatory |") == found
    assert f"<code>{BAD}/\\_\\_main\\_\\_.py:{TEMPLATE_LINE}</code>" in text


HOSTILE = "a|b __main__.py <script>alert(1)</script> @someone [x](http://evil) `tick` *em*"


def test_summary_text_is_literal() -> None:
    made = report(
        [finding(HOSTILE, message=HOSTILE, path="__main__.py")],
        suppressed=[
            Suppressed(
                "no-public-ip",
                "urn:pulumi:dev::p::aws:ec2/instance:Instance::x",
                HOSTILE,
                resource_name=HOSTILE,
                location=SourceLocation("__init__.py", 2),
            )
        ],
        program_unfinished="raised at __main__.py:3",
    )
    made.stack = "dev|@ops"
    text = job_summary(made).text
    table = [line for line in text.splitlines() if line.startswith("|")]
    # Header, delimiter, one row: five cells each; a | in a name ends none.
    assert len(table) == 3
    row = table[2]
    assert row.replace("\\|", "").count("|") == 6
    for raw in ("__main__", "<script>", "@someone", "[x](", "`tick`", "*em*", "@ops"):
        assert raw not in text, raw
    assert "\\_\\_main\\_\\_.py" in text and "&lt;script&gt;" in text
    assert "@\u200bsomeone" in text  # GitHub sees no mention
    assert "\\_\\_init\\_\\_.py:2" in text  # the suppression's location, literal too


def test_summary_over_github_limit_is_cut_with_a_note() -> None:
    # Rows of about 1.5 KiB: some 1,400 of them make 2 MiB.
    many = [finding(f"r{i}", message="x" * 1400 + f" {i}") for i in range(1400)]
    summary = job_summary(report(many))
    size = len(summary.text.encode()) + 1  # the newline the CLI appends
    assert SUMMARY_LIMIT - 4096 < size <= SUMMARY_LIMIT
    assert 0 < summary.left_out < 1400
    rows = summary.text.count("\n| mandatory |")
    assert rows + summary.left_out == 1400
    assert f"**{summary.left_out} row(s) left out of the job summary" in summary.text
    # The rows kept are the first: mandatory findings come first.
    assert "| r0 |" in summary.text
    # Not every finding is annotated, and not every one is in the table: it says where they are.
    assert "the table above lists them" not in summary.text
    assert "not annotated" in summary.text and "--format json lists them all." in summary.text
    whole = job_summary(report(many[:20]))
    assert whole.left_out == 0 and "not annotated" in whole.text
    assert "the table above lists them." in whole.text


def test_summary_fits_what_is_left_of_the_step_summary() -> None:
    many = [finding(f"r{i}", message="y" * 500) for i in range(100)]
    summary = job_summary(report(many), limit=10_000)
    assert len(summary.text.encode()) + 1 <= 10_000 and summary.left_out > 0
    assert job_summary(report(many), limit=100).text == ""  # not even the heading fits


def test_annotations_stop_at_what_github_shows() -> None:
    errors = [finding(f"e{i}") for i in range(12)]
    warnings = [finding(f"w{i}", policy=THRIFTY) for i in range(3)]
    lines = workflow_annotations(report([*errors, *warnings]))
    assert [line.split(" ", 1)[0] for line in lines] == (
        ["::error"] * ANNOTATIONS_PER_KIND + ["::warning"] * 3 + ["::notice"]
    )
    assert "2 finding(s) not annotated" in lines[-1]
    assert workflow_annotations(report(errors[:3]))[-1].startswith("::error ")


def test_the_cli_caps_the_summary_by_what_the_step_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("z" * (SUMMARY_LIMIT - 3000))  # an earlier command of the same step
    made = report([finding(f"r{i}", message="m" * 200) for i in range(40)])
    monkeypatch.setattr(
        "gpufleet.checks.stack_check.check_stack",
        lambda request: CheckOutcome(made, None, None),
    )
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = CliRunner().invoke(main, ["check", "--env", "dev", "--format", "github"])
    assert result.exit_code == 1, result.output
    assert summary.stat().st_size <= SUMMARY_LIMIT
    assert "row(s) left out of the job summary" in summary.read_text()
    assert result.stderr.startswith("job summary: ")
    assert f"row(s) left out of the job summary: GitHub takes at most {1024} KiB" in (result.stderr)
    assert github_report.unannotated(made) == 30
