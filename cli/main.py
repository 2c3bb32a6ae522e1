"""The ``gpufleet`` command.

Imports of the planner, pydantic and rich happen inside commands so that ``gpufleet --help``
starts in well under 0.3 s. Exit codes: 0 success; 1 the plan is incomplete (a workload could not
be placed) or over an environment's budget; 2 bad input (spec errors, unknown names, bad flags).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from gpufleet import __version__

# At import, with the command: check and cost write their output after running an untrusted
# program, which must not get to rewrite the module that writes it.
from gpufleet.atomic_write import STDOUT, write_files
from gpufleet.cli import messages
from gpufleet.cli.progress import activity
from gpufleet.cli.report_targets import ReportTarget, ReportTargetType, report_targets
from gpufleet.clouds import CLOUDS, Cloud, is_cloud
from gpufleet.engine.run_limits import DEFAULT_TIMEOUT_SECONDS

if TYPE_CHECKING:
    from gpufleet.engine.program_process import ProgramRun
    from gpufleet.planner.catalog import Catalog
    from gpufleet.planner.spec import WorkloadSpec

CLOUD_CHOICE = click.Choice(CLOUDS)


class FiniteFloatRange(click.FloatRange):
    """A ``FloatRange`` that refuses NaN (every comparison with it is false, so a plain range
    lets it through) and the infinities."""

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        import math

        number = float(super().convert(value, param, ctx))
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


# The report formats of `check` and `cost`.
CHECK_FORMATS = ("table", "json", "sarif", "junit", "github")
COST_FORMATS = ("table", "json", "markdown", "github")
catalog_option = click.option(
    "--catalog",
    "catalog_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Use this catalog CSV instead of the shipped one.",
)
stack_config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Stack config file to use instead of <stackConfigDir>/Pulumi.<stack>.yaml.",
)
report_output_option = click.option(
    "--output",
    "output",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    help="Write the report to this file instead of standard output (- is standard output; a "
    "symlink is written through, a FIFO or device streamed to, a file replaced atomically).",
)

commitments_option = click.option(
    "--commitments",
    "commitments_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Commitments the account holds, as `gpufleet commitments --output FILE` wrote them "
    "(beside the stack config's site:commitments): only a held commitment prices a "
    "reservation at its committed rate.",
)


def from_export_option(verb: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--from-export FILE``: what the command does with the export, in its help."""
    return click.option(
        "--from-export",
        "export_file",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help=f"{verb} a `pulumi stack export` file instead of running the program.",
    )


preview_option = click.option(
    "--preview",
    "as_preview",
    is_flag=True,
    help="Leave computed values (ids, ARNs, self links) unknown, as pulumi preview does.",
)


def _stack_references(
    _context: click.Context, _parameter: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, Path], ...]:
    references: dict[str, Path] = {}
    for value in values:
        name, equals, file = value.partition("=")
        if not equals or not name or not file:
            raise click.BadParameter(f"{value!r} is not NAME=FILE")
        if name in references:
            raise click.BadParameter(f"stack {name!r} given twice")
        references[name] = Path(file)
    return tuple(references.items())


stack_reference_option = click.option(
    "--stack-reference",
    "stack_references",
    metavar="NAME=FILE",
    multiple=True,
    callback=_stack_references,
    help="The outputs a StackReference to stack NAME (as the program names it) reads: FILE is "
    "what `pulumi stack output --json --show-secrets` prints, or a `pulumi stack export`. "
    "Repeatable; a stack without one has unknown outputs.",
)


def _fail_input(lines: list[str]) -> NoReturn:
    from gpufleet.text_input import shown_problems

    for line in shown_problems(lines):
        messages.echo(line, err=True)
    sys.exit(2)


def _emit_report(
    text: str,
    output: Path | None,
    *,
    job_summary: str | None = None,
    also: Sequence[tuple[Path, str]] = (),
) -> None:
    """A report to ``--output`` or standard output (``_emit_reports``)."""
    _emit_reports([(text, output)], job_summary=job_summary, also=also)


def _emit_reports(
    reports: Sequence[tuple[str, Path | None]],
    *,
    job_summary: str | None = None,
    also: Sequence[tuple[Path, str]] = (),
) -> None:
    """Reports to their files or standard output (a path of None or ``-``; at most one), with
    the command's other files (``also``: a baseline), the files written all or none, then
    standard output; with a ``github`` report its markdown appended to GitHub's job summary
    (``$GITHUB_STEP_SUMMARY``) when the job has one. A file that cannot be written is one
    line, exit 2; the summary's path is checked before anything is written, so a bad one
    leaves nothing half-done."""
    summary = _step_summary() if job_summary is not None else None
    where = f"{summary} ($GITHUB_STEP_SUMMARY)"
    if summary is not None:
        # GitHub makes it a regular file; anything else (a FIFO would block) is a mistake.
        if summary.exists() and not summary.is_file():
            _fail_input([f"{where}: cannot write: not a regular file"])
        if not summary.parent.is_dir():
            _fail_input([f"{where}: cannot write: {summary.parent} is not a folder"])
    files = [(path, text) for text, path in reports if path is not None and path != STDOUT]
    printed = [text for text, path in reports if path is None or path == STDOUT]
    _write_files([*files, *also])
    for text in printed:
        click.echo(text, nl=False)
    if summary is not None and job_summary:
        try:
            with summary.open("a", encoding="utf-8") as handle:
                handle.write(job_summary + "\n")
        except OSError as exc:
            _fail_input([f"{where}: cannot write: {exc.strerror or exc}"])


def _step_summary() -> Path | None:
    """GitHub's job summary file for this step, when there is one."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    return Path(path) if path else None


def _summary_used() -> int | None:
    """Bytes the step's job summary holds already (GitHub's limit is on the whole file, which
    earlier commands of the step may have written to); None when the job has none."""
    summary = _step_summary()
    if summary is None:
        return None
    return summary.stat().st_size if summary.is_file() else 0


def _relative_to_here(path: Path) -> str:
    """``path`` as a command run from here gives it: an absolute path written into a committed
    file would name one machine's checkout."""
    try:
        return Path(os.path.relpath(path.absolute(), Path.cwd())).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def _write_files(files: Sequence[tuple[Path, str]]) -> None:
    """All or none; a failure is one line naming the file, exit 2."""
    try:
        write_files(files)
    except OSError as exc:
        written = " (nothing written)" if len(files) > 1 else ""
        _fail_input([f"{exc.filename}: cannot write: {exc.strerror or exc}{written}"])


