"""What every rule gets from the builders: suppressions with a reason."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness
from tests.policies.inputs import LT, SECURE_LT


def test_suppression_with_reason_marks_the_resource_not_applicable() -> None:
    reason = "legacy template, replaced in Q1 (JIRA-42)"
    harness = PolicyHarness(
        config={"required-tags": {"suppressions": [{"resource": "old-*", "reason": reason}]}}
    )
    assert harness.analyze(LT, {**SECURE_LT, "tags": {}}, name="old-template") == []
    assert harness.not_applicable(LT, {**SECURE_LT, "tags": {}}, name="old-template") == [
        f"required-tags: suppressed: {reason}"
    ]
    assert harness.analyze(LT, {**SECURE_LT, "tags": {}}, name="new-template") != []
