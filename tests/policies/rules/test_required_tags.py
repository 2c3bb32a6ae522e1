"""The ``required-tags`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them — the resource's own tags as its provider gives
them, and the tags the machines a group or fleet launches get, as the cloud hands them down."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput, Violation
from tests.policies.inputs import ASG, GCP_TEMPLATE, LT, SECURE_LT, TAGS, policies_of

FLEET = "aws:ec2/fleet:Fleet"
SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
INSTANCE_TAGS = [{"resourceType": "instance", "tags": TAGS}]


def tags_found(harness: PolicyHarness, *resources: StackInput) -> list[Violation]:
    return [v for v in harness.analyze_stack(list(resources)) if v.policy == "required-tags"]


def one(harness: PolicyHarness, type_: str, props: dict[str, Any], **kw: Any) -> list[Violation]:
    return tags_found(harness, StackInput(type_, props, **kw))


def template(name: str = "lt", **props: Any) -> StackInput:
    return StackInput(LT, {**SECURE_LT, "id": f"lt-{name}", **props}, name)


def group_tags(propagate: bool | None) -> list[dict[str, Any]]:
    return [
        {"key": k, "value": v, **({} if propagate is None else {"propagateAtLaunch": propagate})}
        for k, v in TAGS.items()
    ]


def group(
    *, tags: list[dict[str, Any]], template_id: str = "lt-lt", linked: bool = True
) -> StackInput:
    lt_urn = f"urn:pulumi:dev::test::{LT}::lt"
    return StackInput(
        ASG,
        {"maxSize": 1, "launchTemplate": {"id": template_id}, "tags": tags},
        "group",
        property_dependencies={"launchTemplate": [lt_urn]} if linked else {},
    )


def test_required_tags_missing_is_mandatory(dev: PolicyHarness) -> None:
    found = one(dev, LT, {**SECURE_LT, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]
    assert "owner, cost-center, environment" in found[0].message


@pytest.mark.parametrize(
    ("type_", "props", "provider"),
    [
        (LT, SECURE_LT, None),
        (GCP_TEMPLATE, {"machineType": "e2-small", "labels": {**TAGS, "cost-center": "c"}}, None),
        # Tags from the provider's defaultTags count (objects reach providers as JSON text).
        (LT, {"metadataOptions": {"httpTokens": "required"}}, {"defaultTags": '{"tags": %s}'}),
        ("aws:s3/bucketPolicy:BucketPolicy", {"policy": "{}"}, None),  # not taggable
    ],
)
def test_required_tags_pass(
    dev: PolicyHarness, type_: str, props: dict[str, Any], provider: dict[str, Any] | None
) -> None:
    if provider is not None:
        provider = {"defaultTags": provider["defaultTags"] % json.dumps(TAGS)}
    assert one(dev, type_, props, provider=provider) == []


def test_required_tags_gcp_missing_label(dev: PolicyHarness) -> None:
    labels = {k: v for k, v in TAGS.items() if k != "owner"}
    found = one(dev, GCP_TEMPLATE, {"machineType": "e2-small", "labels": labels})
    assert [v.message for v in found] == ["labels missing: owner"]


def test_required_tags_unknown_values_pass_with_an_advisory(dev: PolicyHarness) -> None:
    found = one(dev, LT, {**SECURE_LT, "tags": {**TAGS, "owner": UNKNOWN}})
    assert policies_of(found) == [("required-tags", "advisory")]
    assert "tags.owner can't be known during preview" in found[0].message


def test_required_tags_unrelated_unknown_does_not_downgrade(dev: PolicyHarness) -> None:
    found = one(dev, LT, {**SECURE_LT, "imageId": UNKNOWN, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]


def test_required_tags_unknown_map_cannot_decide(dev: PolicyHarness) -> None:
    found = one(dev, LT, {**SECURE_LT, "tags": UNKNOWN})
    assert policies_of(found) == [("required-tags", "advisory")]


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000"])
def test_required_tags_blank_value_fails(dev: PolicyHarness, blank: str) -> None:
    """A tag whose value is empty or only whitespace names no owner: as good as missing."""
    found = one(dev, LT, {**SECURE_LT, "tags": {**TAGS, "owner": blank}})
    assert [v.message for v in found] == ["tags with blank values: owner"]


def test_required_tags_blank_gcp_label_fails(dev: PolicyHarness) -> None:
    found = one(
        dev, GCP_TEMPLATE, {"machineType": "g2-standard-4", "labels": {**TAGS, "project": "  "}}
    )
    assert [v.message for v in found] == ["labels with blank values: project"]


def test_required_tags_keys_from_config() -> None:
    harness = PolicyHarness(config={"required-tags": {"keys": ["team"]}})
    assert one(harness, LT, {**SECURE_LT, "tags": {"team": "x"}}) == []
    assert policies_of(one(harness, LT, SECURE_LT)) == [("required-tags", "mandatory")]


def test_a_group_whose_template_tags_its_instances_passes(dev: PolicyHarness) -> None:
    """gpufleet's own groups: tags on the group only, instances tagged by the template."""
    found = tags_found(
        dev, template(tagSpecifications=INSTANCE_TAGS), group(tags=group_tags(False))
    )
    assert found == []


