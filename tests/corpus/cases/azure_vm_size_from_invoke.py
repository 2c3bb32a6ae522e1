"""An Azure VM whose size is read from another VM's size (an invoke): not known offline."""

import pulumi_azure_native as azure
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

reference = azure.compute.get_virtual_machine(resource_group_name="ml", vm_name="reference")
azure.compute.VirtualMachine(
    NAME,
    resource_group_name="ml",
    hardware_profile={"vm_size": reference.license_type},
    tags=TAGS,
)
