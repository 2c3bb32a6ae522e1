"""The console script and python -m gpufleet: same bytes, same exit status, no traceback when the
reader goes away."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
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
    assert process.wait(timeout=60) in (0, 1)
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
