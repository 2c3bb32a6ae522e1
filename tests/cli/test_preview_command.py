"""gpufleet preview and the live commands: a plain program as JSON and as an export; what the live
commands need and do not find."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.engine.wire import UNKNOWN
from tests.engine.samples import validate_export
from tests.helpers import ROOT

PROGRAMS = ROOT / "tests" / "programs"


GPUFLEET = [sys.executable, "-m", "gpufleet"]


def test_preview_cli_on_a_plain_program_json_and_export(tmp_path: Path) -> None:
    out = tmp_path / "export.json"
    result = CliRunner().invoke(
        main,
        [
            "preview",
            "--program",
            str(PROGRAMS / "plain_aws"),
            "--stack",
            "dev",
            "--format",
            "json",
            "--preview",
            "--export",
            str(out),
            "--analysis-only",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["resources"] == 4 and summary["preview"] is True
    assert summary["counts"]["aws:ec2/instance:Instance"] == 2
    assert summary["exports"]["templateId"] == UNKNOWN
    validate_export(json.loads(out.read_text()))


def test_live_commands_say_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = CliRunner().invoke(main, ["preview", "--env", "prod", "--live"])
    assert result.exit_code == 2 and "need the Pulumi CLI" in result.stderr
    result = CliRunner().invoke(main, ["up", "--env", "prod", "--yes"])
    assert result.exit_code == 2 and "gpufleet preview --env prod" in result.stderr
    # Said before asking for a confirmation it could not use.
    result = CliRunner().invoke(main, ["up", "--env", "prod"], input="")
    assert result.exit_code == 2 and "need the Pulumi CLI" in result.stderr
    assert "Deploy stack" not in result.output


@pytest.mark.parametrize("run", range(3))  # shutdown noise, when it came, was intermittent
def test_a_failing_program_reports_its_error_and_resource(run: int) -> None:
    result = subprocess.run(
        [*GPUFLEET, "preview", "--program", "tests/programs/failing", "--stack", "dev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    # Exactly one line: the error, the resource being built and where; no traceback, no noise.
    assert result.stderr == (
        "program failed while building acme:compute:GpuPool 'huge' at __main__.py:12: "
        "ValueError: a pool holds at most 8 GPUs, asked for 64\n"
    )


def test_config_file_option_replaces_the_stack_file(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("config:\n  plain-aws:team: ranking\n  plain-aws:instanceCount: 1\n")
    result = CliRunner().invoke(
        main,
        [
            "preview",
            "--program",
            str(PROGRAMS / "plain_aws"),
            "--stack",
            "dev",
            "--config",
            str(other),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["tree"]
    assert [n["name"] for n in tree if n["type"] == "aws:ec2/instance:Instance"] == ["worker-0"]
    cap = run_program_dir(PROGRAMS / "plain_aws", "dev", config_file=other)
    assert cap.one("aws:s3/bucket:Bucket").inputs["tags"]["team"] == "ranking"


def test_an_export_to_a_full_device_is_one_line_and_the_device_stays() -> None:
    args = ["preview", "--program", str(PROGRAMS / "plain_aws"), "--stack", "dev"]
    result = CliRunner().invoke(main, [*args, "--export", "/dev/full"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "/dev/full: cannot write: No space left on device"
    )
    assert Path("/dev/full").is_char_device()