def test_a_group_propagating_its_tags_passes_without_template_tags(dev: PolicyHarness) -> None:
    assert tags_found(dev, template(), group(tags=group_tags(True))) == []


@pytest.mark.parametrize("propagate", [False, None])
def test_a_group_whose_instances_launch_untagged_fails(
    dev: PolicyHarness, propagate: bool | None
) -> None:
    """Its own tags stay on it (AWS's default is not to propagate), its template's own tags
    stay on the template: the instances carry none."""
    found = tags_found(dev, template(), group(tags=group_tags(propagate)))
    assert [v.urn.rsplit("::", 1)[1] for v in found] == ["group"]
    assert found[0].message.startswith(
        "its instances' tags missing: project, owner, cost-center, environment"
    )


def test_a_group_from_a_template_outside_the_stack_says_so(dev: PolicyHarness) -> None:
    found = tags_found(dev, group(tags=group_tags(False), template_id="lt-elsewhere", linked=False))
    assert len(found) == 1
    assert "lt-elsewhere is not in this stack" in found[0].message


def test_a_group_found_by_its_templates_literal_id(dev: PolicyHarness) -> None:
    resources = (
        template(tagSpecifications=INSTANCE_TAGS),
        group(tags=group_tags(False), linked=False),
    )
    assert tags_found(dev, *resources) == []


def test_provider_default_tags_do_not_reach_a_groups_tag_list(dev: PolicyHarness) -> None:
    provider = {"defaultTags": json.dumps({"tags": TAGS})}
    found = tags_found(
        dev,
        template(),
        StackInput(
            ASG, {"maxSize": 1, "launchTemplate": {"id": "lt-lt"}}, "group", provider=provider
        ),
    )
    assert {v.message.split(":")[0] for v in found} == {
        "tags missing",
        "its instances' tags missing",
    }


def test_unknown_instance_tag_specifications_are_an_advisory(dev: PolicyHarness) -> None:
    found = tags_found(dev, template(tagSpecifications=UNKNOWN), group(tags=group_tags(False)))
    assert policies_of(found) == [("required-tags", "advisory")]


@pytest.mark.parametrize(
    ("launcher", "passes"),
    [
        # A fleet's and a request's own tags stay on them; templates tag the instances.
        (
            StackInput(
                FLEET,
                {
                    "tags": TAGS,
                    "launchTemplateConfigs": [
                        {"launchTemplateSpecification": {"launchTemplateId": "lt-lt"}}
                    ],
                },
                "fleet",
            ),
            False,
        ),
        (
            StackInput(
                SPOT_FLEET,
                {"tags": TAGS, "launchSpecifications": [{"instanceType": "g6.xlarge"}]},
                "fleet",
            ),
            False,
        ),
        (
            StackInput(
                SPOT_FLEET,
                {
                    "tags": TAGS,
                    "launchSpecifications": [{"instanceType": "g6.xlarge", "tags": TAGS}],
                },
                "fleet",
            ),
            True,
        ),
        (
            StackInput(EKS_NODE_GROUP, {"tags": TAGS, "instanceTypes": ["g6.xlarge"]}, "fleet"),
            False,
        ),
    ],
)
def test_fleet_and_node_group_tags_stay_on_them(
    dev: PolicyHarness, launcher: StackInput, passes: bool
) -> None:
    found = tags_found(dev, template(), launcher)
    assert (found == []) == passes, found


def test_a_fleet_whose_template_tags_its_instances_passes(dev: PolicyHarness) -> None:
    fleet = StackInput(
        FLEET,
        {
            "tags": TAGS,
            "launchTemplateConfigs": [
                {"launchTemplateSpecification": {"launchTemplateId": "lt-lt"}}
            ],
        },
        "fleet",
    )
    assert tags_found(dev, template(tagSpecifications=INSTANCE_TAGS), fleet) == []


@pytest.mark.parametrize(
    "ignore", [{"keys": ["owner"]}, {"keyPrefixes": ["own"]}, {"keys": ["owner", "project"]}]
)
def test_keys_the_provider_ignores_do_not_count(dev: PolicyHarness, ignore: dict[str, Any]) -> None:
    """The AWS provider leaves ignored keys to whatever else manages them: neither its default
    tags nor the resource's own give them."""
    provider = {"defaultTags": json.dumps({"tags": TAGS}), "ignoreTags": json.dumps(ignore)}
    found = one(
        dev, LT, {"metadataOptions": {"httpTokens": "required"}, "tags": TAGS}, provider=provider
    )
    assert len(found) == 1 and "owner" in found[0].message.split("missing: ")[1]
