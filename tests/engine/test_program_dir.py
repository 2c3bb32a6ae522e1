"""Program directories run offline with their stack config: plain Pulumi programs, failures with
their resource and line, input errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.engine.program_dir import ProgramError, run_program_dir
from tests.helpers import ROOT

PROGRAMS = ROOT / "tests" / "programs"


def test_a_plain_pulumi_program_with_its_stack_config() -> None:
    cap = run_program_dir(PROGRAMS / "plain_aws", "dev")
    assert (cap.project, cap.stack) == ("plain-aws", "dev")
    instances = cap.of_type("aws:ec2/instance:Instance")
    assert [i.name for i in instances] == ["worker-0", "worker-1"]  # instanceCount: 2
    template = cap.one("aws:ec2/launchTemplate:LaunchTemplate")
    for resource in [*instances, template, cap.one("aws:s3/bucket:Bucket")]:
        # The stack transform (in a sibling module the program imports) tagged them all.
        assert resource.inputs["tags"] == {"team": "search", "managed-by": "transform"}
    assert all(template.urn in i.dependencies for i in instances)
    assert cap.exports["templateId"] == template.id
    assert cap.exports["secretSeen"] is True  # a secure: value is readable (as a placeholder)


def test_not_a_project_directory(tmp_path: Path) -> None:
    with pytest.raises(ProgramError, match=r"no Pulumi\.yaml"):
        run_program_dir(tmp_path, "dev")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 2 and "no Pulumi.yaml" in result.stderr


def test_bad_stack_config_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: [unclosed\n")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 2
    assert "Pulumi.dev.yaml:" in result.stderr and "not valid YAML" in result.stderr


def test_a_stack_without_config_among_configured_ones_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")
    # No stack config files at all: Pulumi runs the stack with empty config, and so do we.
    assert run_program_dir(tmp_path, "dev").registrations == []
    (tmp_path / "Pulumi.prod.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.staging.yaml").write_text("config: {}\n")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "prdo"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"{tmp_path / 'Pulumi.prdo.yaml'}: no such stack config (stacks here: prod, staging); "
        "create it (empty is fine) or pass --config FILE\n"
    )
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    result = CliRunner().invoke(
        main, ["preview", "--program", str(tmp_path), "--stack", "prdo", "--config", str(empty)]
    )
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "dangling link"])
@pytest.mark.parametrize("command", ["preview", "check", "cost"])
def test_something_not_a_file_at_the_stack_config_path_is_refused(
    tmp_path: Path, kind: str, command: str
) -> None:
    """Not read as an empty config (nor read forever): one line naming it, exit 2."""
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text("")
    path = tmp_path / "Pulumi.prod.yaml"
    if kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "nowhere.yaml")
    result = CliRunner().invoke(main, [command, "--program", str(tmp_path), "--stack", "prod"])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{path}:1: file: cannot read: ")


def test_a_project_file_that_is_not_a_file_is_named_as_such(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "Pulumi.yaml")
    result = CliRunner().invoke(main, ["preview", "--program", str(tmp_path), "--stack", "dev"])
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'Pulumi.yaml'}:1: file: cannot read: not a regular file\n"
