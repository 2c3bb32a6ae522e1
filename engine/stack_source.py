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

from dataclasses import dataclass
from pathlib import Path

from gpufleet.engine.analyzer_resources import AnalyzerResource, from_capture, load_deployment
from gpufleet.engine.capture import close_runtime_loop_at_exit
from gpufleet.engine.program_dir import (
    ProgramError,
    load_project,
    load_stack_config,
    run_program_dir,
)


@dataclass(frozen=True)
class StackSource:
    stack: str
    program: Path
    config_file: Path | None = None  # stack config instead of the project's Pulumi.<stack>.yaml
    preview: bool = False
    export_file: Path | None = None  # read this export instead of running the program


@dataclass(frozen=True)
class LoadedStack:
    resources: list[AnalyzerResource]
    project: str
    # The engine's flat config map ("gpufleet:limits" -> JSON text); empty when unknown.
    config: dict[str, str]
    config_file: Path | None  # the stack config file it came from, when there is one


def load_stack(source: StackSource) -> LoadedStack:
    """The stack's resources and config. ProgramError / DeploymentError for bad input,
    ProgramRunError when the program raises."""
    if source.export_file is not None:
        resources, project_name = load_deployment(source.export_file)
        config, config_file = _export_stack_config(source, project_name)
        return LoadedStack(resources, project_name, config, config_file)
    close_runtime_loop_at_exit()
    project = load_project(source.program)
    config_file = source.config_file or project.stack_config_file(source.stack)
    capture = run_program_dir(
        source.program, source.stack, config_file=source.config_file, preview=source.preview
    )
    return LoadedStack(from_capture(capture), capture.project, capture.config, config_file)


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
    if project.name != project_name or not path.is_file():
        return {}, None
    return load_stack_config(project.name, path)[0], None
