"""gpufleet's own stacks program: a stack config that is not what `gpufleet generate` writes is
bad input for check, cost and preview (one line naming the file, exit 2), before the program
runs, not a program that failed (exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from tests.helpers import ROOT

PROD = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "gpufleet:environment: Field required"),
        ("config:\n", "gpufleet:environment: Field required"),
        (PROD.replace("timeZone: America/New_York", "timeZone: America"), "'America'"),
    ],
)
@pytest.mark.parametrize("command", ["check", "cost", "preview"])
def test_a_bad_own_stack_config_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, text: str, says: str
) -> None:
    monkeypatch.chdir(ROOT)
    config = tmp_path / "Pulumi.prod.yaml"
    config.write_text(text)
    result = CliRunner().invoke(main, [command, "--env", "prod", "--config", str(config)])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{config}: not what gpufleet generate writes") and says in line
