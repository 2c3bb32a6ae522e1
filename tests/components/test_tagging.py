"""RequiredTags: the keys gpufleet sets cannot be overridden or left empty; GCP label mapping."""

from __future__ import annotations

import re

import pytest

from gpufleet.components.tagging import RequiredTags
from tests.components.component_checks import TAGS


def test_required_tags_cannot_be_overridden() -> None:
    with pytest.raises(ValueError, match="extra tags may not set owner"):
        RequiredTags(
            project="p",
            owner="o",
            cost_center="c",
            environment="e",
            workload="w",
            extra={"owner": "someone-else"},
        )
    with pytest.raises(ValueError, match="project"):
        RequiredTags(project="", owner="o", cost_center="c", environment="e", workload="w")


def test_tags_become_valid_gcp_labels() -> None:
    labels = TAGS.as_labels()
    assert labels == {
        "team": "research",
        "project": "acme-ml",
        "owner": "ml-platform_acme_example",
        "cost-center": "cc-4200",
        "environment": "dev",
        "workload": "trainer",
        "managed-by": "gpufleet",
    }
    for key, value in labels.items():
        assert re.fullmatch(r"[a-z][a-z0-9_-]{0,62}", key)
        assert re.fullmatch(r"[a-z0-9_-]{0,63}", value)
