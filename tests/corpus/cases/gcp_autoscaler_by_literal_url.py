"""A group of a3-highgpu-8g at size 0, and an autoscaler naming it by a literal URL (no
Output) that keeps 3: 24 GPUs."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    machine_type="a3-highgpu-8g",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
gcp.compute.InstanceGroupManager(
    NAME,
    name="gpu-mig-by-url",
    zone="us-central1-a",
    base_instance_name="gpu",
    target_size=0,
    versions=[{"instance_template": template.self_link_unique}],
)
gcp.compute.Autoscaler(
    f"{NAME}-autoscaler",
    zone="us-central1-a",
    target="projects/acme/zones/us-central1-a/instanceGroupManagers/gpu-mig-by-url",
    autoscaling_policy={"max_replicas": 3, "min_replicas": 3, "cooldown_period": 60},
)
