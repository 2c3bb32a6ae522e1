"""The engine's side of the Analyzer protocol: requests as the engine builds them, and
violations without the policy description the SDK puts in front of them."""

from __future__ import annotations

from google.protobuf import json_format

from gpufleet.checks.analyzer_protocol import analyze_request, stack_request, without_description
from gpufleet.engine.analyzer_resources import AnalyzerResource, ProviderRef


def test_requests_carry_inputs_for_analyze_and_state_with_dependencies_for_the_stack() -> None:
    provider = ProviderRef(
        "pulumi:providers:aws", "urn::provider", "default", {"region": "us-west-2"}
    )
    group = AnalyzerResource(
        urn="urn::group",
        type="aws:autoscaling/group:Group",
        name="group",
        custom=True,
        inputs={"maxSize": 4},
        state={"maxSize": 4, "arn": "arn:x"},
        provider=provider,
        dependencies=["urn::tpl"],
        property_dependencies={"launchTemplate": ["urn::tpl"]},
        protect=True,
    )
    one = analyze_request(group)
    assert json_format.MessageToDict(one.properties) == {"maxSize": 4.0}
    assert one.options.protect and one.provider.properties["region"] == "us-west-2"
    (item,) = stack_request([group]).resources
    assert json_format.MessageToDict(item.properties) == {"maxSize": 4.0, "arn": "arn:x"}
    assert list(item.dependencies) == ["urn::tpl"]
    assert list(item.propertyDependencies["launchTemplate"].urns) == ["urn::tpl"]


def test_violation_messages_lose_the_description_prefix_only() -> None:
    description = "GPU machines get no public IP address."
    assert without_description(f"{description}\nnic 0 is public", description) == "nic 0 is public"
    assert without_description(description, description) == description
    assert without_description("something else", description) == "something else"