def _warn_if_old(as_of: str) -> None:
    """On stderr, the catalog's age when it is past ``GPUFLEET_CATALOG_MAX_AGE_DAYS``."""
    from datetime import UTC, datetime

    from gpufleet.planner.catalog import MAX_AGE_ENV, catalog_age_days, max_catalog_age_days

    age = catalog_age_days(as_of, datetime.now(UTC).date())
    limit = max_catalog_age_days()
    if age is not None and age > limit:
        messages.echo(
            f"warning: prices as of {as_of} are {age} days old (more than {limit}, "
            f"{MAX_AGE_ENV}): refresh them with gpufleet catalog refresh",
            err=True,
        )


def _load_catalog(path: Path | None) -> Catalog:
    from gpufleet.planner.catalog import load_catalog
    from gpufleet.text_input import InputFileError

    try:
        return load_catalog(path)
    except InputFileError as exc:
        _fail_input([str(exc)])


def _check_catalog_in_use() -> None:
    """Read the catalog a command prices from (GPUFLEET_CATALOG's, or the shipped one) before
    it starts: a bad one is one line and exit 2, not a failure deep in a program's run."""
    _load_catalog(None)


def _load_spec(path: Path, catalog: Catalog) -> WorkloadSpec:
    from gpufleet.planner.spec_loader import SpecError, load_spec

    try:
        return load_spec(path, catalog)
    except SpecError as exc:
        _fail_input([str(p) for p in exc.problems])


def _spec_environments(path: Path, spec: WorkloadSpec, environments: Sequence[str]) -> list[str]:
    """The environments ``--env`` names (default: every one of the spec), each the spec's."""
    envs = list(environments) or list(spec.environments)
    unknown = [e for e in envs if e not in spec.environments]
    if unknown:
        defined = ", ".join(spec.environments)
        _fail_input([f"{path}: no environment {e!r}; defined: {defined}" for e in unknown])
    return envs


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="gpufleet")
@click.option(
    "-C",
    "--cwd",
    "cwd",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Run as if started in this directory (as pulumi -C and git -C do): every relative "
    "path, the default --program and stacks/ among them, is read from there.",
)
def main(cwd: Path | None) -> None:
    """Plan cost-optimal GPU capacity on AWS, GCP and Azure from a workload spec.

    \b
    Start here:
      gpufleet validate examples/workloads.yaml
      gpufleet plan examples/workloads.yaml --env prod
      gpufleet plan examples/workloads.yaml --env prod --explain pretrain-llm
      gpufleet catalog list --gpu H100 --cloud aws
      gpufleet generate examples/workloads.yaml --env prod
      gpufleet preview --env prod
      gpufleet check --env prod
      gpufleet cost --env prod
      gpufleet scale eval-harness --env prod --to 1 --for 8h
      gpufleet runs --env prod
      gpufleet rightsize examples/workloads.yaml --usage chat-serving=gpu.csv

    \b
    Shell completion (bash, zsh, fish), once per shell:
      eval "$(_GPUFLEET_COMPLETE=bash_source gpufleet)"   # in ~/.bashrc
    """
    if cwd is not None:
        try:
            os.chdir(cwd)
        except OSError as exc:
            _fail_input([f"-C {cwd}: cannot enter: {exc.strerror or exc}"])


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--env",
    "environments",
    multiple=True,
    metavar="ENV",
    help="Environment to plan (repeatable). Default: every environment in the spec.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json (documented in docs/) for scripts.",
)
@click.option(
    "--explain",
    metavar="NAME",
    help="Show the best candidates for one workload, their costs, and why each lost.",
)
@click.option(
    "--top",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="How many candidates --explain lists.",
)
@click.option(
    "--respect-quotas",
    "quota_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Plan within the account's quotas a saved `gpufleet preflight --format json` found: "
    "each environment's workloads, in spec order, take what they place from what is free.",
)
@catalog_option
def plan(
    spec: Path,
    environments: tuple[str, ...],
    fmt: str,
    explain: str | None,
    top: int,
    quota_file: Path | None,
    catalog_path: Path | None,
) -> None:
    """Choose the cheapest cloud, region, instance and pricing for every workload in SPEC.

    Spot is used only for interruptible work and priced with its interruption overhead;
    always-on serving compares on-demand with 1- and 3-year commitments. Exit status 1 when a
    workload cannot be placed or an environment is over its monthly budget.
    """
    from gpufleet.cli import render
    from gpufleet.planner.optimizer import Planner
    from gpufleet.planner.quotas import QuotaFileError, load_quota_book

    catalog = _load_catalog(catalog_path)
    workload_spec = _load_spec(spec, catalog)
    envs = _spec_environments(spec, workload_spec, environments)
    try:
        quotas = load_quota_book(quota_file) if quota_file is not None else None
    except QuotaFileError as exc:
        _fail_input([str(exc)])
    planner = Planner(workload_spec, catalog, quotas)
    if explain is not None:
        workload = next((w for w in workload_spec.workloads if w.name == explain), None)
        if workload is None:
            names = ", ".join(w.name for w in workload_spec.workloads)
            _fail_input([f"{spec}: no workload named {explain!r}; workloads: {names}"])
        evaluations = [
            (env, planner.evaluate(workload, env))
            for env in envs
            if workload.environments is None or env in workload.environments
        ]
        if not evaluations:
            messages.echo(f"{explain} runs in none of: {', '.join(envs)}", err=True)
            sys.exit(1)
        render.explanations(evaluations, top, fmt)
        _warn_if_old(catalog.as_of)
        if any(evaluation.best is None for _, evaluation in evaluations):
            sys.exit(1)
        return
    result = planner.plan(envs)
    render.plan(result, fmt)
    _warn_if_old(catalog.as_of)
    if not result.ok:
        sys.exit(1)


