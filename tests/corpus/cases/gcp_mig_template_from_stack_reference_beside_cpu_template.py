"""A managed instance group whose template is another stack's output, picked through an apply
that also depends on a CPU template of this stack: the dependency names the CPU template, the
value (not known offline) may name a GPU one. It blocks, whatever its size."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

platform = pulumi.StackReference(f"{NAME}-platform", stack_name="acme/ml-platform/dev")
cpu = gcp.compute.InstanceTemplate(
    f"{NAME}-cpu",
    machine_type="n2-standard-8",
    disks=[{"source_image": "projects/debian-cloud/global/images/family/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="train",
    versions=[
        {
            "instance_template": pulumi.Output.all(
                cpu.id, platform.require_output("trainTemplate")
            ).apply(lambda ids: ids[1])
        }
    ],
    target_size=2,
)
