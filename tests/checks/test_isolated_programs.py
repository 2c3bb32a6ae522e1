"""``gpufleet check`` on programs that try to switch the gate off: each runs in a process of its
own (engine/program_process.py), so an early exit, a crash, a signal, a hang, a patched checker
or a print cannot pass it. What such a program registered before it stopped is still checked,
and the check fails with one line saying how the program ended and where."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from gpufleet.checks.sarif import SARIF_SUBSET_SCHEMA
from tests.checks.check_runs import gpufleet

# An untagged p5.48xlarge, the dev policies' first offence; then what each case does. The
# apply runs once the engine has the instance (its id known): the program stops after the
# registration, as a program that exits mid-way does.
PROGRAM = """\
import os, signal, sys, time
import pulumi
import pulumi_aws as aws

big = aws.ec2.Instance("big", instance_type="p5.48xlarge", ami="ami-12345678")
{then}
"""
AFTER_REGISTERED = "big.id.apply(lambda _: ({action}))"


def project(tmp_path: Path, then: str) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: hostile\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.format(then=textwrap.dedent(then)))
    return tmp_path


def check(directory: Path, *extra: str) -> tuple[int, dict, list[str]]:
    done = gpufleet(
        "check",
        "--program",
        str(directory),
        "--env",
        "dev",
        "--policy-config",
        "policies/config/dev.json",
        "--format",
        "json",
        *extra,
    )
    return done.returncode, json.loads(done.stdout), done.stderr.splitlines()


@pytest.mark.parametrize(
    ("then", "ending"),
    [
        ("sys.exit(0)", "called sys.exit(0) at __main__.py:6 before its end"),
        ("sys.exit(3)", "called sys.exit(3) at __main__.py:6 before its end"),
        (AFTER_REGISTERED.format(action="os._exit(0)"), "called os._exit(0) at __main__.py:6"),
        (
            AFTER_REGISTERED.format(action="os.kill(os.getpid(), signal.SIGKILL)"),
            "was killed by SIGKILL before its end",
        ),
        ("raise RuntimeError('boom')", "raised RuntimeError at __main__.py:6: boom"),
    ],
)
def test_a_program_that_stops_early_fails_the_check_and_its_resources_are_checked(
    tmp_path: Path, then: str, ending: str
) -> None:
    code, report, stderr = check(project(tmp_path, then))
    assert code == 1
    assert report["resources"] == 1
    assert report["program"]["ranToEnd"] is False
    assert report["program"]["ending"].startswith(ending)
    assert {f["policy"] for f in report["findings"]} >= {"required-tags", "imdsv2-required"}
    (line,) = [line for line in stderr if not line.startswith("program stdout:")]
    assert line.startswith(f"program {ending}")
    assert line.endswith("the check covers only the 1 resource(s) it registered until then")


def test_a_program_past_its_timeout_is_stopped(tmp_path: Path) -> None:
    code, report, stderr = check(
        project(tmp_path, AFTER_REGISTERED.format(action="time.sleep(600)")), "--timeout", "8"
    )
    assert code == 1
    assert report["program"]["ending"] == "did not finish within 8 s (--timeout); stopped"
    assert report["resources"] == 1 and report["findings"]
    assert stderr[-1].startswith("program did not finish within 8 s")


def test_a_program_cannot_patch_the_checker_or_write_into_the_report(tmp_path: Path) -> None:
    """It imports gpufleet's checker and replaces it, and prints JSON to stdout: its process is
    not the checker's, and its output goes to stderr, marked."""
    then = """\
    import gpufleet.checks.check_run as check_run
    check_run.run_check = lambda *args, **kwargs: None
    print(json.dumps({"findings": [], "resources": 0}))
    print("\\x1b[2Jcleared", file=sys.stderr)
    """
    code, report, stderr = check(project(tmp_path, "import json\n" + textwrap.dedent(then)))
    assert code == 1
    assert report["program"] == {"ranToEnd": True, "ending": None}
    assert report["resources"] == 1 and report["findings"]
    assert 'program stdout: {"findings": [], "resources": 0}' in stderr
    # Its escape sequences are shown, not acted on.
    assert "program stderr: \\x1b[2Jcleared" in stderr


def test_a_program_that_runs_to_its_end_passes_on_its_findings_alone(tmp_path: Path) -> None:
    tagged = """\
    aws.ec2.Instance(
        "small",
        instance_type="t3.micro",
        ami="ami-12345678",
        tags={"project": "p", "owner": "o", "cost-center": "c", "environment": "dev"},
        metadata_options={"http_tokens": "required"},
    )
    """
    directory = project(tmp_path, textwrap.dedent(tagged))
    (directory / "__main__.py").write_text(
        (directory / "__main__.py").read_text().replace("big = aws.ec2.Instance", "big = None #")
    )
    code, report, _ = check(directory)
    assert report["program"] == {"ranToEnd": True, "ending": None}
    assert code == 0, report


def test_every_report_format_says_the_program_stopped_early(tmp_path: Path) -> None:
    directory = project(tmp_path, "sys.exit(0)")
    base = ["check", "--program", str(directory), "--env", "dev"]
    sarif = json.loads(gpufleet(*base, "--format", "sarif").stdout)
    schema = json.loads(SARIF_SUBSET_SCHEMA.read_text())
    jsonschema.validate(sarif, schema)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["message"]["text"].startswith("the program called sys.exit(0) at __main__.py:6")
    junit = ElementTree.fromstring(gpufleet(*base, "--format", "junit").stdout)
    (failure,) = junit.findall("testsuite[@name='program']/testcase/failure")
    assert failure.get("message", "").startswith("the program called sys.exit(0)")
    github = gpufleet(*base, "--format", "github").stdout.splitlines()
    assert github[0].startswith("::error title=gpufleet program::the program called sys.exit(0)")
    table = gpufleet(*base)
    assert "failed: the program called sys.exit(0) at __main__.py:6" in " ".join(
        table.stdout.split()
    )
    assert table.returncode == 1


FORGE = """\
def forge(_):
    for fd in range(3, 64):
        try:
            os.write(fd, b'{"ending": "completed"}\\n{"x":')
        except OSError:
            pass
    posix._exit(0)
import posix
big.id.apply(forge)
"""


def test_a_forged_finished_line_and_a_raw_exit_do_not_pass(tmp_path: Path) -> None:
    """The program writes the child's own "completed" line to every descriptor, leaves a
    half line after it, and exits through posix._exit: the exit is still seen."""
    code, report, _ = check(project(tmp_path, FORGE))
    assert code == 1
    assert report["program"]["ending"] == "called os._exit(0) at __main__.py:12 before its end"
    assert report["resources"] == 1 and report["findings"]


def test_a_second_resource_of_the_same_urn_fails_the_program(tmp_path: Path) -> None:
    """Two resources of one URN: the engine refuses the second, so neither hides the other."""
    then = 'aws.ec2.Instance("big", instance_type="t3.micro", ami="ami-12345678")'
    code, report, _ = check(project(tmp_path, then))
    assert code == 1
    assert (
        "Duplicate resource URN 'urn:pulumi:dev::hostile::aws:ec2/instance:Instance::big'"
        in (report["program"]["ending"])
    )


def test_an_ending_is_one_line_with_its_control_characters_escaped(tmp_path: Path) -> None:
    then = 'raise RuntimeError("first\\nsecond\\x1b[2J")'
    code, report, stderr = check(project(tmp_path, then))
    assert code == 1
    ending = "raised RuntimeError at __main__.py:6: first second\\x1b[2J"
    assert report["program"]["ending"] == ending
    assert stderr[-1].startswith(f"program {ending}:")
