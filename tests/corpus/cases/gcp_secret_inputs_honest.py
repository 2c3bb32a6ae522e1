"""Honest: secret inputs on GCP — a secret bucket name, a secret label value and secret
metadata on an L4 VM, a secret target size (an int) on a CPU group."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

gcp.storage.Bucket(
    NAME,
    name=pulumi.Output.secret("acme-ml-dev-datasets"),
    location="US",
    uniform_bucket_level_access=True,
    public_access_prevention="enforced",
    labels=TAGS,
)
gcp.compute.Instance(
    f"{NAME}-l4",
    zone="us-central1-a",
    machine_type="g2-standard-4",
    boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    metadata={"hf-token": pulumi.Output.secret("hf_xxxxxxxxxxxxxxxxx")},
    labels={**TAGS, "owner": pulumi.Output.secret("ml-team")},
)
template = gcp.compute.InstanceTemplate(
    f"{NAME}-cpu-template",
    machine_type="n2-standard-4",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    f"{NAME}-cpu",
    zone="us-central1-a",
    base_instance_name="cpu",
    target_size=pulumi.Output.secret(3),
    versions=[{"instance_template": template.self_link_unique}],
)
