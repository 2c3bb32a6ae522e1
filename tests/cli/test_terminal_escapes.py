"""Control characters in names from a user's program never reach the terminal as such: preview,
check and cost show them as escapes, whatever the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.terminal_text import escape_controls

PROGRAM = """
import pulumi_aws as aws
aws.ec2.Instance("evil\\x1b]0;pwned\\x07\\x1b[2Jname", instance_type="g6.xlarge", ami="ami-1",
                 tags={"workload": "w\\x1b[31m\\u202e\\r\\x00k"})
"""
# Anything from C0 but newline, DEL / C1 and bidirectional overrides: what a terminal acts on
# or shows out of order.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


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
    if command == "cost":  # the workload's row, from the tag
        assert "w\\x1b[31m\\u202e\\x0d\\x00k" in result.output
    assert not CONTROL.search(result.output), repr(CONTROL.search(result.output))


HOSTILE = "x\x1b]0;pwned\x07\x1b[2J\ry"


def test_error_lines_show_a_hostile_path_escaped(tmp_path: Path) -> None:
    spec = tmp_path / f"{HOSTILE}.yaml"
    result = CliRunner().invoke(main, ["validate", str(spec)])
    assert result.exit_code == 2
    # Quoted, with JSON's escapes: the name can neither drive the terminal nor pass for
    # another part of the line.
    assert 'x\\u001b]0;pwned\\u0007\\u001b[2J\\ry.yaml":1: file: cannot read' in result.stderr
    assert not CONTROL.search(result.stderr.replace("\t", ""))


def test_generate_messages_escape_and_its_diff_is_raw_only_when_piped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufleet.cli import messages
    from tests.helpers import ROOT

    stacks = tmp_path / HOSTILE
    args = ["generate", str(ROOT / "examples" / "workloads.yaml"), "--env", "dev"]
    result = CliRunner().invoke(main, [*args, "--stacks-dir", str(stacks)])
    assert result.exit_code == 0, result.stderr
    assert "\\x1b]0;pwned" in result.stderr and not CONTROL.search(result.stderr)
    # A diff is a document: piped, byte for byte (CRLF kept); on a terminal, escaped.
    diff = "--- a/f\r\n+++ b/f\r\n+evil\x1b[2J\r\n"
    printed: list[str] = []
    monkeypatch.setattr("click.echo", lambda text, nl=True: printed.append(text))
    monkeypatch.setattr("sys.stdout.isatty", lambda: False, raising=False)
    messages.echo_document(diff)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    messages.echo_document(diff)
    assert printed == [diff, "--- a/f\r\n+++ b/f\r\n+evil\\x1b[2J\r\n"]


def test_controls_and_bidirectional_overrides_show_as_escapes() -> None:
    text = "a\u202eb\u2066c\x1b[2Jd\x9be\rf\r\ng"
    assert escape_controls(text) == "a\\u202eb\\u2066c\\x1b[2Jd\\x9be\\x0df\r\ng"
