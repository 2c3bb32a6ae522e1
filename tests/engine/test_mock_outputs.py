"""Realistic outputs under the offline engine: ids and ARNs shaped like the real APIs', in the
provider's region and project, the same for the same name."""

from __future__ import annotations

from gpufleet.engine.mock_outputs import ACCOUNT, realistic_outputs


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
