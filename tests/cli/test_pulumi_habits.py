"""Flags that carry over from the Pulumi CLI: -s for --stack, -C/--cwd to run from another
directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from tests.helpers import ROOT

PLAIN = ROOT / "tests" / "programs" / "plain_aws"


def test_s_is_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PLAIN)
    result = CliRunner().invoke(main, ["preview", "-s", "dev", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"resources": 4' in result.stdout


def test_cwd_runs_as_if_started_there(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    for flag in ("-C", "--cwd"):
        result = CliRunner().invoke(main, [flag, str(ROOT), "validate", "examples/workloads.yaml"])
        assert result.exit_code == 0, result.output
        assert "ok (8 workloads" in result.stdout
        monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["-C", str(PLAIN), "preview", "-s", "dev"])
    assert result.exit_code == 0, result.output


def test_cwd_that_is_not_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["-C", str(tmp_path / "nowhere"), "schema"])
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_shell_completion_completes_commands() -> None:
    import os
    import subprocess
    import sys

    script = Path(sys.executable).parent / "gpufleet"
    env = {
        **os.environ,
        "COMP_WORDS": "gpufleet ch",
        "COMP_CWORD": "1",
        "_GPUFLEET_COMPLETE": "bash_complete",
    }
    done = subprocess.run([str(script)], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "plain,check" in done.stdout.splitlines()
