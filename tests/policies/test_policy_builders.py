"""What every rule gets from the builders: suppressions with a reason."""

from __future__ import annotations

from gpufleet.policies.testing import PolicyHarness, StackInput
from gpufleet.policy_notes import read_suppressed_note
from tests.policies.inputs import LT, SECURE_LT, TAGS


def test_suppression_with_reason_marks_the_resource_not_applicable() -> None:
    reason = "legacy template, replaced in Q1 (JIRA-42)"
    harness = PolicyHarness(
        config={"imdsv2-required": {"suppressions": [{"resource": "old-*", "reason": reason}]}}
    )
    insecure = {"tags": TAGS, "metadataOptions": {"httpTokens": "optional"}}
    assert harness.analyze(LT, insecure, name="old-template") == []
    assert harness.not_applicable(LT, insecure, name="old-template") == [
        f"imdsv2-required: suppressed: {reason}"
    ]
    assert harness.analyze(LT, insecure, name="new-template") != []


def test_a_stack_policys_suppression_names_its_resource_in_a_note() -> None:
    """A stack policy has no resource of its own in the protocol: its note carries the URN,
    so gpufleet check lists the suppression as a resource policy's."""
    reason = "legacy template, replaced in Q1 (JIRA-42)"
    harness = PolicyHarness(
        config={"required-tags": {"suppressions": [{"resource": "old-*", "reason": reason}]}}
    )
    resources = [
        StackInput(LT, {**SECURE_LT, "tags": {}}, "old-template"),
        StackInput(LT, {**SECURE_LT, "tags": {}}, "old-twin"),
    ]
    assert [v for v in harness.analyze_stack(resources) if v.policy == "required-tags"] == []
    notes = harness.stack_not_applicable(resources)
    read = [read_suppressed_note(n.removeprefix("required-tags: ")) for n in notes]
    assert {(str(note.urn).rsplit("::", 1)[1], note.reason) for note in read if note} == {
        ("old-template", reason),
        ("old-twin", reason),
    }
