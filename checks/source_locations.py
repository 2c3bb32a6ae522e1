"""Where a resource came from, for reports that point at a line (SARIF, annotations).

Resources of gpufleet's own stacks point at their workload's entry in the stack config
(``- name: <workload>`` under ``gpufleet:workloads``): that is the line a reviewer changes.
Other resources point at the program line that created them (the SDK's source position),
when it lies inside the project.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpufleet.checks.check_run import Locator, SourceLocation
from gpufleet.engine.analyzer_resources import AnalyzerResource

_WORKLOADS = re.compile(r"^(\s*)gpufleet:workloads:\s*$")
_NAME = re.compile(r"^\s*-\s*name:\s*['\"]?([^'\"#\s]+)")


def workload_lines(stack_config: Path) -> dict[str, int]:
    """Workload name -> line of its ``- name:`` in a gpufleet stack config (1-based)."""
    try:
        lines = stack_config.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
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


def make_locator(
    resources: list[AnalyzerResource], stack_config: Path | None, root: Path
) -> Locator:
    by_urn = {r.urn: r for r in resources}
    workloads = workload_lines(stack_config) if stack_config is not None else {}
    root = root.resolve()

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
        if workload is not None and stack_config is not None:
            return SourceLocation(relative_uri(stack_config, root), workloads[workload])
        if resource.source is not None:
            path = Path(resource.source[0])
            if path.is_absolute() and path.resolve().is_relative_to(root):
                return SourceLocation(relative_uri(path, root), resource.source[1])
        return None

    return locate


def relative_uri(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (POSIX), or as given when outside it."""
    resolved = path.resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)