def _usage_files(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> list[tuple[str | None, Path]]:
    """``[NAME=]FILE`` pairs: the workload a file's samples are all of, if it says."""
    found: list[tuple[str | None, Path]] = []
    for value in values:
        name, sep, file = value.partition("=")
        if sep and name and "/" not in name and not Path(value).exists():
            found.append((name, Path(file)))
        else:
            found.append((None, Path(value)))
    return found


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--usage",
    "usage",
    multiple=True,
    metavar="[NAME=]FILE",
    callback=_usage_files,
    help="GPU samples: nvidia-smi CSV (--query-gpu=timestamp,index,utilization.gpu,"
    "memory.used,memory.total --format=csv) or DCGM exporter text (DCGM_FI_DEV_GPU_UTIL, "
    "DCGM_FI_DEV_FB_USED). NAME= says whose they are; without it a DCGM sample's workload "
    "label says. Repeatable; read streamed, any size.",
)
@click.option(
    "--cloudwatch",
    "regions",
    multiple=True,
    metavar="REGION",
    help="Also read the CloudWatch agent's GPU metrics (CWAgent nvidia_smi_*) of instances "
    "tagged workload=NAME in REGION (AWS credentials: the usual chain). Repeatable.",
)
@click.option(
    "--since-days",
    type=FiniteFloatRange(0.01, 63),
    default=14,
    show_default=True,
    help="How far back --cloudwatch reads.",
)
@click.option(
    "--env",
    "environments",
    multiple=True,
    metavar="ENV",
    help="Environments to price the changes in (repeatable). Default: every one.",
)
@click.option(
    "--min-samples",
    type=click.IntRange(1, 10**9),
    default=100,
    show_default=True,
    help="Fewer utilization samples than this are not judged.",
)
@click.option(
    "--min-hours",
    type=FiniteFloatRange(0, 24 * 366),
    default=24,
    show_default=True,
    help="Samples spanning less than this are not judged.",
)
@click.option(
    "--max-age-days",
    type=FiniteFloatRange(0, 3660),
    default=14,
    show_default=True,
    help="A workload whose newest sample is older is not judged.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json (documented in docs/) for scripts.",
)
@click.option(
    "--write",
    is_flag=True,
    help="Make the recommended changes in SPEC, keeping its comments and layout.",
)
@catalog_option
def rightsize(
    spec: Path,
    usage: list[tuple[str | None, Path]],
    regions: tuple[str, ...],
    since_days: float,
    environments: tuple[str, ...],
    min_samples: int,
    min_hours: float,
    max_age_days: float,
    fmt: str,
    write: bool,
    catalog_path: Path | None,
) -> None:
    """Recommend cheaper GPUs for SPEC's workloads from what their GPUs did.

    Per workload: p50/p95 utilization and memory, then the cheapest change the samples allow
    (share GPUs by MIG, fewer replicas, fewer GPUs a replica, fewer hours), priced by the
    planner, and its monthly saving. Too few or too old samples are said so, not guessed.
    """
    import time
    from datetime import UTC, datetime, timedelta

    from gpufleet.cli import rightsize_render
    from gpufleet.planner.spec_loader import SpecError, parse_spec, read_spec_text
    from gpufleet.rightsizing.cloudwatch_gpu import CloudWatchError
    from gpufleet.rightsizing.judgement import Thresholds
    from gpufleet.rightsizing.recommend import applied
    from gpufleet.rightsizing.recommend import rightsize as recommend
    from gpufleet.rightsizing.usage_reading import read_cloudwatch, read_usage
    from gpufleet.rightsizing.usage_stats import UsageStats
    from gpufleet.text_input import InputFileError

    if not usage and not regions:
        _fail_input(["rightsize needs samples: --usage FILE or --cloudwatch REGION"])
    catalog = _load_catalog(catalog_path)
    workload_spec = _load_spec(spec, catalog)
    try:
        text = read_spec_text(spec)
    except SpecError as exc:
        _fail_input([str(p) for p in exc.problems])
    envs = _spec_environments(spec, workload_spec, environments)
    now = time.time()
    end = datetime.fromtimestamp(now, UTC)
    names = {w.name for w in workload_spec.workloads}
    try:
        stats, unmatched = read_usage(usage)
        measured = read_cloudwatch(regions, sorted(names), end - timedelta(days=since_days), end)
    except (InputFileError, CloudWatchError) as exc:
        _fail_input([str(exc)])
    for name, found_stats in measured.items():
        stats.setdefault(name, UsageStats()).merge(found_stats)
    for name in sorted(set(stats) - names):
        messages.echo(f"samples of {name!r} match no workload of {spec}", err=True)
    if unmatched:
        messages.echo(
            f"{unmatched:,} samples name no workload (give NAME=FILE, or a workload label)",
            err=True,
        )
    limits = Thresholds(min_samples, min_hours, max_age_days)
    found = recommend(text, workload_spec, str(spec), catalog, envs, stats, now, limits)
    rightsize_render.recommendations(found, fmt)
    if write and any(r.edits for r in found):
        changed = applied(text, found)
        try:
            parse_spec(changed, str(spec), catalog)
        except SpecError as exc:  # a change gpufleet proposed must parse: say so, write nothing
            _fail_input([str(p) for p in exc.problems])
        _write_files([(spec, changed)])
        messages.echo(f"{spec}: {sum(1 for r in found if r.edits)} workload(s) changed", err=True)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
def validate(spec: Path) -> None:
    """Check SPEC: YAML syntax, fields and values, names, regions and combinations.

    Prints every problem as FILE:LINE: FIELD: MESSAGE and exits 2, or a one-line summary.
    """
    catalog = _load_catalog(None)
    workload_spec = _load_spec(spec, catalog)
    from gpufleet.text_input import quoted_name

    messages.echo(
        f"{quoted_name(str(spec))}: ok ({len(workload_spec.workloads)} workloads, "
        f"{len(workload_spec.environments)} environments)"
    )


@main.command()
def schema() -> None:
    """Print the JSON Schema of the workload spec (for editor validation and completion)."""
    import json

    from gpufleet.planner.spec import spec_json_schema

    click.echo(json.dumps(spec_json_schema(), indent=2, sort_keys=True))


@main.group()
def catalog() -> None:
    """The GPU offer catalog the planner prices from."""


