"""Entry point Pulumi runs (``main: stacks/`` in Pulumi.yaml): read the stack config, build.

Config problems stop the program with ``pulumi.RunError`` (a message, no traceback).
"""

import pulumi
from pydantic import ValidationError

from gpufleet.stacks import config_keys
from gpufleet.stacks.program import build_stack
from gpufleet.stacks.stack_config import (
    SITE_MODELS,
    StackConfigError,
    StackSettings,
    load_site,
    setting_keys,
    validation_problems,
)


def _object(config: pulumi.Config, key: str) -> object:
    try:
        return config.get_object(key)
    except pulumi.ConfigTypeError:
        raise pulumi.RunError(f"{config.name}:{key} is not a YAML mapping or list") from None


def _read_settings() -> StackSettings:
    config = pulumi.Config(config_keys.GPUFLEET)
    raw = {}
    for key, is_string in setting_keys().items():
        value = config.get(key) if is_string else _object(config, key)
        if value is not None:
            raw[key] = value
    try:
        return StackSettings.model_validate(raw)
    except ValidationError as exc:
        problems = validation_problems(exc, f"{config_keys.GPUFLEET}:")
        raise pulumi.RunError(
            f"stack config is not what gpufleet generate writes ({problems}); "
            "run: gpufleet generate SPEC --env ENV"
        ) from None


settings = _read_settings()
site_config = pulumi.Config(config_keys.SITE)
try:
    built = build_stack(
        settings, load_site({cloud: _object(site_config, cloud) for cloud in SITE_MODELS})
    )
except StackConfigError as exc:
    raise pulumi.RunError(str(exc)) from None
for workload, summary in built.items():
    pulumi.export(workload, summary)
