"""The pack's servicer (PackAnalyzer) answers every request exactly as the SDK's own does.

PackAnalyzer re-implements the SDK servicer's Analyze / AnalyzeStack loops to read each
request once; this compares the two response by response on real captures (the deliberately
bad program, in a preview with unknowns and in an update, and the example prod stack) under
configs that exercise suppressions, disabled and remediate levels.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpufleet.checks.analyzer_protocol import (
    analyze_request,
    configure,
    configure_stack,
    pack_info,
    stack_request,
)
from gpufleet.checks.policy_config import reconcile
from gpufleet.engine.analyzer_resources import AnalyzerResource, from_capture
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.rules import all_policies
from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer
from gpufleet.policies.testing import UNKNOWN, InProcessAnalyzer
from gpufleet.policy_notes import STACK_SUPPRESSED_PREFIX
from tests.helpers import ROOT

SUPPRESSING = {
    **json.loads((CONFIG_DIR / "dev.json").read_text()),
    "required-tags": {
        "suppressions": [{"resource": "*", "reason": "all suppressed for this comparison"}]
    },
    "gpu-no-public-ip": {
        "suppressions": [{"resource": "*", "reason": "all suppressed for this comparison"}]
    },
    "imdsv2-required": "remediate",
    "gpu-budget": "disabled",
}


LT = "aws:ec2/launchTemplate:LaunchTemplate"


def _unknowns() -> list[AnalyzerResource]:
    """What a preview leaves unknown: a whole tag map, an instance type, a group's size."""

    def resource(type_: str, name: str, props: dict[str, Any], **extra: Any) -> AnalyzerResource:
        urn = f"urn:pulumi:dev::test::{type_}::{name}"
        return AnalyzerResource(urn, type_, name, True, props, props, **extra)

    secure = {"metadataOptions": {"httpTokens": "required"}}
    lt_urn = f"urn:pulumi:dev::test::{LT}::unknown-type"
    return [
        resource(LT, "unknown-tags", {**secure, "instanceType": "g5.xlarge", "tags": UNKNOWN}),
        resource(LT, "unknown-type", {**secure, "instanceType": UNKNOWN, "tags": {"a": UNKNOWN}}),
        resource(
            "aws:autoscaling/group:Group",
            "unknown-size",
            {"maxSize": UNKNOWN, "launchTemplate": {"id": UNKNOWN}},
            property_dependencies={"launchTemplate": [lt_urn]},
        ),
    ]


@pytest.fixture(autouse=True)
def _stack_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # Both servicers configure the Pulumi runtime from these, as in a pack process.
    for key, value in {
        "PULUMI_PROJECT": "test",
        "PULUMI_STACK": "dev",
        "PULUMI_DRY_RUN": "true",
    }.items():
        monkeypatch.setitem(os.environ, key, value)


def _serve(servicer_class: type, config: dict, dry_run: bool) -> InProcessAnalyzer:
    analyzer = InProcessAnalyzer(
        servicer_class("gpufleet", "0.0.1", all_policies(), EnforcementLevel.MANDATORY)
    )
    configure(analyzer, reconcile(pack_info(analyzer), config))
    configure_stack(analyzer, project="test", stack="dev", dry_run=dry_run, config={})
    return analyzer


@pytest.mark.parametrize(
    ("program", "stack", "preview", "config"),
    [
        ("tests/programs/bad_gpu", "dev", True, "dev"),
        ("tests/programs/bad_gpu", "dev", False, "suppressing"),
        (".", "prod", True, "prod"),
        ("unknowns", "dev", True, "dev"),
    ],
)
def test_pack_analyzer_answers_as_the_sdk_servicer(
    program: str, stack: str, preview: bool, config: str
) -> None:
    policy_config = (
        SUPPRESSING
        if config == "suppressing"
        else json.loads((CONFIG_DIR / f"{config}.json").read_text())
    )
    resources = (
        _unknowns()
        if program == "unknowns"
        else from_capture(run_program_dir(ROOT / program, stack, preview=preview))
    )
    sdk = _serve(_PolicyAnalyzerServicer, policy_config, preview)
    ours = _serve(PackAnalyzer, policy_config, preview)

    answers = 0
    for resource in resources:
        request = analyze_request(resource)
        expected = sdk.Analyze(request)
        assert_same_answer(ours.Analyze(request), expected, resource.urn)
        answers += len(expected.diagnostics) + len(expected.not_applicable)
    request = stack_request(resources)
    expected = sdk.AnalyzeStack(request)
    assert_same_answer(ours.AnalyzeStack(request), expected, "the stack")
    answers += len(expected.diagnostics)
    # Not a comparison of two empty answers.
    assert answers > 0 or program == "."


