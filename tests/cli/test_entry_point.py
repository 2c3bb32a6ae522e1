"""The console script and python -m gpufleet: same bytes, same exit status, no traceback when the
reader goes away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.standard_streams import CLOSED_REASON
from tests.helpers import ROOT

EXAMPLE = str(ROOT / "examples" / "workloads.yaml")


def test_no_traceback_when_the_reader_closes_the_pipe() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gpufleet", "catalog", "list", "--format", "csv"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) in (0, 141)
    assert "Traceback" not in stderr


def test_python_dash_m_and_console_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gpufleet", "validate", EXAMPLE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.endswith("ok (8 workloads, 3 environments)\n")
    script = Path(sys.executable).parent / "gpufleet"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "Commands:" in done.stdout


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["catalog", "list", "--format", "csv"], 0),
        (["plan", EXAMPLE, "--format", "json"], 0),
        (["validate", "no-such-spec.yaml"], 2),
    ],
)
def test_console_script_keeps_every_byte_and_the_status(args: list[str], status: int) -> None:
    # The entry point ends the process with os._exit, after flushing what was buffered.
    script = Path(sys.executable).parent / "gpufleet"
    done = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
    expected = CliRunner().invoke(main, args)
    assert done.returncode == status == expected.exit_code
    assert done.stdout == expected.stdout
    assert done.stderr == expected.stderr


def test_sigterm_stops_gpufleet_and_the_program_it_runs(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: sleeper\nruntime: python\n")
    pid_file = tmp_path / "program.pid"
    (program / "__main__.py").write_text(
        f"import os, pathlib, time\npathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
        "time.sleep(600)\n"
    )
    gpufleet = subprocess.Popen(
        [sys.executable, "-m", "gpufleet", "preview", "--program", str(program), "--stack", "dev"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and gpufleet.poll() is None, "the program never ran"
        time.sleep(0.1)
    program_pid = int(pid_file.read_text())
    gpufleet.terminate()
    _, stderr = gpufleet.communicate(timeout=60)
    assert gpufleet.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in stderr
    with pytest.raises(ProcessLookupError):
        os.kill(program_pid, 0)  # killed with gpufleet, not left running


# Every command that prints, run where its output cannot go.
PRINTING = [
    ["plan", EXAMPLE],
    ["plan", EXAMPLE, "--format", "json"],
    ["validate", EXAMPLE],
    ["schema"],
    ["catalog", "list", "--gpu", "H100"],
    ["--help"],
]


def _script(args: list[str], **streams: object) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "gpufleet"
    return subprocess.run([str(script), *args], text=True, check=False, timeout=120, **streams)  # type: ignore[call-overload]


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_a_full_device_is_one_line_and_status_2(args: list[str]) -> None:
    with Path("/dev/full").open("w") as full:
        done = _script(args, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr == "gpufleet: cannot write to standard output: No space left on device\n"


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_a_closed_stdout_is_one_line_and_status_2(args: list[str]) -> None:
    # The descriptor closed in the child only: close_fds keeps the pipe for stderr.
    done = subprocess.run(
        [
            "/bin/sh",
            "-c",
            'exec "$0" "$@" >&-',
            str(Path(sys.executable).parent / "gpufleet"),
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == f"gpufleet: cannot write to standard output: {CLOSED_REASON}\n"


def test_a_closed_or_full_stderr_still_runs_the_command() -> None:
    for redirect in ("2>&-", "2>/dev/full"):
        done = subprocess.run(
            [
                "/bin/sh",
                "-c",
                f'exec "$0" "$@" {redirect}',
                str(Path(sys.executable).parent / "gpufleet"),
                "validate",
                EXAMPLE,
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0 and done.stdout.endswith("ok (8 workloads, 3 environments)\n")


def test_a_reader_going_away_ends_quietly_with_sigpipes_status() -> None:
    script = Path(sys.executable).parent / "gpufleet"
    process = subprocess.Popen(
        [str(script), "catalog", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert stderr == ""


def _with_stdout_closed(*args: str) -> subprocess.CompletedProcess[str]:
    script = str(Path(sys.executable).parent / "gpufleet")
    return subprocess.run(
        ["/bin/sh", "-c", 'exec "$0" "$@" >&-', script, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=ROOT,
    )


def test_a_closed_stdout_fails_only_a_command_that_prints(tmp_path: Path) -> None:
    printing = _with_stdout_closed("schema", "--help")
    assert printing.returncode == 2 and "it is closed" in printing.stderr
    quiet = _with_stdout_closed("pack", str(tmp_path / "pack"))  # says it on stderr only
    assert quiet.returncode == 0, quiet.stderr
    assert (tmp_path / "pack" / "PulumiPolicy.yaml").is_file()
