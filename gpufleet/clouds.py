"""The clouds gpufleet places GPUs on: one word each, everywhere.

``Cloud`` is the word the spec, the catalog, the plan, the stack config, the components and the
policies use; ``CLOUDS`` lists them in the order plans and tables do. ``PULUMI_PACKAGES`` names
the Pulumi package each cloud's resources come from: resource type tokens start with it
(``azure-native:compute:VirtualMachineScaleSet``) and ``pulumi:disable-default-providers``
lists it.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

Cloud = Literal["aws", "gcp", "azure"]
CLOUDS: tuple[Cloud, ...] = get_args(Cloud)

PULUMI_PACKAGES: dict[Cloud, str] = {"aws": "aws", "gcp": "gcp", "azure": "azure-native"}
_CLOUD_OF_PACKAGE: dict[str, Cloud] = {package: cloud for cloud, package in PULUMI_PACKAGES.items()}


def is_cloud(value: object) -> TypeGuard[Cloud]:
    return value in CLOUDS


def sdk_module(cloud: Cloud) -> str:
    """The Python module of a cloud's Pulumi SDK (``pulumi_azure_native``)."""
    return "pulumi_" + PULUMI_PACKAGES[cloud].replace("-", "_")


def cloud_of_type(type_token: str) -> Cloud | None:
    """The cloud of a resource type token (``aws:ec2/instance:Instance`` -> aws), or None for
    types of other packages."""
    return _CLOUD_OF_PACKAGE.get(type_token.split(":", 1)[0])


# Other Pulumi packages whose resources are a cloud's, though gpufleet reads none of their
# types: the native and classic providers. What one asks for is billed by that cloud.
OTHER_PACKAGES: dict[str, Cloud] = {
    "aws-native": "aws",
    "google-native": "gcp",
    "azure": "azure",
    "azapi": "azure",
}


def cloud_billing(type_token: str) -> Cloud | None:
    """The cloud that bills a resource of this type, whichever of its providers creates it;
    None for other packages (Kubernetes, a component of another project)."""
    package = type_token.split(":", 1)[0]
    return _CLOUD_OF_PACKAGE.get(package) or OTHER_PACKAGES.get(package)