def assert_same_answer(ours: Any, sdk: Any, what: str) -> None:
    """The same answer, but for what PackAnalyzer adds by design: a finding a rule reports as
    advisory (a preview's unknown, a downgrade) is advisory where the SDK's servicer reports
    it at the policy's level, and a stack policy's suppressions come with notes the SDK drops."""
    assert len(ours.diagnostics) == len(sdk.diagnostics), what
    for mine, theirs in zip(ours.diagnostics, sdk.diagnostics, strict=True):
        if mine.enforcementLevel != theirs.enforcementLevel:
            assert mine.enforcementLevel == analyzer_pb2.ADVISORY, what
            leveled = type(mine)()
            leveled.CopyFrom(mine)
            leveled.enforcementLevel = theirs.enforcementLevel
            mine = leveled
        assert mine == theirs, what
    notes = [n for n in ours.not_applicable if not n.reason.startswith(STACK_SUPPRESSED_PREFIX)]
    assert notes == list(sdk.not_applicable), what


def test_comparison_covers_violations_unknowns_and_suppressions() -> None:
    captured = run_program_dir(ROOT / "tests/programs/bad_gpu", "dev", preview=True)
    resources = from_capture(captured) + _unknowns()
    analyzer = _serve(PackAnalyzer, SUPPRESSING, True)
    responses = [analyzer.Analyze(analyze_request(r)) for r in resources]
    responses.append(analyzer.AnalyzeStack(stack_request(resources)))
    messages = [d.message for r in responses for d in r.diagnostics]
    reasons = [n.reason for r in responses for n in r.not_applicable]
    assert any("during preview" in m for m in messages)
    assert any(r.startswith("suppressed: ") for r in reasons)  # a resource policy's
    assert any(r.startswith(STACK_SUPPRESSED_PREFIX) for r in reasons)  # a stack policy's
    assert len(messages) > 5


def test_struct_reading_matches_the_sdk_deserialization() -> None:
    from google.protobuf import json_format, struct_pb2
    from pulumi_policy.deserialize import (
        SPECIAL_ASSET_SIG,
        SPECIAL_SECRET_SIG,
        SPECIAL_SIG_KEY,
        deserialize_properties,
    )

    from gpufleet.policies.serving.analyzer_servicer import struct_to_python

    values = {
        "text": "a",
        "count": 3,
        "ratio": 0.5,
        "on": False,
        "none": None,
        "empty": {},
        "items": [1, "b", None, [True], {"k": []}],
        "nested": {"tags": {"owner": UNKNOWN}},
        "secret": {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": {"inner": [1]}},
        "asset": {SPECIAL_SIG_KEY: SPECIAL_ASSET_SIG, "text": "hello"},
    }
    struct = struct_pb2.Struct()
    struct.update(values)
    ours = struct_to_python(struct)
    sdk = deserialize_properties(json_format.MessageToDict(struct))
    assert ours["secret"] == sdk["secret"] == {"inner": [1.0]}
    assert ours.pop("asset").text == sdk.pop("asset").text == "hello"
    assert ours == sdk

    infinite = struct_pb2.Struct()
    infinite.update({"n": float("inf")})
    with pytest.raises(ValueError):
        json_format.MessageToDict(infinite)
    with pytest.raises(ValueError):
        struct_to_python(infinite)


def test_a_policy_reading_props_as_a_mapping_sees_the_sdk_proxy() -> None:
    from pulumi_policy import ResourceValidationPolicy

    def validate(args: Any, report_violation: Any) -> None:
        # As CrossGuard examples read props: through the unknown-checking mapping.
        props = args.props
        if props.get("instanceType") == "g5.xlarge" and "tags" in props:
            report_violation(f"tag keys: {sorted(props['tags'])}")

    reader = ResourceValidationPolicy(name="raw-reader", description="reads", validate=validate)
    known = {"instanceType": "g5.xlarge", "tags": {"owner": "o"}}
    resources = [
        *_unknowns(),
        AnalyzerResource(f"urn:pulumi:dev::test::{LT}::known", LT, "known", True, known, known),
    ]
    answers = []
    for servicer_class in (_PolicyAnalyzerServicer, PackAnalyzer):
        analyzer = InProcessAnalyzer(
            servicer_class("p", "0.0.1", [reader], EnforcementLevel.MANDATORY)
        )
        configure(analyzer, reconcile(pack_info(analyzer), {}))
        answers.append([analyzer.Analyze(analyze_request(r)) for r in resources])
    assert answers[0] == answers[1]
    messages = sorted(d.message.split("\n")[-1] for r in answers[1] for d in r.diagnostics)
    assert len(messages) == 3
    assert messages[0].endswith("string value at .instanceType can't be known during preview")
    assert messages[1].endswith("string value at .tags can't be known during preview")
    assert messages[2] == "tag keys: ['owner']"


def test_same_input_memo_keys_on_identity_and_thread() -> None:
    import threading

    from gpufleet.policies.same_input_memo import SameInputMemo

    calls = []
    memo = SameInputMemo(lambda source, extra: calls.append(extra) or [source, extra])
    first = {"a": 1}
    assert memo(first, "x") is memo(first, "x")
    assert memo(dict(first), "x") == [first, "x"]  # equal but another object: computed again
    assert memo(first, "y")[1] == "y"  # other arguments compare by value
    assert len(calls) == 3
    other_thread = []
    worker = threading.Thread(target=lambda: other_thread.append(memo(first, "y")))
    worker.start()
    worker.join()
    assert len(calls) == 4 and other_thread == [[first, "y"]]
