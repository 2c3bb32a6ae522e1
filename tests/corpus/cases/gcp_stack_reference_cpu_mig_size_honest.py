"""Honest: a zonal managed instance group of CPU machines (n2-standard-8, its template in the
stack) whose target size is another stack's output, not known offline: it launches no GPU
whatever its size, so there is nothing to size."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

platform = pulumi.StackReference(f"{NAME}-platform", stack_name="acme/ml-platform/dev")
template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="n2-standard-8",
    disks=[{"source_image": "projects/debian-cloud/global/images/family/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="etl",
    versions=[{"instance_template": template.id}],
    target_size=platform.require_output("etlWorkers"),
)
