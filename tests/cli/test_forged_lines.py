"""No name can forge or blur a message line: a line break in a file name or --env value shows
escaped, a name with ":" or spaces is quoted, keys that are not strings are shown as YAML
writes them, and a stack name is Pulumi's (never a path out of stacks/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from tests.helpers import ROOT

FORGED = "ev\nil.yaml:1: x: forged"


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_a_spec_name_with_a_line_break_stays_on_one_line(tmp_path: Path) -> None:
    spec = tmp_path / f"{FORGED}.yaml"
    shutil.copy(ROOT / "examples" / "workloads.yaml", spec)
    ok = CliRunner().invoke(main, ["validate", str(spec)])
    assert ok.exit_code == 0 and len(_lines(ok.stdout)) == 1
    assert '\\nil.yaml:1: x: forged.yaml": ok (8 workloads' in ok.stdout
    unknown = CliRunner().invoke(main, ["plan", str(spec), "--env", "nope"])
    assert unknown.exit_code == 2 and len(_lines(unknown.stderr)) == 1
    assert not any(line.startswith("il.yaml") for line in _lines(unknown.stderr))


def test_a_bad_spec_names_its_quoted_file_and_field(tmp_path: Path) -> None:
    spec = tmp_path / "a: b.yaml"
    spec.write_text("version: 1\n1.5: !!bool maybe\n")
    result = CliRunner().invoke(main, ["validate", str(spec)])
    assert result.exit_code == 2
    assert _lines(result.stderr) == [f'"{spec}":2: "1.5": \'maybe\' is not a valid !!bool']


@pytest.mark.parametrize("stack", ["../../tmp/x", FORGED, "", "a/b", ".."])
def test_a_stack_name_must_be_pulumis(stack: str) -> None:
    for command in ("preview", "check", "cost", "commitments"):
        result = CliRunner().invoke(main, [command, "--env", stack])
        assert result.exit_code == 2, (command, result.output)
        assert "is not a stack name" in result.stderr
        assert not any(line.startswith("il.yaml") for line in _lines(result.stderr))


def test_generate_keeps_a_stack_files_keys_that_are_not_strings(tmp_path: Path) -> None:
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    target = stacks / "Pulumi.prod.yaml"
    target.write_text((ROOT / "stacks" / "Pulumi.prod.yaml").read_text() + "  1: one\n  ~: two\n")
    spec = str(ROOT / "examples" / "workloads.yaml")
    args = ["generate", spec, "--env", "prod", "--stacks-dir", str(stacks)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert target.read_text().endswith("  1: one\n  ~: two\n")
