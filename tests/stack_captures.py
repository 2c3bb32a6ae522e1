"""Capturing a stack gpufleet generated, in the test's own process: the program ``gpufleet
check`` runs in a child of its own (``engine.program_process``), run here under the same
offline engine. Tests that capture many generated stacks (random specs) stay fast: the SDKs
are imported once, not per stack. What a child adds (isolation, limits) is tested apart."""

from __future__ import annotations

import runpy
from pathlib import Path

from gpufleet.engine.capture import Capture, capture_program
from gpufleet.engine.program_dir import ProgramSetup, program_setup
from tests.helpers import ROOT

STACKS_MAIN = ROOT / "stacks" / "__main__.py"


def capture_generated(
    project: Path, env: str, *, preview: bool = False
) -> tuple[Capture, ProgramSetup]:
    """The capture of ``project``'s ``env`` stack (gpufleet's program, its stack config), and
    the project and config it ran with."""
    setup = program_setup(project, env)
    capture = capture_program(
        lambda: runpy.run_path(str(STACKS_MAIN), run_name="__main__"),
        project=setup.project.name,
        stack=env,
        preview=preview,
        config=setup.config,
        secret_keys=setup.secret_keys,
    ).capture
    return capture, setup
