"""Realistic outputs under the offline engine: ids and ARNs shaped like the real APIs', in the
provider's region and project, the same for the same name."""

from __future__ import annotations

from gpufleet.engine.mock_outputs import ACCOUNT, invoke_result, realistic_outputs
from gpufleet.engine.wire import INVOKE_PLACEHOLDER


def test_aws_outputs_carry_the_providers_region_and_real_shapes() -> None:
    rid, out = realistic_outputs(
        "aws:ec2/launchTemplate:LaunchTemplate", "tpl", {}, {"region": "eu-west-1"}
    )
    assert rid.startswith("lt-") and out["latestVersion"] == 1
    _, queue = realistic_outputs("aws:sqs/queue:Queue", "q", {}, {"region": "eu-west-1"})
    assert queue["arn"] == f"arn:aws:sqs:eu-west-1:{ACCOUNT}:q"
    assert queue["url"] == f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT}/q"
    assert realistic_outputs("aws:sqs/queue:Queue", "q", {}) != (rid, out)


def test_gcp_and_azure_outputs_are_self_links_and_resource_ids() -> None:
    rid, out = realistic_outputs(
        "gcp:compute/instanceTemplate:InstanceTemplate",
        "t",
        {"namePrefix": "t-", "region": "us-east4"},
        {"project": "acme"},
    )
    assert rid.startswith("projects/acme/global/instanceTemplates/t-")
    assert out["selfLinkUnique"].startswith(out["selfLink"] + "?uniqueId=")
    rid, out = realistic_outputs(
        "azure-native:compute:VirtualMachineScaleSet",
        "vmss",
        {"vmScaleSetName": "workers", "resourceGroupName": "rg"},
    )
    assert "/resourceGroups/rg/providers/Microsoft." in rid
    assert rid.endswith("/virtualMachineScaleSets/workers") and out["name"] == "workers"
    assert realistic_outputs("gcp:compute/instance:Instance", "vm", {"zone": "z"}) == (
        realistic_outputs("gcp:compute/instance:Instance", "vm", {"zone": "z"})
    )


def test_an_invoke_nobody_models_answers_its_text_as_not_known() -> None:
    """What a program reads from an invoke offline must not pass for a real value: its text
    fields are marked (the footprint readers report a machine type so marked), what it was
    asked is echoed, and its numbers and lists stay unset for the SDK's type checks."""
    found = invoke_result("aws:ssm/getParameter:getParameter", {"name": "/ml/gpu-type"})
    assert found["value"] == INVOKE_PLACEHOLDER and found["name"] == "/ml/gpu-type"
    # AWS's public parameters still name the images gpufleet's components look up.
    public = invoke_result("aws:ssm/getParameter:getParameter", {"name": "/aws/service/x"})
    assert public["value"].startswith("ami-")
    shape = invoke_result(
        "aws:ec2/getInstanceType:getInstanceType", {"instanceType": "p5.48xlarge"}
    )
    assert shape["instanceType"] == "p5.48xlarge"  # echoed: the real answer too
    assert shape["hypervisor"] == INVOKE_PLACEHOLDER
    assert "defaultVcpus" not in shape  # a number: unset
    vm = invoke_result("gcp:compute/getInstance:getInstance", {"name": "x"})
    assert vm["machineType"] == INVOKE_PLACEHOLDER
    assert invoke_result("nope:x:y", {}) == {}
