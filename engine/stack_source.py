"""Where a stack's resources come from, for the commands that analyze a stack offline
(``gpufleet check``, ``gpufleet cost``): the program run under the offline engine, or a
``pulumi stack export`` file.

Either way the stack's config comes along — for an export too, when it can be had (``--config``,
or the project's ``Pulumi.<stack>.yaml`` when the export is of that project) — so what a
generated stack config carries (``gpufleet:limits``) still reaches what analyzes it.
``ProgramError`` and ``DeploymentError`` are the user's mistakes (exit 2); ``ProgramRunError``
is the program raising (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpufleet.engine.analyzer_resources import AnalyzerResource, from_capture, load_deployment
from gpufleet.engine.program_dir import (
    ProgramError,
    ProgramRunError,
    ProgramSetup,
    load_project,
    load_stack_config,
    program_setup,
    run_program,
)
from gpufleet.engine.program_process import ProgramRun
from gpufleet.engine.run_limits import DEFAULT_TIMEOUT_SECONDS


@dataclass(frozen=True)
class StackSource:
    stack: str
    program: Path
    config_file: Path | None = None  # stack config instead of the project's Pulumi.<stack>.yaml
    preview: bool = False
    export_file: Path | None = None  # read this export instead of running the program
    timeout: float = DEFAULT_TIMEOUT_SECONDS  # how long the program may run
    # (stack name, file of its outputs) for each stack the program reads (StackReference)
    stack_references: tuple[tuple[str, Path], ...] = ()


@dataclass(frozen=True)
class LoadedStack:
    resources: list[AnalyzerResource]
    project: str
    # The engine's flat config map ("gpufleet:limits" -> JSON text); empty when unknown.
    config: dict[str, str]
    config_file: Path | None  # the stack config file it came from, when there is one
    # The program's run (how it ended, what it printed); None for an export.
    run: ProgramRun | None = None


def load_stack(
    source: StackSource,
    *,
    partial: bool = False,
    setup: ProgramSetup | None = None,
    before_program: Callable[[], object] | None = None,
) -> LoadedStack:
    """The stack's resources and config. ProgramError / DeploymentError for bad input;
    ProgramRunError when the program does not run to its end, unless ``partial``: then what
    it registered, and its ``run`` says how it ended. ``setup``: the program's project and
    config when already read (``program_setup``). ``before_program``: done before the
    program's code runs, while its process starts (``run_program_process``)."""
    if source.export_file is not None:
        if source.stack_references:
            # An export holds what its stack references read when it was made.
            raise ProgramError(
                "--stack-reference: only for running a program, not with --from-export"
            )
        resources, project_name = load_deployment(source.export_file)
        config, config_file = _export_stack_config(source, project_name)
        return LoadedStack(resources, project_name, config, config_file)
    setup = setup or program_setup(source.program, source.stack, source.config_file)
    run = run_program(
        source.program,
        source.stack,
        preview=source.preview,
        timeout=source.timeout,
        setup=setup,
        stack_references=source.stack_references,
        before_start=before_program,
    )
    if not run.ending.finished and not partial:
        raise ProgramRunError.of(run.ending)
    capture = run.capture
    return LoadedStack(
        from_capture(capture), capture.project, capture.config, setup.config_file, run
    )


def _export_stack_config(
    source: StackSource, project_name: str
) -> tuple[dict[str, str], Path | None]:
    """The stack config an export was made with, where it can be had: ``--config``, else the
    ``Pulumi.<stack>.yaml`` of ``--program``'s project when the export is of that project; none
    for an export from elsewhere."""
    if source.config_file is not None:
        return load_stack_config(project_name, source.config_file)[0], None
    try:
        project = load_project(source.program)
    except ProgramError:
        return {}, None
    path = project.stack_config_file(source.stack)
    if project.name != project_name or not project.has_stack_config(source.stack):
        return {}, None
    return load_stack_config(project.name, path)[0], None
