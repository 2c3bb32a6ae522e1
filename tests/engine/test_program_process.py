"""A program run in its own process, called as a library: what the engine takes from it is
bounded (a program that registers more than that is stopped, and says so)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from gpufleet.engine import program_process
from gpufleet.engine.program_dir import run_program


def test_a_program_that_registers_past_the_limit_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(program_process, "MAX_REGISTRATIONS", 3)
    (tmp_path / "Pulumi.yaml").write_text("name: many\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi\n"
        "for i in range(10):\n"
        "    pulumi.ComponentResource('acme:x:Thing', f'thing-{i}')\n"
    )
    run = run_program(tmp_path, "dev")
    assert not run.ending.finished
    assert run.ending.summary == "registered more than 3 resources; stopped taking them"
    assert len(run.capture.registrations) == 3


def _marking_program(directory: Path) -> Path:
    """A program that leaves a file behind the moment any code of its runs: its main, and a
    module named like one the child process imports before the program may run (``argparse``),
    which the program's directory must not shadow."""
    mark = directory / "ran"
    (directory / "Pulumi.yaml").write_text("name: marks\nruntime: python\n")
    code = f"from pathlib import Path\nPath({str(mark)!r}).write_text('ran')\n"
    (directory / "__main__.py").write_text(code)
    (directory / "argparse.py").write_text(code)
    return mark


def _child_at_its_gate(directory: Path) -> int:
    """The pid of the program's process once it waits for its go (blocked reading a pipe)."""
    for _ in range(600):
        for proc in Path("/proc").iterdir():
            try:
                command = (proc / "cmdline").read_bytes().split(b"\0")
                waiting = (proc / "wchan").read_text()
            except OSError:
                continue
            started = b"gpufleet.engine.program_child" in command
            if started and str(directory).encode() in b" ".join(command) and "pipe" in waiting:
                return int(proc.name)
        time.sleep(0.1)
    raise AssertionError("the program's process never waited for its go")


def _open_files(pid: int) -> int:
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except OSError:
        return 0


def test_the_program_runs_only_once_what_comes_before_it_is_done(tmp_path: Path) -> None:
    mark = _marking_program(tmp_path)
    seen_before: list[bool] = []

    def before() -> None:
        _child_at_its_gate(tmp_path)  # started, its runtime imported: none of the program ran
        seen_before.append(mark.exists())

    run = run_program(tmp_path, "dev", before_start=before)
    assert run.ending.finished, run.ending.summary
    assert seen_before == [False]
    assert mark.exists()


def test_a_failure_before_the_program_leaves_it_unrun(tmp_path: Path) -> None:
    mark = _marking_program(tmp_path)

    def fails() -> None:
        _child_at_its_gate(tmp_path)
        raise RuntimeError("the pack did not start")

    with pytest.raises(RuntimeError, match="the pack did not start"):
        run_program(tmp_path, "dev", before_start=fails)
    assert not mark.exists()


def test_a_process_gone_before_its_program_ran_is_an_ending_said(tmp_path: Path) -> None:
    mark = _marking_program(tmp_path)

    def kill_it() -> None:
        pid = _child_at_its_gate(tmp_path)
        os.kill(pid, signal.SIGKILL)
        # Gone, its files closed: the go then finds no reader.
        while _open_files(pid):
            time.sleep(0.05)

    run = run_program(tmp_path, "dev", before_start=kill_it)
    assert not run.ending.finished
    assert "SIGKILL" in run.ending.summary, run.ending.summary
    assert not mark.exists()


def test_a_finished_program_ends_after_its_threads_and_exit_handlers(tmp_path: Path) -> None:
    """The process skips interpreter teardown, but not the program's own way out: its
    threads are joined and its exit handlers run, in order, and what they print is kept."""
    (tmp_path / "Pulumi.yaml").write_text("name: ends\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        "import atexit, sys, threading, time\n"
        "import pulumi\n"
        "seen = []\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    seen.append('thread')\n"
        "def first():\n"
        "    sys.stdout.write('first handler after ' + ','.join(seen))\n"
        "def second():\n"
        "    sys.stdout.write('second handler;')\n"
        "threading.Thread(target=late).start()\n"
        "atexit.register(first)\n"
        "atexit.register(second)\n"
        "pulumi.ComponentResource('acme:x:Thing', 'thing')\n"
    )
    run = run_program(tmp_path, "dev")
    assert run.ending.finished, run.ending.summary
    assert run.stdout.endswith("second handler;first handler after thread"), run.stdout
    assert len(run.capture.registrations) == 1
