"""A program under ``gpufleet check`` that turns on gpufleet's own processes: it signals
gpufleet (its parent) or the policy pack server (gpufleet's other child, found under /proc).
None of it ends in a pass: gpufleet killed or interrupted exits non-zero and leaves neither the
program nor the pack running; a pack killed is an error exit of one line; a pack stopped is
continued before use, and one stopped mid-call fails at the call's deadline; gpufleet stopped
does nothing until it is continued, then judges what the program registered.

No timing is asserted: waits are bounded by generous timeouts, outcomes by exit status and
messages."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from google.protobuf import empty_pb2

from gpufleet.checks import policy_pack_process
from gpufleet.checks.analyzer_protocol import analyze_request
from gpufleet.checks.policy_pack_process import PolicyPackError, PolicyPackProcess
from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.engine.parent_death import ORPHANED_STATUS
from gpufleet.policies.pack import PACK_DIR
from tests.checks.check_runs import DEV_CONFIG, GPUFLEET, gpufleet
from tests.helpers import ROOT

# An untagged p5.48xlarge (the dev policies' first offence); once the engine has it, the
# program writes its pid and the pack's, then does what each case does.
PROGRAM = """\
import json, os, pathlib, signal, time
import pulumi
import pulumi_aws as aws


def packs():
    # gpufleet's other children: its policy pack servers.
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getppid() and b"pulumi.policy" in command:
            found.append(int(stat.parent.name))
    return found


def act(_):
    pids = {{"program": os.getpid(), "packs": packs()}}
    pathlib.Path({pids_file!r}).write_text(json.dumps(pids))
{action}


big = aws.ec2.Instance("big", instance_type="p5.48xlarge", ami="ami-12345678")
big.id.apply(act)
"""
WAIT_SECONDS = 120.0
# /proc, pidfd_open, prctl: what gpufleet's guarantees rest on, and what these tests observe.
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux process semantics")


def project(tmp_path: Path, action: str) -> tuple[Path, Path]:
    directory = tmp_path / "program"
    directory.mkdir()
    pids = tmp_path / "pids.json"
    (directory / "Pulumi.yaml").write_text("name: hostile\nruntime: python\n")
    (directory / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-east-1\n")
    body = "\n".join(f"    {line}" for line in action.splitlines())
    (directory / "__main__.py").write_text(PROGRAM.format(pids_file=str(pids), action=body))
    return directory, pids


def check_args(directory: Path) -> list[str]:
    return [
        "check",
        *("--program", str(directory), "--env", "dev"),
        *("--policy-config", DEV_CONFIG, "--format", "json"),
    ]


def ended(pid: int, timeout: float = WAIT_SECONDS) -> bool:
    """Whether process ``pid`` ends (or has ended) within ``timeout``: a bound on the wait,
    never a measure of it. A zombie has ended (nobody may be there to reap an orphan)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(fd)


def recorded_pids(path: Path) -> tuple[int, list[int]]:
    pids = json.loads(path.read_text())
    return pids["program"], pids["packs"]


@pytest.mark.parametrize(
    ("sent", "status", "said"),
    [
        (signal.SIGKILL, -signal.SIGKILL, ""),
        (signal.SIGUSR1, -signal.SIGUSR1, ""),
        (signal.SIGTERM, 128 + signal.SIGTERM, "gpufleet: stopped by SIGTERM"),
        (signal.SIGHUP, 128 + signal.SIGHUP, "gpufleet: stopped by SIGHUP"),
        # Not 1, which says "violations found".
        (signal.SIGINT, 128 + signal.SIGINT, "gpufleet: stopped by SIGINT"),
    ],
)
def test_a_program_that_kills_gpufleet_fails_and_leaves_nothing_running(
    tmp_path: Path, sent: signal.Signals, status: int, said: str
) -> None:
    directory, pids = project(
        tmp_path, f"os.kill(os.getppid(), signal.{sent.name})\ntime.sleep(600)"
    )
    done = gpufleet(*check_args(directory))
    assert done.returncode == status, done.stderr
    assert done.stdout == ""  # no report: nothing passed
    assert done.stderr.strip() == said
    program, packs = recorded_pids(pids)
    assert len(packs) == 1
    # Killed with gpufleet: by its clean-up, or (SIGKILL) by the kernel for it.
    for pid in (program, *packs):
        assert ended(pid), f"{pid} still running after gpufleet ended"


