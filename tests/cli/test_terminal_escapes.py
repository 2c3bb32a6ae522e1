"""Control characters in names from a user's program never reach the terminal as such: preview,
check and cost show them as escapes, whatever the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main

PROGRAM = """
import pulumi_aws as aws
aws.ec2.Instance("evil\\x1b]0;pwned\\x07\\x1b[2Jname", instance_type="g6.xlarge", ami="ami-1")
"""
# Anything from C0 but newline, and DEL / C1: what a terminal acts on.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("escapes")
    (folder / "Pulumi.yaml").write_text("name: escapes\nruntime: python\n")
    (folder / "__main__.py").write_text(PROGRAM)
    return folder


@pytest.mark.parametrize("command", ["preview", "check", "cost"])
def test_names_print_escaped(program: Path, command: str) -> None:
    result = CliRunner().invoke(main, [command, "--program", str(program), "--stack", "dev"])
    assert result.exit_code in (0, 1), result.output
    assert "evil\\x1b]0;pwned\\x07\\x1b[2Jname" in result.output
    assert not CONTROL.search(result.output), repr(CONTROL.search(result.output))
