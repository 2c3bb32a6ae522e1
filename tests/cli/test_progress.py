"""Progress on stderr: a spinner for a long step when stderr is a terminal, never in a pipe;
NO_COLOR turns every style off, bold included."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from gpufleet.cli import tables
from tests.helpers import ROOT

SCRIPT = Path(sys.executable).parent / "gpufleet"
PLAIN = ROOT / "tests" / "programs" / "plain_aws"
ARGS = [str(SCRIPT), "preview", "--program", str(PLAIN), "--stack", "dev"]


def _stderr_on_a_terminal(env: dict[str, str]) -> str:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            ARGS,
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env={**os.environ, **env},
            check=False,
            timeout=300,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 0
    return b"".join(chunks).decode(errors="replace")


def test_a_long_step_shows_a_spinner_on_a_terminal() -> None:
    shown = _stderr_on_a_terminal({"GPUFLEET_PROGRESS_AFTER": "0", "TERM": "xterm"})
    assert "running the dev stack's program" in shown


def test_a_step_shorter_than_the_delay_shows_nothing() -> None:
    shown = _stderr_on_a_terminal({"GPUFLEET_PROGRESS_AFTER": "3000", "TERM": "xterm"})
    assert "running the dev stack" not in shown


def test_no_spinner_in_a_pipe() -> None:
    done = subprocess.run(
        ARGS,
        capture_output=True,
        text=True,
        env={**os.environ, "GPUFLEET_PROGRESS_AFTER": "0"},
        check=False,
        timeout=300,
    )
    assert done.returncode == 0 and "running the dev stack" not in done.stderr


@pytest.mark.parametrize(("no_color", "styled"), [("1", False), ("", True)])
def test_no_color_turns_bold_off_too(
    monkeypatch: pytest.MonkeyPatch, no_color: str, styled: bool
) -> None:
    monkeypatch.setenv("NO_COLOR", no_color)
    out = io.StringIO()
    tables.console(out, force_terminal=True).print(tables.bold("title"))
    assert ("\x1b[" in out.getvalue()) is styled
    assert "title" in out.getvalue()