@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
def test_a_program_that_kills_the_pack_is_an_error_of_one_line(
    tmp_path: Path, sent: signal.Signals
) -> None:
    directory, _ = project(tmp_path, f"for pid in packs():\n    os.kill(pid, signal.{sent.name})")
    done = gpufleet(*check_args(directory))
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    # The first call gpufleet makes after the program (GetAnalyzerInfo, today) says it.
    assert re.fullmatch(
        rf"policy pack \w+ failed: the policy pack process was killed by {sent.name}", line
    ), line


def test_a_program_that_stops_the_pack_is_still_checked(tmp_path: Path) -> None:
    """gpufleet continues its pack before using it."""
    directory, pids = project(tmp_path, "for pid in packs():\n    os.kill(pid, signal.SIGSTOP)")
    done = gpufleet(*check_args(directory))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["program"] == {"ranToEnd": True, "ending": None}
    assert {f["policy"] for f in report["findings"]} >= {"required-tags", "imdsv2-required"}
    _, packs = recorded_pids(pids)
    assert packs and all(ended(pid) for pid in packs)


def test_a_program_that_stops_gpufleet_waits_for_it_and_is_judged(tmp_path: Path) -> None:
    """Stopped, gpufleet does nothing (it never passes); continued, it checks what the program
    registered, the calls the program made while it was stopped included."""
    directory, _ = project(tmp_path, "os.kill(os.getppid(), signal.SIGSTOP)")
    process = subprocess.Popen(
        [GPUFLEET, *check_args(directory)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        status = _wait_stopped(process.pid)
        assert os.WIFSTOPPED(status), f"gpufleet ended instead: status {status}"
        os.kill(process.pid, signal.SIGCONT)
        stdout, stderr = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 1, stderr
    report = json.loads(stdout)
    assert report["program"] == {"ranToEnd": True, "ending": None}
    assert report["resources"] == 1
    assert {f["policy"] for f in report["findings"]} >= {"required-tags", "imdsv2-required"}


def _wait_stopped(pid: int) -> int:
    """The status of child ``pid`` once it stops (or ends), waiting at most WAIT_SECONDS."""
    found: list[int] = []
    waiter = threading.Thread(
        target=lambda: found.append(os.waitpid(pid, os.WUNTRACED)[1]), daemon=True
    )
    waiter.start()
    waiter.join(WAIT_SECONDS)
    assert found, "gpufleet neither stopped nor ended"
    return found[0]


def _resource() -> AnalyzerResource:
    return AnalyzerResource(
        urn="urn:pulumi:dev::p::aws:s3/bucket:Bucket::b",
        type="aws:s3/bucket:Bucket",
        name="b",
        custom=True,
        inputs={},
        state={},
    )


def test_a_pack_stopped_mid_check_fails_at_the_call_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(policy_pack_process, "CALL_TIMEOUT_SECONDS", 1.0)
    pack = PolicyPackProcess(PACK_DIR, project="p", stack="dev", dry_run=False, config={})
    with pack:
        assert pack.pid is not None
        os.kill(pack.pid, signal.SIGSTOP)
        with pytest.raises(PolicyPackError) as raised:
            pack.stub.GetAnalyzerInfo(empty_pb2.Empty())
        assert str(raised.value) == (
            "policy pack did not answer GetAnalyzerInfo in time; the policy pack process is stopped"
        )
        with pytest.raises(PolicyPackError) as raised:
            pack.stub.call_many("Analyze", [analyze_request(_resource())])
        assert str(raised.value) == (
            "policy pack did not answer Analyze in time; the policy pack process is stopped"
        )
    # Closed: stopped as it was, it was still ended.
    assert pack.pid is None


def test_a_helper_whose_parent_is_gone_ends_at_once() -> None:
    """A helper whose parent died before it asked to die with it ends at once."""
    not_its_parent = os.getppid()  # its parent is this process, not this one's parent
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from gpufleet.engine.parent_death import die_with_parent; "
            f"die_with_parent({not_its_parent}); sys.exit(0)",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=WAIT_SECONDS,
    )
    assert done.returncode == ORPHANED_STATUS, done.stderr


def test_the_helper_script_runs_a_module_as_python_dash_m_does(tmp_path: Path) -> None:
    from gpufleet.engine import parent_death

    (tmp_path / "probe.py").write_text(
        "import os, sys\nprint(sys.argv[1:], sys.path[0] == os.getcwd())\n"
    )
    # Started by an interpreter whose pid it is given: its parent.
    script = (
        "import os, subprocess, sys\n"
        f"done = subprocess.run([sys.executable, {parent_death.__file__!r}, str(os.getpid()), "
        "'probe', 'a', '--b'], capture_output=True, text=True)\n"
        "print(done.stdout, end='')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=WAIT_SECONDS,
    )
    assert done.stdout == "['a', '--b'] True\n", done.stderr
