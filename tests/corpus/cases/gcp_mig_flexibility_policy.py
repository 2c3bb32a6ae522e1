"""A regional MIG of 3 whose flexibility policy launches a3-highgpu-8g, whatever its CPU
template says: 24 H100s.
"""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

template = gcp.compute.RegionInstanceTemplate(
    f"{NAME}-template",
    region="us-central1",
    machine_type="e2-standard-4",
    disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
    network_interfaces=[{"network": "default"}],
    labels=TAGS,
)
gcp.compute.RegionInstanceGroupManager(
    NAME,
    region="us-central1",
    base_instance_name="train",
    target_size=3,
    versions=[{"instance_template": template.self_link}],
    instance_flexibility_policy={
        "instance_selections": [{"name": "gpu", "rank": 1, "machine_types": ["a3-highgpu-8g"]}]
    },
)
