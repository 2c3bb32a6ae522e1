"""A program run in its own process, called as a library: what the engine takes from it is
bounded (a program that registers more than that is stopped, and says so)."""

from __future__ import annotations

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
    """A program that leaves a file behind the moment its code runs."""
    mark = directory / "ran"
    (directory / "Pulumi.yaml").write_text("name: marks\nruntime: python\n")
    (directory / "__main__.py").write_text(
        f"from pathlib import Path\nPath({str(mark)!r}).write_text('ran')\n"
    )
    return mark


def test_the_program_runs_only_once_what_comes_before_it_is_done(tmp_path: Path) -> None:
    mark = _marking_program(tmp_path)
    seen_before: list[bool] = []
    run = run_program(tmp_path, "dev", before_start=lambda: seen_before.append(mark.exists()))
    assert run.ending.finished
    assert seen_before == [False]
    assert mark.exists()


def test_a_failure_before_the_program_leaves_it_unrun(tmp_path: Path) -> None:
    mark = _marking_program(tmp_path)

    def fails() -> None:
        raise RuntimeError("the pack did not start")

    with pytest.raises(RuntimeError, match="the pack did not start"):
        run_program(tmp_path, "dev", before_start=fails)
    assert not mark.exists()
