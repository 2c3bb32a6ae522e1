"""The stack a run scales: its ``Pulumi.<env>.yaml`` read as ``gpufleet generate`` wrote it.

Found the way ``gpufleet preview`` and ``gpufleet cost`` find it (``--program``'s Pulumi.yaml
names the stack config directory; ``--config`` names a file instead), flattened by the engine's
own reader, then validated with the stack config's models: what the program would build is
what a run looks for in the cloud.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpufleet.runs.run_parts import ScaleInputError
from gpufleet.stacks import config_keys
from gpufleet.stacks.stack_config import (
    SITE_MODELS,
    AzureRegion,
    Site,
    StackConfigError,
    StackSettings,
    WorkloadPlacement,
    load_site,
    setting_keys,
    site_region,
    validation_problems,
)


@dataclass(frozen=True)
class StackTarget:
    path: Path
    settings: StackSettings
    site: Site


def read_stack(program: Path, stack: str, config_file: Path | None) -> StackTarget:
    """The stack's settings and site; ScaleInputError naming the file and key otherwise."""
    from gpufleet.engine.program_dir import ProgramError, load_project, load_stack_config

    try:
        project = load_project(program)
        path = config_file or project.stack_config_file(stack)
        if not path.is_file():
            raise ScaleInputError(
                [f"{path}: no such stack config; gpufleet generate SPEC --env {stack} writes it"]
            )
        flat, _ = load_stack_config(project.name, path)
    except ProgramError as exc:
        raise ScaleInputError([str(exc)]) from None
    try:
        settings = StackSettings.model_validate(_namespace(flat, config_keys.GPUFLEET, True))
        site = load_site(_namespace(flat, config_keys.SITE, False))
    except ValidationError as exc:
        problems = validation_problems(exc, f"{config_keys.GPUFLEET}:")
        raise ScaleInputError(
            [f"{path}: not what gpufleet generate writes ({problems}); run it again"]
        ) from None
    except StackConfigError as exc:
        raise ScaleInputError([f"{path}: {exc}"]) from None
    return StackTarget(path, settings, site)


def azure_scope(target: StackTarget, workload: WorkloadPlacement) -> tuple[str, AzureRegion]:
    """The subscription and region settings of an Azure workload's stack."""
    site = target.site.azure()
    if site.subscription_id is None:
        raise StackConfigError("site:azure: subscriptionId is not set; gpufleet scale needs it")
    return site.subscription_id, site_region(site.regions, "azure", workload.region)


def check_site(target: StackTarget, workload: WorkloadPlacement) -> None:
    """ScaleInputError naming the ``site:`` setting a run on this workload needs and lacks,
    before any cloud is asked."""
    try:
        if workload.cloud == "gcp":
            target.site.gcp()
        elif workload.cloud == "azure":
            azure_scope(target, workload)
    except StackConfigError as exc:
        raise ScaleInputError([f"{target.path}: {exc}"]) from None


def _namespace(flat: dict[str, str], namespace: str, gpufleet: bool) -> dict[str, Any]:
    """The keys of one namespace, their values as the program reads them: strings as they
    are, objects and lists from the JSON the engine's reader stored them as."""
    strings = {key for key, is_string in setting_keys().items() if is_string and gpufleet}
    found: dict[str, Any] = {}
    prefix = f"{namespace}:"
    for key, value in flat.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix) :]
        if not gpufleet and name not in SITE_MODELS:
            continue
        found[name] = value if name in strings else _json(value)
    return found


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text  # not an object where one belongs: the models say which key
