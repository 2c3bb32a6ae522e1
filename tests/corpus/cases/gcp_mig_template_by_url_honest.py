"""Honest: a group of 2 x g2-standard-8 (an L4 each) that names its instance template (in this
stack) by its URL, written out rather than taken from an Output."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    name="l4-batch-v1",
    machine_type="g2-standard-8",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    zone="us-central1-a",
    base_instance_name="l4-batch",
    target_size=2,
    versions=[{"instance_template": "projects/acme-ml-dev/global/instanceTemplates/l4-batch-v1"}],
    opts=pulumi.ResourceOptions(depends_on=[template]),
)
