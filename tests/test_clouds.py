"""The clouds vocabulary: one word per cloud, its Pulumi package, and the cloud of a type token."""

from __future__ import annotations

from gpufleet.clouds import CLOUDS, PULUMI_PACKAGES, cloud_of_type, is_cloud


def test_every_cloud_has_its_package_and_is_found_from_its_type_tokens() -> None:
    assert CLOUDS == ("aws", "gcp", "azure")
    assert set(PULUMI_PACKAGES) == set(CLOUDS)
    assert cloud_of_type("aws:ec2/instance:Instance") == "aws"
    assert cloud_of_type("gcp:compute/instance:Instance") == "gcp"
    assert cloud_of_type("azure-native:compute:VirtualMachineScaleSet") == "azure"
    assert cloud_of_type("azure:compute/linuxVirtualMachine:LinuxVirtualMachine") is None
    assert cloud_of_type("pulumi:providers:aws") is None
    assert is_cloud("gcp") and not is_cloud("oci")
