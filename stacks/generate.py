"""Plan a spec for one environment and compute the stack file it should have.

Nothing is written here: ``StackFileChange`` carries the old and new text and the diff, and the
CLI decides (``--check`` compares, ``--dry-run`` prints, otherwise an atomic write).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from gpufleet.planner.catalog import Catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec import WorkloadSpec
from gpufleet.stacks.config_writer import (
    SiteNeed,
    generated_config,
    missing_site_settings,
    stack_settings,
)
from gpufleet.stacks.stack_file import ExistingStackFile, StackFileError, render_stack_file
from gpufleet.text_input import BOM, InputFileError, read_text_file
from gpufleet.yaml_input import MAX_YAML_BYTES


class UnplacedError(Exception):
    """Some workloads of the environment cannot be placed; the stack file would be partial."""

    def __init__(self, environment: str, reasons: list[str]):
        self.environment = environment
        self.reasons = reasons
        super().__init__(f"{environment}: {len(reasons)} workloads cannot be placed")


@dataclass(frozen=True)
class StackFileChange:
    environment: str
    path: Path
    old: str | None
    new: str
    diff: str
    over_budget_usd: float | None
    missing_site: list[SiteNeed]

    @property
    def changed(self) -> bool:
        return self.old != self.new


def plan_stack_file(
    spec: WorkloadSpec,
    catalog: Catalog,
    environment: str,
    path: Path,
    *,
    spec_label: str,
    planner: Planner | None = None,
) -> StackFileChange:
    """The stack file ``environment`` should have at ``path`` (read if it exists).

    Raises UnplacedError, or stack_file.StackFileError for an existing file that cannot be
    read or merged into (a secret under a key gpufleet writes, among others).
    """
    planner = planner or Planner(spec, catalog)
    env_plan = planner.plan_environment(environment)
    if env_plan.unplaced:
        raise UnplacedError(environment, [f"{u.name}: {u.reason}" for u in env_plan.unplaced])
    settings = stack_settings(spec, env_plan, catalog.as_of, planner.assumptions)
    old = _existing_text(path)
    existing = None if old is None else ExistingStackFile.parse(old, str(path))
    new = render_stack_file(
        existing, generated_config(settings), spec_label=spec_label, env=environment
    )
    if existing is not None and existing.bom:
        new = BOM + new
    return StackFileChange(
        environment=environment,
        path=path,
        old=old,
        new=new,
        diff=unified_diff(old, new, str(path)),
        over_budget_usd=env_plan.over_budget_usd,
        missing_site=missing_site_settings(settings, existing.config if existing else {}),
    )


def _existing_text(path: Path) -> str | None:
    """The stack file's text as it is on disk (line endings and a byte-order mark kept), None
    when there is none."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return read_text_file(path, what="a stack config", limit=MAX_YAML_BYTES, keep_bom=True)
    except InputFileError as exc:
        if not path.exists():  # a dangling symlink: the file it names is made
            return None
        raise StackFileError.of(exc) from None


def unified_diff(old: str | None, new: str, path: str) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}",
    )
    return "".join(lines)
