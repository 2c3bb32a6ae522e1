"""Rule: every taggable resource carries the cost tags (GCP: labels).

Missing keys are a violation, and so are keys whose value is blank (empty or whitespace: a
tag that names no owner). Keys present with values unknown during a preview pass, with an
advisory note naming them; when the key set itself cannot be known (the whole map is computed)
the rule says it cannot decide rather than passing or failing blindly.
"""

from __future__ import annotations

from gpufleet.capacity.property_values import get_path
from gpufleet.capacity.taggable import read_tags, tag_property
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import COST
from gpufleet.tag_keys import COST_KEYS

CONFIG = {
    "keys": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": 1,
        "uniqueItems": True,
        "default": list(COST_KEYS),
        "description": "Tag keys every taggable resource must carry (GCP: as label keys).",
    },
}


def check_required_tags(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    prop = tag_property(resource.type)
    if prop is None:
        return findings
    reading = read_tags(prop, resource.props, resource.provider_props)
    wanted = [prop.key_for(k) for k in settings["keys"]]
    missing = [k for k in wanted if k not in reading.keys]
    if missing and not reading.keys_unknown:
        findings.violate(f"{prop.name} missing: {', '.join(missing)}")
    empty = [k for k in wanted if k in reading.empty_values]
    if empty:
        findings.violate(f"{prop.name} with blank values: {', '.join(empty)}")
    if findings.violations:
        return findings
    if missing:  # and the key set is unknown: cannot tell
        findings.unknown = (prop.path, get_path(resource.props, *prop.path) or "")
        return findings
    unknown = [k for k in wanted if k in reading.unknown_values]
    if unknown:
        findings.unknown = (
            [*prop.path, unknown[0]],
            get_path(resource.props, *prop.path, unknown[0]),
        )
    return findings


POLICY = resource_policy(
    "required-tags",
    "Taggable resources carry the cost tags (GCP labels) so every GPU dollar has an owner.",
    check_required_tags,
    config=CONFIG,
    display_name="Cost tags on taggable resources",
    tags=[COST],
    applies_to=lambda t: tag_property(t) is not None,
    remediation_steps="Set the tags on the resource, or on the provider (AWS defaultTags, "
    "GCP defaultLabels), or add them with a stack transform.",
)
