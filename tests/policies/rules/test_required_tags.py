"""The ``required-tags`` rule through the servicer the pack serves: resources that must pass and
resources that must fail, as users write them."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.testing import UNKNOWN, PolicyHarness
from tests.policies.inputs import ASG, GCP_TEMPLATE, LT, SECURE_LT, TAGS, policies_of


def test_required_tags_missing_is_mandatory(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]
    assert "owner, cost-center, environment" in found[0].message


@pytest.mark.parametrize(
    ("type_", "props", "provider"),
    [
        (LT, SECURE_LT, None),
        (ASG, {"maxSize": 0, "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}, None),
        (GCP_TEMPLATE, {"machineType": "e2-small", "labels": {**TAGS, "cost-center": "c"}}, None),
        # Tags from the provider's defaultTags count (objects reach providers as JSON text).
        (LT, {"metadataOptions": {"httpTokens": "required"}}, {"defaultTags": '{"tags": %s}'}),
        ("aws:s3/bucketPolicy:BucketPolicy", {"policy": "{}"}, None),  # not taggable
    ],
)
def test_required_tags_pass(
    dev: PolicyHarness, type_: str, props: dict[str, Any], provider: dict[str, Any] | None
) -> None:
    import json

    if provider is not None:
        provider = {"defaultTags": provider["defaultTags"] % json.dumps(TAGS)}
    assert dev.analyze(type_, props, provider=provider) == []


def test_required_tags_gcp_missing_label(dev: PolicyHarness) -> None:
    labels = {k: v for k, v in TAGS.items() if k != "owner"}
    found = dev.analyze(GCP_TEMPLATE, {"machineType": "e2-small", "labels": labels})
    assert [v.message for v in found] == ["labels missing: owner"]


def test_required_tags_unknown_values_pass_with_an_advisory(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": {**TAGS, "owner": UNKNOWN}})
    assert policies_of(found) == [("required-tags", "advisory")]
    assert "tags.owner can't be known during preview" in found[0].message


def test_required_tags_unrelated_unknown_does_not_downgrade(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "imageId": UNKNOWN, "tags": {"project": "p"}})
    assert policies_of(found) == [("required-tags", "mandatory")]


def test_required_tags_unknown_map_cannot_decide(dev: PolicyHarness) -> None:
    found = dev.analyze(LT, {**SECURE_LT, "tags": UNKNOWN})
    assert policies_of(found) == [("required-tags", "advisory")]


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u3000"])
def test_required_tags_blank_value_fails(dev: PolicyHarness, blank: str) -> None:
    """A tag whose value is empty or only whitespace names no owner: as good as missing."""
    found = dev.analyze(LT, {**SECURE_LT, "tags": {**TAGS, "owner": blank}})
    assert [v.message for v in found] == ["tags with blank values: owner"]


def test_required_tags_blank_gcp_label_fails(dev: PolicyHarness) -> None:
    found = dev.analyze(
        GCP_TEMPLATE, {"machineType": "g2-standard-4", "labels": {**TAGS, "project": "  "}}
    )
    assert [v.message for v in found if v.policy == "required-tags"] == [
        "labels with blank values: project"
    ]


def test_required_tags_keys_from_config() -> None:
    harness = PolicyHarness(config={"required-tags": {"keys": ["team"]}})
    assert harness.analyze(LT, {**SECURE_LT, "tags": {"team": "x"}}) == []
    assert policies_of(harness.analyze(LT, SECURE_LT)) == [("required-tags", "mandatory")]
