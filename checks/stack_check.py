"""``gpufleet check`` end to end, short of rendering: where the resources come from, which pack
and policy config judge them, baselines in and out.

``check_stack(request)`` loads the stack (``engine.stack_source``: the program run under the
offline engine, or a stack export, with its stack's config), then ``run_check``, then the
baseline. Mistakes in what the user gave (flags, files, config, export, pack) raise
``CheckInputError`` (exit 2). A program that does not run to its end (it raised, exited early,
was killed or ran past the timeout) still has what it registered checked; the report says how
it ended (``program_unfinished``), and the check fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from gpufleet.capacity.commitments_file import (
    CommitmentsFileError,
    read_commitments_file,
    stack_config_problems,
    with_commitments,
)
from gpufleet.checks.baseline import BaselineError, apply_baseline, baseline_text, load_baseline
from gpufleet.checks.check_run import CheckReport, run_check
from gpufleet.checks.inline_skips import apply_inline_skips, snapshot
from gpufleet.checks.policy_config import PolicyConfigError, load_policy_config
from gpufleet.checks.policy_pack_process import PolicyPackError, PolicyPackProcess
from gpufleet.checks.skipped_policies import apply_skipped_policies, unknown_policies
from gpufleet.checks.source_locations import make_locator, relative_path, source_root
from gpufleet.engine.analyzer_resources import DeploymentError
from gpufleet.engine.program_dir import ProgramError, program_setup
from gpufleet.engine.program_process import ProgramRun
from gpufleet.engine.run_limits import DEFAULT_TIMEOUT_SECONDS
from gpufleet.engine.stack_source import StackSource, load_stack
from gpufleet.stacks.config_keys import COMMITMENTS_KEY

# Where findings without a location of their own point when there is no stack config file
# inside the root: the project file (code scanning needs a physical location).
PROJECT_FILE = "Pulumi.yaml"


class CheckInputError(Exception):
    """What the user gave cannot be used; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class CheckRequest:
    stack: str
    program: Path
    pack_dir: Path
    config_file: Path | None = None  # stack config instead of the project's Pulumi.<stack>.yaml
    preview: bool = False
    export_file: Path | None = None
    policy_config: Path | None = None  # default: <pack>/config/<stack>.json when it exists
    baseline: Path | None = None
    write_baseline: Path | None = None
    timeout: float = DEFAULT_TIMEOUT_SECONDS  # how long the program may run
    stack_references: tuple[tuple[str, Path], ...] = ()  # (stack name, its outputs' file)
    commitments_file: Path | None = None  # --commitments: held beside site:commitments
    skip_checks: tuple[str, ...] = ()  # --skip-check: policies whose findings are suppressed


@dataclass(frozen=True)
class CheckOutcome:
    report: CheckReport  # with the baseline applied, its paths relative to report.root
    # --write-baseline's file (path, text) and how many findings it records: written by the
    # caller together with the report, all or none.
    baseline_file: tuple[Path, str] | None
    baseline_recorded: int | None
    program: ProgramRun | None = None  # the program's run; None for an export
    # Skip comments that could not be applied (one line each, for stderr).
    notices: list[str] = field(default_factory=list)


def check_stack(request: CheckRequest) -> CheckOutcome:
    """Check one stack; CheckInputError for bad input."""
    try:
        return _check(request)
    except (ProgramError, DeploymentError, BaselineError, PolicyPackError) as exc:
        raise CheckInputError([str(exc)]) from None
    except (PolicyConfigError, CommitmentsFileError) as exc:
        raise CheckInputError(exc.problems) from None


def _check(request: CheckRequest) -> CheckOutcome:
    policy_config = request.policy_config
    default_config = request.pack_dir / "config" / f"{request.stack}.json"
    if policy_config is None and default_config.is_file():
        policy_config = default_config
    known = load_baseline(request.baseline) if request.baseline else set()
    source = StackSource(
        request.stack,
        request.program,
        config_file=request.config_file,
        preview=request.preview,
        export_file=request.export_file,
        timeout=request.timeout,
        stack_references=request.stack_references,
    )
    # Everything the check reads is read before the program runs: the program is untrusted
    # and runs as the same user, so it could rewrite any file read after it started (the
    # policy config, the pack's rules and data, gpufleet's own modules).
    config_read = load_policy_config(policy_config) if policy_config else ({}, "")
    extra = read_commitments_file(request.commitments_file) if request.commitments_file else []
    root = source_root(request.program)
    # Its skip comments as reviewed, not as the program could rewrite them while it runs.
    sources = snapshot(root.path, request.program.resolve())
    pack = setup = None
    if request.export_file is None:
        setup = program_setup(request.program, request.stack, request.config_file)
        if extra:
            setup = replace(setup, config=with_commitments(setup.config, COMMITMENTS_KEY, extra))
        pack = PolicyPackProcess(
            request.pack_dir,
            project=setup.project.name,
            stack=request.stack,
            dry_run=request.preview,
            config=setup.config,
        ).start()  # it loads its rules and data before the program's process starts
    try:
        # What a program registered before it ended early is checked too; the check fails.
        # The program's code runs once the pack has loaded its rules and data (its process
        # starts meanwhile).
        loaded = load_stack(
            source,
            partial=True,
            setup=setup,
            before_program=pack.ready if pack is not None else None,
        )
        resources, stack_file = loaded.resources, loaded.config_file
        problems = stack_config_problems(loaded.config, COMMITMENTS_KEY, stack_file)
        if problems:
            raise CommitmentsFileError(problems)
        report = run_check(
            resources,
            pack_dir=request.pack_dir,
            policy_config=policy_config,
            project=loaded.project,
            stack=request.stack,
            dry_run=request.preview,
            stack_config=with_commitments(loaded.config, COMMITMENTS_KEY, extra),
            locate=make_locator(resources, stack_file, root),
            started=pack,
            loaded_config=config_read,
        )
    finally:
        if pack is not None:
            pack.close()
    if loaded.run is not None and not loaded.run.ending.finished:
        report.program_unfinished = loaded.run.ending.summary
    notices = apply_inline_skips(report, resources, sources, root)
    unknown = unknown_policies(report, request.skip_checks)
    if unknown:
        known = ", ".join(sorted(report.levels))
        raise CheckInputError(
            [f"--skip-check: the pack has no policy {name!r}; it has {known}" for name in unknown]
        )
    apply_skipped_policies(report, request.skip_checks)
    recorded = baseline_file = None
    if request.write_baseline is not None:
        baseline_file = (request.write_baseline, baseline_text(report))
        recorded = len(report.findings)
    apply_baseline(report, known)
    report.baseline = str(request.baseline) if request.baseline is not None else None
    report.root = root
    stack_config = (
        relative_path(stack_file, root) if stack_file is not None and stack_file.exists() else None
    )
    # The program's directory is inside the root (found from it): its project file is too.
    project_file = relative_path(request.program / PROJECT_FILE, root) or PROJECT_FILE
    report.fallback_path = stack_config or project_file
    return CheckOutcome(report, baseline_file, recorded, loaded.run, notices)
