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