@catalog.command("list")
@click.option("--cloud", type=CLOUD_CHOICE, help="Only this cloud.")
@click.option("--gpu", help="Only this GPU type (any case or alias, e.g. h100, A100-40GB).")
@click.option("--region", help="Only this region.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@catalog_option
def catalog_list(
    cloud: Cloud | None,
    gpu: str | None,
    region: str | None,
    fmt: str,
    catalog_path: Path | None,
) -> None:
    """List GPU offers: instance type, GPUs, memory, on-demand and spot $/hour."""
    from gpufleet.cli import render
    from gpufleet.planner.gpus import known_gpu_names, normalize_gpu_name

    gpu_name = None
    if gpu is not None:
        gpu_name = normalize_gpu_name(gpu)
        if gpu_name is None:
            _fail_input([f"unknown GPU {gpu!r}; known: {', '.join(known_gpu_names())}"])
    offer_catalog = _load_catalog(catalog_path)
    if region is not None:
        known = set().union(*(offer_catalog.regions(c) for c in CLOUDS))
        if region not in known:
            from gpufleet.planner.spec_loader import did_you_mean

            _fail_input([f"unknown region {region!r}{did_you_mean(region, sorted(known))}"])
    render.offers(offer_catalog.filter(cloud=cloud, gpu=gpu_name, region=region), fmt)


def _cloud_regions(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> dict[Cloud, list[str]]:
    """``CLOUD:REGION`` pairs, by cloud."""
    found: dict[Cloud, list[str]] = {}
    for value in values:
        cloud, sep, region = value.partition(":")
        if not sep or not region or not is_cloud(cloud):
            raise click.BadParameter(
                f"{value!r} is not CLOUD:REGION (CLOUD one of {', '.join(CLOUDS)})"
            )
        if region not in found.setdefault(cloud, []):
            found[cloud].append(region)
    return found


@catalog.command("refresh")
@click.option(
    "--cloud",
    "clouds",
    type=CLOUD_CHOICE,
    multiple=True,
    help="Refresh this cloud's offers (repeatable; default: all three). The others are kept "
    "from the catalog in use.",
)
@click.option(
    "--region",
    "regions",
    multiple=True,
    metavar="CLOUD:REGION",
    callback=_cloud_regions,
    help="Read only these regions of a cloud (repeatable; default: the regions the catalog in "
    "use has for it).",
)
@click.option(
    "--output",
    "output",
    type=click.Path(path_type=Path, dir_okay=False),
    # planner.catalog.CATALOG_ENV: spelled here, since --help must not import the planner
    # (tests/live_prices/test_catalog_age.py holds the two together).
    envvar="GPUFLEET_CATALOG",
    show_envvar=True,
    help="Where to write the refreshed catalog (replaced in one step; nothing is written when "
    "the refresh fails). Point GPUFLEET_CATALOG at it and plan, generate, cost and the policy "
    "pack all price from it.",
)
@click.option(
    "--max-move",
    type=FiniteFloatRange(min=1.0, min_open=True, max=1000.0),
    default=2.0,
    show_default=True,
    help="A price that moves more than this factor either way, or a region losing all or "
    "most of its offers or spot prices, stops the refresh unless --accept-moves.",
)
@click.option("--accept-moves", is_flag=True, help="Take the moves past --max-move.")
@click.option(
    "--gcp-project",
    help="The project whose Compute Engine API lists GCP's machine and accelerator types "
    "(default: GOOGLE_CLOUD_PROJECT).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@catalog_option
def catalog_refresh(
    clouds: tuple[Cloud, ...],
    regions: dict[Cloud, list[str]],
    output: Path | None,
    max_move: float,
    accept_moves: bool,
    gcp_project: str | None,
    fmt: str,
    catalog_path: Path | None,
) -> None:
    """Rebuild the catalog from the clouds' own price APIs (on the one in use, or --catalog).

    \b
    AWS: the Price List (on-demand), EC2 instance types, offerings per zone and spot price
      history (boto3; AWS_PROFILE, keys, SSO or a role).
    GCP: Compute Engine machine and accelerator types per zone, prices from the Cloud Billing
      Catalog (Application Default Credentials).
    Azure: the public Retail Prices API, sizes from Compute resource SKUs (azure-identity;
      AZURE_SUBSCRIPTION_ID).

    Each row keeps its source and the time it was read. The new catalog is checked (positive,
    finite, spot at most on-demand, no move past --max-move unaccepted) and written all or
    nothing.
    """
    from datetime import UTC, datetime

    from gpufleet.cli import catalog_render
    from gpufleet.live_prices.price_source import RefreshError
    from gpufleet.live_prices.refresh import refresh_catalog, write_refreshed

    if output is None:
        _fail_input(
            ["say where to write the refreshed catalog: --output FILE (or GPUFLEET_CATALOG)"]
        )
    unknown = sorted(set(regions) - set(clouds or CLOUDS))
    if unknown:
        _fail_input([f"--region names {', '.join(unknown)}, which this refresh does not read"])
    from gpufleet.planner.catalog import CATALOG_ENV, DEFAULT_CATALOG_PATH

    in_use = os.environ.get(CATALOG_ENV)
    if catalog_path is None and in_use and Path(in_use) == output and not output.exists():
        # The first refresh into GPUFLEET_CATALOG: it builds on the shipped catalog.
        catalog_path = DEFAULT_CATALOG_PATH
    base = _load_catalog(catalog_path)
    started = datetime.now(UTC).replace(microsecond=0)
    try:
        refreshed = refresh_catalog(
            base,
            clouds or CLOUDS,
            started,
            regions=regions,
            gcp_project=gcp_project or os.environ.get("GOOGLE_CLOUD_PROJECT"),
            max_move=max_move,
            accept_moves=accept_moves,
        )
    except RefreshError as exc:
        for line in exc.problems:
            messages.echo(line, err=True)
        messages.echo(f"{output}: not written (the catalog in use is unchanged)", err=True)
        sys.exit(1)
    try:
        write_refreshed(output, refreshed)
    except OSError as exc:
        _fail_input([f"{output}: cannot write: {exc.strerror or exc} (nothing written)"])
    catalog_render.refreshed(refreshed, output, fmt)


@catalog.command("diff")
@click.argument("old", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("new", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
)
def catalog_diff(old: Path, new: Path, fmt: str) -> None:
    """What moved between two catalogs: offers added and removed, prices changed."""
    from gpufleet.cli import catalog_render
    from gpufleet.live_prices.catalog_diff import diff_catalogs

    catalog_render.diff(diff_catalogs(_load_catalog(old), _load_catalog(new)), fmt)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--env",
    "environments",
    multiple=True,
    required=True,
    metavar="ENV",
    help="Environment to generate (repeatable).",
)
@click.option(
    "--stacks-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("stacks"),
    show_default=True,
    help="Where Pulumi.<env>.yaml files live (Pulumi.yaml's stackConfigDir).",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change (CI).")
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@catalog_option
def generate(
    spec: Path,
    environments: tuple[str, ...],
    stacks_dir: Path,
    check: bool,
    dry_run: bool,
    catalog_path: Path | None,
) -> None:
    """Plan SPEC and write stacks/Pulumi.<ENV>.yaml for each --env.

    gpufleet owns the gpufleet:* keys (the placements, providers, tags and limits) and
    pulumi:disable-default-providers; everything else in the file (site:* settings, secrets,
    encryptionsalt, other namespaces, comments) is kept. Prints a unified diff of each change.
    The same spec and catalog always give the same bytes.

    \b
    Exit status: 0 written (or unchanged); 1 with --check when a file would change, or when a
    workload cannot be placed (nothing is written then); 2 bad input.
    """
    from gpufleet.planner.optimizer import Planner
    from gpufleet.stacks.generate import UnplacedError, plan_stack_file
    from gpufleet.stacks.stack_file import StackFileError

    catalog = _load_catalog(catalog_path)
    workload_spec = _load_spec(spec, catalog)
    unknown = [e for e in environments if e not in workload_spec.environments]
    if unknown:
        defined = ", ".join(workload_spec.environments)
        _fail_input([f"{spec}: no environment {e!r}; defined: {defined}" for e in unknown])
    planner = Planner(workload_spec, catalog)
    changes = []
    failed = False
    for env in dict.fromkeys(environments):
        path = stacks_dir / f"Pulumi.{env}.yaml"
        try:
            changes.append(
                plan_stack_file(
                    workload_spec,
                    catalog,
                    env,
                    path,
                    spec_label=_relative_to_here(spec),
                    planner=planner,
                )
            )
        except StackFileError as exc:
            _fail_input([str(exc)])
        except UnplacedError as exc:
            failed = True
            for reason in exc.reasons:
                messages.echo(f"{env}: cannot place {reason}", err=True)
    if failed:
        messages.echo("nothing written: every workload must be placed first", err=True)
        sys.exit(1)
    stale = []
    to_write = []
    for change in changes:
        if change.diff:
            messages.echo_document(change.diff)
        if change.over_budget_usd is not None:
            messages.echo(
                f"{change.environment}: over its monthly budget by {change.over_budget_usd:,.2f} $",
                err=True,
            )
        for need in change.missing_site:
            messages.echo(
                f"{change.path}: set {need.key} (needed by {', '.join(need.workloads)}) "
                "before pulumi up; see docs/deploying.md",
                err=True,
            )
        if not change.changed:
            messages.echo(f"{change.path}: up to date", err=True)
        elif check:
            stale.append(change)
        elif dry_run:
            messages.echo(f"{change.path}: would change (dry run, not written)", err=True)
        else:
            to_write.append(change)
    # Every environment's file, or none of them.
    _write_files([(change.path, change.new) for change in to_write])
    for change in to_write:
        messages.echo(f"{change.path}: written", err=True)
    if stale:
        for change in stale:
            messages.echo(
                f"{change.path}: out of date; run: gpufleet generate {spec} "
                f"--env {change.environment}",
                err=True,
            )
        sys.exit(1)


# Pulumi's stack names (sdk/go/common/tokens: ValidateStackName): letters, digits, "-", "_"
# and "." — so a name cannot reach outside stacks/ ("../x") or break a message line.
_STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


def _stack_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and (not _STACK_NAME.fullmatch(value) or value in (".", "..")):
        raise click.BadParameter(
            f"{json.dumps(value)} is not a stack name: letters, digits, '-', '_' and '.' only, "
            "as Pulumi's",
            ctx=ctx,
            param=param,
        )
    return value


def _check_own_stack_config(program: Path, stack: str, config_file: Path | None) -> None:
    """For gpufleet's own stacks program, its stack config read as `gpufleet generate` writes
    it before the program runs: a bad one is bad input (one line naming the file, exit 2), not
    a program that failed (exit 1). Other programs' configs are theirs to judge."""
    from gpufleet.engine.program_dir import ProgramError, load_project
    from gpufleet.stacks import __file__ as stacks_package

    try:
        project = load_project(program)
    except ProgramError:
        return  # the run says so
    if project.main.resolve() != Path(stacks_package).parent.resolve():
        return
    if config_file is None and not project.has_stack_config(stack):
        return  # the run names the missing file and the stacks there are
    from gpufleet.runs.run_parts import ScaleInputError
    from gpufleet.runs.stack_target import read_stack

    try:
        read_stack(program, stack, config_file)
    except ScaleInputError as exc:
        _fail_input(exc.problems)


def _program_options(command: Callable[..., None]) -> Callable[..., None]:
    options = [
        click.option(
            "--env",
            "stack",
            metavar="ENV",
            callback=_stack_name,
            help="The stack (environment) to run: stacks/Pulumi.<ENV>.yaml.",
        ),
        click.option(
            "-s",
            "--stack",
            "stack",
            metavar="NAME",
            callback=_stack_name,
            help="Same as --env, Pulumi's word.",
        ),
        click.option(
            "--program",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            default=Path(),
            show_default=True,
            help="A Pulumi Python project directory (holding Pulumi.yaml).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@main.command()
@_program_options
@stack_config_option
@preview_option
@stack_reference_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["tree", "json"]),
    default="tree",
    show_default=True,
    help="tree for people; json (resource tree, counts per type, outputs) for scripts.",
)
@click.option(
    "--export",
    "export_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the capture as a `pulumi stack export` file (deployment version 3). "
    "One holding secrets names the passphrase secrets provider (the stack file's "
    "encryptionsalt, or one made from PULUMI_CONFIG_PASSPHRASE), so pulumi stack import "
    "can read it; with neither it is refused, as is one of --preview (unknown ids).",
)
@click.option(
    "--analysis-only",
    "analysis_only",
    is_flag=True,
    help="Write --export even where pulumi stack import would refuse it (a --preview "
    "capture; secrets without a provider): for gpufleet check --from-export and pulumi "
    "policy analyze only.",
)
@click.option(
    "--live",
    is_flag=True,
    help="Run the real `pulumi preview` through the Automation API (needs the Pulumi CLI, "
    "a backend login and cloud credentials).",
)
def preview(
    stack: str | None,
    program: Path,
    config_file: Path | None,
    as_preview: bool,
    stack_references: tuple[tuple[str, Path], ...],
    fmt: str,
    export_path: Path | None,
    analysis_only: bool,
    live: bool,
) -> None:
    """Run a Pulumi program offline and show every resource it would register.

    No Pulumi CLI, credentials or network: the program runs in a process of its own against
    an offline engine speaking Pulumi's resource-monitor protocol, transforms included, with
    realistic mocked ids and outputs. Works on this project's stacks (--env prod) and on any
    Pulumi Python program (--program DIR --stack NAME). What the program prints goes to stderr.

    \b
    Exit status: 0 ok; 1 the program did not run to its end (raised: the error and the
    resource it was building shown; exited early; killed; past the timeout); 2 bad input (no
    Pulumi.yaml, unreadable config).
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack to run"])
    if export_path is not None and as_preview and not analysis_only:
        _fail_input(
            [
                f"--export {export_path}: a --preview capture has unknown ids and provider "
                "references, which pulumi stack import refuses: export without --preview, or "
                "add --analysis-only for an export only gpufleet check and pulumi policy "
                "analyze read"
            ]
        )
    if live:
        _run_live("preview", program, stack)
        return
    _check_own_stack_config(program, stack, config_file)
    from gpufleet.cli import preview_render
    from gpufleet.engine.export_secrets import ExportSecretsError, export_secrets_provider
    from gpufleet.engine.program_dir import ProgramError, ProgramRunError, load_project, run_program
    from gpufleet.engine.stack_export import deployment, deployment_json
    from gpufleet.engine.wire import contains_secret

    try:
        with activity(f"running the {stack} stack's program"):
            run = run_program(
                program,
                stack,
                config_file=config_file,
                preview=as_preview,
                stack_references=stack_references,
            )
    except ProgramError as exc:
        _fail_input([str(exc)])
    _echo_program_output(run)
    if not run.ending.finished:
        messages.echo(ProgramRunError.of(run.ending).describe(), err=True)
        sys.exit(1)
    capture = run.capture
    preview_render.preview(capture, fmt)
    if export_path is not None:
        export = deployment(capture, project_root=program.resolve())
        note = ""
        if contains_secret(export):
            try:
                stack_file = config_file or load_project(program).stack_config_file(stack)
                provider = export_secrets_provider(stack_file)
            except ExportSecretsError as exc:
                if not analysis_only:
                    _fail_input([f"--export {export_path}: {exc}"])
                note = "; secrets without a provider: for analysis only"
            else:
                export["deployment"]["secrets_providers"] = provider
                note = "; its secrets for the passphrase provider"
        _write_files([(export_path, deployment_json(export))])
        messages.echo(
            f"{export_path}: written ({len(capture.registrations)} resources{note})", err=True
        )


@main.command()
@_program_options
@stack_config_option
@preview_option
@stack_reference_option
@from_export_option("Analyze")
@commitments_option
@click.option(
    "--policy-pack",
    "pack_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="A Python policy pack directory (default: gpufleet's, policies/).",
)
@click.option(
    "--policy-config",
    "policy_config",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Policy pack config (default: <pack>/config/<ENV>.json when it exists).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(CHECK_FORMATS),
    default="table",
    show_default=True,
    help="table for people; json for scripts; sarif for code scanning; junit for CI test "
    "reports; github for workflow annotations (+ job summary in $GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--output",
    "outputs",
    type=ReportTargetType(CHECK_FORMATS),
    multiple=True,
    help="Write a report to FILE (- is standard output): the --format one, or FORMAT's "
    "(sarif=gpufleet.sarif). Repeatable, so one run writes every format: --output github=- "
    "--output sarif=F --output junit=F --output json=F. When every --output names a format "
    "and none is -, standard output still gets the --format report. A symlink is written "
    "through, a FIFO or device streamed to, a file replaced atomically; all files or none.",
)
@click.option(
    "--baseline",
    "baseline",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Report only findings not in this baseline file.",
)
@click.option(
    "--write-baseline",
    "write_baseline_to",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record every current finding in this baseline file.",
)
@click.option(
    "--skip-check",
    "skip_checks",
    multiple=True,
    metavar="POLICY[,POLICY...]",
    help="Acknowledge these policies for this run: their findings are listed as suppressed "
    '("skipped by --skip-check") in every format and fail nothing. Repeatable; a name the '
    "pack has no policy of is bad input.",
)
@click.option(
    "--soft-fail",
    "soft_fail",
    is_flag=True,
    help="Exit 0 even with mandatory violations or an unfinished program (reported as "
    "always); bad input still exits 2.",
)
@click.option(
    "--timeout",
    "timeout",
    type=FiniteFloatRange(min=1, max=3600),
    default=DEFAULT_TIMEOUT_SECONDS,
    show_default=True,
    metavar="SECONDS",
    help="Stop the program if it runs longer; the check then fails (what it registered "
    "until then is still checked).",
)
def check(
    stack: str | None,
    program: Path,
    config_file: Path | None,
    as_preview: bool,
    stack_references: tuple[tuple[str, Path], ...],
    export_file: Path | None,
    commitments_file: Path | None,
    pack_dir: Path | None,
    policy_config: Path | None,
    fmt: str,
    outputs: tuple[ReportTarget, ...],
    baseline: Path | None,
    write_baseline_to: Path | None,
    skip_checks: tuple[str, ...],
    soft_fail: bool,
    timeout: float,
) -> None:
    """Check a stack against the CrossGuard policy pack, offline.

    Runs the program with the offline engine (or reads --from-export), starts the policy pack
    as the Pulumi engine does (python -m pulumi.policy) and makes the engine's Analyzer gRPC
    calls, so results match `pulumi preview --policy-pack policies --policy-pack-config
    policies/config/ENV.json`. No Pulumi CLI, credentials or network.

    GPU capacity gpufleet cannot size blocks (gpu-size-undetermined) until it can be sized or
    is acknowledged: a suppression or an "advisory" entry (by type or URN) in the policy
    config, or an inline comment on the statement creating the resource:

    \b
        # gpufleet:skip=gpu-size-undetermined: <why this is fine, 10+ characters>

    \b
    Exit status: 0 no mandatory violations (advisories allowed), or --soft-fail; 1 mandatory
    violations (new ones, with --baseline) or the program did not run to its end; 2 bad input
    (flags, config, export, pack) or an output that cannot be written; 128+N stopped by
    signal N.
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack to check"])
    targets = report_targets(fmt, outputs)
    if export_file is None:
        _check_own_stack_config(program, stack, config_file)
    from gpufleet.checks.skipped_policies import skipped_policy_names

    _check_catalog_in_use()
    from gpufleet.checks.stack_check import CheckInputError, CheckRequest, check_stack
    from gpufleet.cli import check_render
    from gpufleet.policies.pack import PACK_DIR

    request = CheckRequest(
        stack=stack,
        program=program,
        pack_dir=pack_dir or PACK_DIR,
        config_file=config_file,
        preview=as_preview,
        export_file=export_file,
        policy_config=policy_config,
        baseline=baseline,
        write_baseline=write_baseline_to,
        timeout=timeout,
        stack_references=stack_references,
        commitments_file=commitments_file,
        skip_checks=tuple(skipped_policy_names(skip_checks)),
    )
    try:
        with activity(f"checking the {stack} stack"):
            outcome = check_stack(request)
    except CheckInputError as exc:
        _fail_input(exc.problems)
    if outcome.program is not None:
        _echo_program_output(outcome.program)
    reports: list[tuple[str, Path | None]] = []
    summary: str | None = None
    notes: list[str] = []
    summary_used = _summary_used()
    for target in targets:
        assert target.fmt is not None  # report_targets gives each its format
        rendered = check_render.render(outcome.report, target.fmt, summary_used=summary_used)
        reports.append((rendered.text, target.path))
        summary = summary if rendered.summary is None else rendered.summary
        notes += [note for note in rendered.notes if note not in notes]
    baseline_file = [outcome.baseline_file] if outcome.baseline_file else []
    _emit_reports(reports, job_summary=summary, also=baseline_file)
    for note in [*outcome.notices, *notes]:
        messages.echo(note, err=True)
    if outcome.baseline_recorded is not None:
        messages.echo(
            f"{write_baseline_to}: {outcome.baseline_recorded} finding(s) recorded", err=True
        )
    unfinished = outcome.report.program_unfinished
    if unfinished is not None:
        # The resources it registered were checked; the gate still fails.
        messages.echo(
            f"program {unfinished}: the check covers only the "
            f"{outcome.report.resource_count} resource(s) it registered until then",
            err=True,
        )
    failed = bool(outcome.report.mandatory) or unfinished is not None
    if failed and soft_fail:
        messages.echo(
            f"--soft-fail: {len(outcome.report.mandatory)} mandatory violation(s)"
            + (" and an unfinished program" if unfinished is not None else "")
            + " do not fail this run",
            err=True,
        )
    sys.exit(1 if failed and not soft_fail else 0)


def _echo_program_output(run: ProgramRun) -> None:
    """The program's own output (and the warnings it logged), on stderr, never in a report on
    stdout; control characters shown escaped."""
    for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        for line in text.splitlines():
            messages.echo(f"program {name}: {line}", err=True)


@main.command("pack")
@click.argument("output", type=click.Path(path_type=Path, file_okay=False))
def pack_command(output: Path) -> None:
    """Write the policy pack, self-contained, to OUTPUT (a new or empty directory).

    The pack of `gpufleet check`, with the gpufleet modules its rules import, their data, its
    config per environment and a requirements.txt: what `pulumi policy publish` uploads for an
    organisation to enforce, and what `pulumi preview --policy-pack OUTPUT` runs from any
    project, no gpufleet install needed.

    \b
    Exit status: 0 written; 2 OUTPUT exists and is not an empty directory.
    """
    from gpufleet.policies.pack_build import PackBuildError, build_pack

    try:
        built = build_pack(output)
    except PackBuildError as exc:
        _fail_input([str(exc)])
    messages.echo(
        f"{built.directory}: policy pack written ({len(built.modules)} gpufleet modules; "
        f"requires {', '.join(built.requirements)})",
        err=True,
    )


@main.command()
@_program_options
@stack_config_option
@preview_option
@stack_reference_option
@from_export_option("Price")
@commitments_option
@click.option(
    "--policy-config",
    "policy_config",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Policy pack config whose gpu-budget sets the budget (default: "
    "policies/config/<ENV>.json when it exists; else the spec's budget in the stack config).",
)
@click.option(
    "--compare-to",
    "compare_to",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Show the change against this base: a saved `gpufleet cost --format json` report or "
    "a `pulumi stack export` file (e.g. of the base branch).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(COST_FORMATS),
    default="table",
    show_default=True,
    help="table for people; json (documented in docs/cost.md) for scripts and --compare-to; "
    "markdown for a pull-request comment; github for workflow annotations (+ the markdown as "
    "the job summary in $GITHUB_STEP_SUMMARY).",
)
@report_output_option
def cost(
    stack: str | None,
    program: Path,
    config_file: Path | None,
    as_preview: bool,
    stack_references: tuple[tuple[str, Path], ...],
    export_file: Path | None,
    commitments_file: Path | None,
    policy_config: Path | None,
    compare_to: Path | None,
    fmt: str,
    output: Path | None,
) -> None:
    """Price a stack's GPU capacity, per workload and resource, offline.

    Runs the program with the offline engine (or reads --from-export) and prices every GPU
    resource from the catalog with the planner's own rates: instance type x instances x hours
    x rate, under the pricing model the resource says (spot / low-priority, on-demand, mixed,
    per run; a reservation at the committed rate only for what a held commitment pays for —
    site:commitments or --commitments — else on-demand, with what buying one would save).
    Two figures: expected (the sizes the resources' own settings run, 730 h a month) and
    maximum (every group at its max size).
    The gpu-budget policy prices with the same engine, so `gpufleet check` agrees to the cent.

    \b
    Exit status: 0 ok (an advisory budget only warns); 1 over a mandatory budget, or GPU
    capacity that cannot be priced while one is set (what gpu-budget fails), or the program
    raised; 2 bad input.
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack to price"])
    if export_file is None:
        _check_own_stack_config(program, stack, config_file)
    _check_catalog_in_use()
    from gpufleet.capacity.stack_cost import CostInputError, CostRequest, cost_stack
    from gpufleet.cli import cost_render
    from gpufleet.engine.program_dir import ProgramRunError
    from gpufleet.engine.stack_source import StackSource
    from gpufleet.policies.pack import PACK_DIR

    request = CostRequest(
        StackSource(
            stack,
            program,
            config_file=config_file,
            preview=as_preview,
            export_file=export_file,
            stack_references=stack_references,
        ),
        pack_dir=PACK_DIR,
        policy_config=policy_config,
        compare_to=compare_to,
        commitments_file=commitments_file,
    )
    try:
        with activity(f"pricing the {stack} stack"):
            outcome = cost_stack(request)
    except CostInputError as exc:
        _fail_input(exc.problems)
    except ProgramRunError as exc:
        messages.echo(exc.describe(), err=True)
        sys.exit(1)
    # The renderers mask secrets in what they show (before escaping it for a format).
    rendered = cost_render.render(outcome, fmt, summary_used=_summary_used())
    _emit_report(rendered.text, output, job_summary=rendered.summary)
    for note in rendered.notes:
        messages.echo(note, err=True)
    _warn_if_old(outcome.report.cost.catalog_as_of)
    sys.exit(1 if outcome.report.fails_budget else 0)


@main.command()
@_program_options
@stack_config_option
@click.option("--workload", metavar="NAME", help="Only this workload's parts.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json for scripts.",
)
def runs(
    stack: str | None, program: Path, config_file: Path | None, workload: str | None, fmt: str
) -> None:
    """List this month's runs of each workload part on request, against its plan.

    Reads, through the clouds' own SDKs, the ledger `gpufleet scale` keeps in tags on each
    group: hours used this calendar month at the part's full size, runs, the last run, the
    reason given for a run over the plan, and what the hours have cost so far at the
    catalog's rate. Read only.

    \b
    Exit status: 0 listed; 1 a part's cloud could not be read (listed with why, the others
    still are); 2 bad input (no stack config, an unknown workload).
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack's runs to list"])
    _check_catalog_in_use()
    from gpufleet.cli import runs_render
    from gpufleet.runs.month_runs import month_runs
    from gpufleet.runs.run_parts import ScaleInputError

    try:
        found = month_runs(program, stack, config_file, workload)
    except ScaleInputError as exc:
        _fail_input(exc.problems)
    messages.echo(runs_render.render(found, fmt), nl=False)
    sys.exit(1 if any(p.problem for p in found.parts) else 0)


@main.command()
@_program_options
@stack_config_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json for scripts.",
)
@click.option(
    "--output",
    "output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the commitments that pay for this stack's reservations to this file, "
    "for `gpufleet cost --commitments FILE` and `gpufleet check --commitments FILE`.",
)
def commitments(
    stack: str | None, program: Path, config_file: Path | None, fmt: str, output: Path | None
) -> None:
    """Verify the commitments the plan assumes: which reservations they pay for.

    Reads, through the clouds' own SDKs, the account's active commitments — EC2 reserved
    instances and Savings Plans, GCP committed-use discounts (site:gcp project), Azure
    reservations (site:azure subscription) — in the regions of the stack's reserved parts,
    and reports per part: the commitments that pay for it, their term and end, and its
    monthly cost with them, without any, and what buying the plan's commitment for the rest
    would save. Read only.

    Until a commitment is held, gpufleet cost and the gpu-budget policy price a reservation
    at the on-demand rate. Declare the held ones under site:commitments in the stack config
    (the "commitments" list --output writes), or pass --output's file as --commitments.

    \b
    Exit status: 0 every reserved part is paid for by held commitments; 1 some are not, or a
    cloud could not be read (listed with why); 2 bad input.
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack's commitments to verify"])
    _check_catalog_in_use()
    from gpufleet.capacity.commitments_file import commitments_document
    from gpufleet.cli import commitments_render
    from gpufleet.commitments.account_commitments import account_commitments
    from gpufleet.runs.run_parts import ScaleInputError

    try:
        found = account_commitments(program, stack, config_file)
    except ScaleInputError as exc:
        _fail_input(exc.problems)
    files = []
    if output is not None:
        document = commitments_document(found.used, found.environment, found.read_at)
        files.append((output, json.dumps(document, indent=2) + "\n"))
    _emit_report(commitments_render.render(found, fmt), None, also=files)
    sys.exit(0 if found.all_covered else 1)


@main.command()
@_program_options
@stack_config_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table for people; json for scripts and for plan --respect-quotas.",
)
@click.option(
    "--output",
    "output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the preflight as JSON to this file, for gpufleet plan --respect-quotas.",
)
def preflight(
    stack: str | None, program: Path, config_file: Path | None, fmt: str, output: Path | None
) -> None:
    """Check, before pulumi up, that the account's quotas let it run the stack's plan.

    Reads, through the clouds' own SDKs, the quotas the stack's capacity counts against in the
    regions it uses: EC2 vCPU quotas per instance class (Service Quotas), GCP regional GPU
    quotas (site:gcp project), Azure vCPU quotas per VM family and for Spot (site:azure
    subscription). Each part counts at its most instances. Read only.

    \b
    Exit status: 0 everything fits; 1 a quota is short, a need has no quota read, or a cloud
    could not be read (listed with why); 2 bad input.
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack's plan to check"])
    _check_catalog_in_use()
    from gpufleet.cli import preflight_render
    from gpufleet.preflight.preflight_run import preflight as run_preflight
    from gpufleet.runs.run_parts import ScaleInputError

    try:
        found = run_preflight(program, stack, config_file)
    except ScaleInputError as exc:
        _fail_input(exc.problems)
    files = []
    if output is not None:
        files.append((output, json.dumps(found.as_dict(), indent=2) + "\n"))
    _emit_report(preflight_render.render(found, fmt), None, also=files)
    sys.exit(0 if found.ok else 1)


@main.command()
@click.argument("workload")
@_program_options
@stack_config_option
@click.option(
    "--to",
    "count",
    type=click.IntRange(min=0),
    required=True,
    metavar="N",
    help="Instances to run (0 ends the run), filled over the workload's parts that scale.",
)
@click.option(
    "--for",
    "duration",
    metavar="DURATION",
    help="How long the run lasts before its capacity returns to zero: 8h, 90m, 1h30m, 2d "
    "(5 minutes to 30 days). Required with N > 0.",
)
@click.option(
    "--over-plan",
    "over_plan",
    metavar="REASON",
    help="Run even though it takes the workload past the hours its plan gives it this month; "
    "REASON is recorded on the group.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for people; json for scripts.",
)
def scale(
    workload: str,
    stack: str | None,
    program: Path,
    config_file: Path | None,
    count: int,
    duration: str | None,
    over_plan: str | None,
    fmt: str,
) -> None:
    """Run WORKLOAD at N instances for a while, through the clouds' own SDKs.

    Sizes the deployed groups of a workload whose capacity is on request (or on a schedule)
    and leaves a guard in the cloud that returns them to zero when the time is up, even if
    nobody comes back: a scheduled action (AWS), a Cloud Tasks task that resizes the group to
    0, a one-off scaling schedule beside a group's weekly ones or the VMs' own max run
    duration (GCP), an autoscale profile (Azure). See docs/runs.md.

    Each run is booked against the hours the plan gives the workload this calendar month
    (its stack config's expected hours at full size), kept in tags on the group: a run past
    them is refused unless --over-plan REASON says why. `gpufleet runs` lists the month.

    \b
    Exit status: 0 done; 1 a cloud refused or failed (a credential or permission missing,
    the stack not deployed), or the run is past the plan's hours without --over-plan; 2 bad
    input (unknown workload, N above what the stack allows, a bad or missing --for, a part
    that cannot be scaled).
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack's workload to scale"])
    _check_catalog_in_use()
    from gpufleet.cli import scale_render
    from gpufleet.runs.cloud_error import CloudError
    from gpufleet.runs.run_parts import ScaleInputError
    from gpufleet.runs.scale_run import ScaleRequest
    from gpufleet.runs.scale_run import scale as scale_workload
    from gpufleet.runs.usage_ledger import OverPlanError

    request = ScaleRequest(program, stack, config_file, workload, count, duration, over_plan)
    try:
        outcome = scale_workload(request)
    except ScaleInputError as exc:
        _fail_input(exc.problems)
    except (CloudError, OverPlanError) as exc:
        messages.echo(str(exc), err=True)
        sys.exit(1)
    messages.echo(scale_render.render(outcome, fmt), nl=False)


@main.command()
@_program_options
@click.option("--yes", is_flag=True, help="Skip the confirmation.")
def up(stack: str | None, program: Path, yes: bool) -> None:
    """Deploy a stack with the real Pulumi CLI (through the Automation API), refreshed
    first (pulumi up --refresh), so a run in progress keeps its size and its end.

    Needs the Pulumi CLI, a backend login (pulumi login) and cloud credentials; see
    docs/deploying.md. Preview first: gpufleet preview --env ENV.
    """
    if stack is None:
        _fail_input(["give --env ENV (or --stack NAME): which stack to deploy"])
    _need_pulumi_cli(stack)  # said before asking: a yes would be for nothing
    if not yes:
        click.confirm(f"Deploy stack {stack!r} from {program}?", abort=True)
    _run_live("up", program, stack)


def _need_pulumi_cli(stack: str) -> None:
    import shutil

    if shutil.which("pulumi") is None:
        _fail_input(
            [
                f"--live / up need the Pulumi CLI, and `pulumi` is not on PATH. Install it "
                "(https://www.pulumi.com/docs/iac/download-install/), run `pulumi login`, set "
                "cloud credentials, then retry. Offline, without any of that: "
                f"gpufleet preview --env {stack}",
            ]
        )


def _run_live(operation: str, program: Path, stack: str) -> None:
    _need_pulumi_cli(stack)
    from pulumi import automation

    try:
        live_stack = automation.create_or_select_stack(stack_name=stack, work_dir=str(program))
        # Refreshed first: what a run changed (gpufleet scale, outside the program) is what the
        # update starts from, so the settings a stack leaves to runs keep their live values.
        if operation == "preview":
            live_stack.preview(on_output=click.echo, refresh=True)
        else:
            live_stack.up(on_output=click.echo, refresh=True)
    except automation.errors.CommandError as exc:
        messages.echo(f"pulumi {operation} failed: {exc}", err=True)
        sys.exit(1)
