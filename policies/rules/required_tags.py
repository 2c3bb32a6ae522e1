"""Rule ``required-tags``: every taggable resource carries the cost tags (GCP: labels), and so
do the machines every group or fleet launches.

Missing keys are a violation, and so are keys whose value is blank (empty or whitespace: a
tag that names no owner). Keys present with values unknown during a preview pass, with an
advisory naming them; when the key set itself cannot be known (the whole map is computed)
the rule says it cannot decide, as an advisory, rather than passing or failing blindly.

What a resource carries follows its provider (``capacity.taggable``: default tags on maps of
tags, keys ``ignoreTags`` takes out of the provider's hands left out); what its machines
carry follows the cloud's own propagation (``capacity.launched_tags``: an Auto Scaling group's
propagated tags or its launch template's instance tags; an EC2 Fleet's or Spot Fleet's
templates and launch specifications, never the request's own tags). A stack policy, since a
group's instances take their tags from another resource, its launch template.
"""

from __future__ import annotations

from gpufleet.capacity.launched_tags import LaunchedTags, launched_tags
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.capacity.taggable import TagReading, read_tags, tag_property, tag_reading
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policy_tags import COST
from gpufleet.tag_keys import COST_KEYS

CONFIG = {
    "keys": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": 1,
        "uniqueItems": True,
        "default": list(COST_KEYS),
        "description": "Tag keys every taggable resource must carry (GCP: as label keys), and "
        "the machines groups and fleets launch.",
    },
}


def check_required_tags(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    launched = launched_tags(resources)
    keys = tuple(settings["keys"])
    for r in resources:
        prop = tag_property(r.type)
        if prop is not None:
            wanted = prop.keys_for(keys)
            _judge(findings, r, wanted, read_tags(prop, r.props, r.provider_props), prop.name)
        machines = launched.get(r.urn)
        if machines is not None and machines.how:
            _judge_launched(findings, r, list(keys), machines)
    return findings


def _judge(
    findings: Findings,
    r: StackResource,
    wanted: list[str],
    reading: TagReading,
    what: str,
    why: str = "",
) -> None:
    """Report what ``reading`` lacks of ``wanted``; an advisory where a preview cannot tell."""
    missing = [k for k in wanted if k not in reading.keys]
    empty = [k for k in wanted if k in reading.empty_values]
    decided = False
    if missing and not reading.keys_unknown:
        findings.violate(f"{what} missing: {', '.join(missing)}{why}", r.urn)
        decided = True
    if empty:
        findings.violate(f"{what} with blank values: {', '.join(empty)}{why}", r.urn)
        decided = True
    if decided:
        return
    if missing:  # and the key set is unknown: cannot tell
        findings.violate(
            f"{what} can't be known during preview (missing so far: {', '.join(missing)})",
            r.urn,
            advisory=True,
        )
        return
    unknown = [k for k in wanted if k in reading.unknown_values]
    if unknown:
        findings.violate(f"{what}.{unknown[0]} can't be known during preview", r.urn, advisory=True)


def _judge_launched(
    findings: Findings, r: StackResource, wanted: list[str], machines: LaunchedTags
) -> None:
    reading = tag_reading(machines.entries, machines.keys_unknown)
    missing = [k for k in wanted if k not in reading.keys]
    if missing and machines.unread and not reading.keys_unknown:
        findings.violate(
            f"its instances' tags missing: {', '.join(missing)} (they get {machines.how}, "
            f"and {machines.unread}: what it gives them cannot be read)",
            r.urn,
        )
        return
    _judge(findings, r, wanted, reading, "its instances' tags", f" (they get {machines.how})")


POLICY = stack_policy(
    "required-tags",
    "Taggable resources, and the machines groups and fleets launch, carry the cost tags (GCP "
    "labels) so every GPU dollar has an owner.",
    check_required_tags,
    config=CONFIG,
    display_name="Cost tags on taggable resources",
    tags=[COST],
    remediation_steps="Set the tags on the resource, or on the provider (AWS defaultTags, "
    "GCP defaultLabels), or add them with a stack transform; for a group or fleet, on what "
    "its machines get them from (propagate_at_launch, the launch template's "
    "tag_specifications for instances).",
)
