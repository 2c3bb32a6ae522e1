"""Entry point Pulumi runs (``main: stacks/`` in Pulumi.yaml): read the stack config, build.

Config problems stop the program with ``pulumi.RunError`` (a message, no traceback).
"""

import json

import pulumi
from pydantic import ValidationError

from gpufleet.stacks.program import SiteConfigError, build_stack, load_site
from gpufleet.stacks.stack_config import SITE_MODELS, StackSettings


def _read_settings() -> StackSettings:
    config = pulumi.Config("gpufleet")
    raw = {}
    for field in StackSettings.model_fields.values():
        if field.alias is None:
            continue
        # Scalars are stored as plain strings, objects and lists as JSON.
        text = config.get(field.alias)
        if text is not None:
            try:
                raw[field.alias] = json.loads(text)
            except json.JSONDecodeError:
                raw[field.alias] = text
    try:
        return StackSettings.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"gpufleet:{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise pulumi.RunError(
            f"stack config is not what gpufleet generate writes ({problems}); "
            "run: gpufleet generate SPEC --env ENV"
        ) from None


settings = _read_settings()
site_config = pulumi.Config("site")
try:
    built = build_stack(
        settings, load_site({cloud: site_config.get_object(cloud) for cloud in SITE_MODELS})
    )
except SiteConfigError as exc:
    raise pulumi.RunError(str(exc)) from None
for workload, summary in built.items():
    pulumi.export(workload, summary)
