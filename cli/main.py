"""The ``gpufleet`` command.

Imports of the planner, pydantic and rich happen inside commands so that ``gpufleet --help``
starts in well under 0.3 s. Exit codes: 0 success; 1 the plan is incomplete (a workload could not
be placed) or over an environment's budget; 2 bad input (spec errors, unknown names, bad flags).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from gpufleet import __version__

if TYPE_CHECKING:
    from gpufleet.planner.catalog import Catalog
    from gpufleet.planner.spec import WorkloadSpec

CLOUD_CHOICE = click.Choice(["aws", "gcp", "azure"])


def _fail_input(lines: list[str]) -> NoReturn:
    for line in lines:
        click.echo(line, err=True)
    sys.exit(2)


def _load_catalog(path: Path | None) -> Catalog:
    from gpufleet.planner.catalog import load_catalog

    try:
        return load_catalog(path)
    except (OSError, ValueError) as exc:
        _fail_input([f"{path}: cannot use as a catalog: {exc}"])


def _load_spec(path: Path, catalog: Catalog) -> WorkloadSpec:
    from gpufleet.planner.spec_loader import SpecError, load_spec

    try:
        return load_spec(path, catalog)
    except SpecError as exc:
        _fail_input([str(p) for p in exc.problems])


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="gpufleet")
def main() -> None:
    """Plan cost-optimal GPU capacity on AWS, GCP and Azure from a workload spec.

    \b
    Start here:
      gpufleet validate examples/workloads.yaml
      gpufleet plan examples/workloads.yaml --env prod
      gpufleet plan examples/workloads.yaml --env prod --explain pretrain-llm
      gpufleet catalog list --gpu H100 --cloud aws
    """


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
    help="table for people; json (documented in the README) for scripts.",
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
    "--catalog",
    "catalog_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Use this catalog CSV instead of the shipped one.",
)
def plan(
    spec: Path,
    environments: tuple[str, ...],
    fmt: str,
    explain: str | None,
    top: int,
    catalog_path: Path | None,
) -> None:
    """Choose the cheapest cloud, region, instance and pricing for every workload in SPEC.

    Spot is used only for interruptible work and priced with its interruption overhead;
    always-on serving compares on-demand with 1- and 3-year commitments. Exit status 1 when a
    workload cannot be placed or an environment is over its monthly budget.
    """
    from gpufleet.cli import render
    from gpufleet.planner.optimizer import Planner

    catalog = _load_catalog(catalog_path)
    workload_spec = _load_spec(spec, catalog)
    envs = list(environments) or list(workload_spec.environments)
    unknown = [e for e in envs if e not in workload_spec.environments]
    if unknown:
        defined = ", ".join(workload_spec.environments)
        _fail_input([f"{spec}: no environment {e!r}; defined: {defined}" for e in unknown])
    planner = Planner(workload_spec, catalog)
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
            click.echo(f"{explain} runs in none of: {', '.join(envs)}", err=True)
            sys.exit(1)
        render.explanations(evaluations, top, fmt)
        if any(evaluation.best is None for _, evaluation in evaluations):
            sys.exit(1)
        return
    result = planner.plan(envs)
    render.plan(result, fmt)
    if not result.ok:
        sys.exit(1)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
def validate(spec: Path) -> None:
    """Check SPEC: YAML syntax, fields and values, names, regions and combinations.

    Prints every problem as FILE:LINE: FIELD: MESSAGE and exits 2, or a one-line summary.
    """
    catalog = _load_catalog(None)
    workload_spec = _load_spec(spec, catalog)
    click.echo(
        f"{spec}: ok ({len(workload_spec.workloads)} workloads, "
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
@click.option(
    "--catalog",
    "catalog_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Use this catalog CSV instead of the shipped one.",
)
def catalog_list(
    cloud: str | None,
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
        known = set().union(*(offer_catalog.regions(c) for c in ("aws", "gcp", "azure")))
        if region not in known:
            from gpufleet.planner.spec_loader import did_you_mean

            _fail_input([f"unknown region {region!r}{did_you_mean(region, sorted(known))}"])
    render.offers(offer_catalog.filter(cloud=cloud, gpu=gpu_name, region=region), fmt)
