"""Where a resource came from, for reports that point at a line (SARIF, annotations).

Resources of gpufleet's own stacks point at their workload's entry in the stack config
(``- name: <workload>`` under ``gpufleet:workloads``): that is the line a reviewer changes.
Other resources point at the program line that created them (the SDK's source position).

Paths are relative to the ``SourceRoot`` (``source_root``): the git work tree holding the
program — GitHub resolves code scanning results and annotations from the repository's root,
whichever directory the check ran from — else the program's directory. A file outside the
root (a stack config given with ``--config``, a library's line) gives no location: a report
never holds an absolute path or one climbing out with ``..``.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpufleet.checks.check_run import Locator, SourceLocation, SourceRoot
from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.text_input import InputFileError, read_text_file
from gpufleet.yaml_input import MAX_YAML_BYTES

_WORKLOADS = re.compile(r"^(\s*)gpufleet:workloads:\s*$")
_NAME = re.compile(r"^\s*-\s*name:\s*['\"]?([^'\"#\s]+)")


def workload_lines(stack_config: Path) -> dict[str, int]:
    """Workload name -> line of its ``- name:`` in a gpufleet stack config (1-based)."""
    try:
        # Read as the stack config was (a program could have swapped it for a FIFO since).
        text = read_text_file(stack_config, what="a stack config", limit=MAX_YAML_BYTES)
    except InputFileError:
        return {}
    lines = text.splitlines()
    found: dict[str, int] = {}
    indent: int | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if indent is None:
            key = _WORKLOADS.match(line)
            indent = len(key[1]) if key else None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) - len(line.lstrip()) <= indent and not stripped.startswith("-"):
            break  # the next key of config:
        name = _NAME.match(line)
        if name:
            found.setdefault(name[1], number)
    return found


def source_root(program: Path) -> SourceRoot:
    """The top of the git work tree holding ``program``, else ``program`` itself. Found by
    looking for ``.git`` (a folder, or the file a linked worktree or submodule has), without
    running git: nothing to install, no safe.directory refusal in a container."""
    start = program.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return SourceRoot(folder, repository=True)
    return SourceRoot(start, repository=False)


def make_locator(
    resources: list[AnalyzerResource], stack_config: Path | None, root: SourceRoot
) -> Locator:
    by_urn = {r.urn: r for r in resources}
    workloads = workload_lines(stack_config) if stack_config is not None else {}
    config_path = relative_path(stack_config, root) if stack_config is not None else None

    def workload_of(resource: AnalyzerResource) -> str | None:
        current: AnalyzerResource | None = resource
        while current is not None:
            if current.type.startswith("gpufleet:"):
                name = current.name.removesuffix("-burst")
                return name if name in workloads else None
            current = by_urn.get(current.parent)
        return None

    def locate(resource: AnalyzerResource) -> SourceLocation | None:
        workload = workload_of(resource)
        if workload is not None and config_path is not None:
            return SourceLocation(config_path, workloads[workload])
        if resource.source is not None:
            path = Path(resource.source[0])
            # The SDK's position is absolute; a relative one would depend on a directory
            # the program chose.
            relative = relative_path(path, root) if path.is_absolute() else None
            if relative is not None:
                return SourceLocation(relative, resource.source[1])
        return None

    return locate


def relative_path(path: Path, root: SourceRoot) -> str | None:
    """``path`` relative to ``root`` (POSIX, symlinks resolved, as GitHub matches files), or
    None when it lies outside."""
    resolved = path.resolve()
    if not resolved.is_relative_to(root.path):
        return None
    return resolved.relative_to(root.path).as_posix()
