"""Honest: a regional group of g2-standard-8 (an L4 each), labelled, that its autoscaler keeps
between 1 and 4 VMs: 4 L4s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

template = gcp.compute.InstanceTemplate(
    f"{NAME}-template",
    name_prefix="l4-serve-",
    machine_type="g2-standard-8",
    disks=[{"source_image": "projects/cos-cloud/global/images/family/cos-stable", "boot": True}],
    network_interfaces=[{"network": "default"}],
    scheduling={"on_host_maintenance": "TERMINATE"},
    labels=TAGS,
)
group = gcp.compute.RegionInstanceGroupManager(
    NAME,
    region="us-central1",
    base_instance_name="l4-serve",
    versions=[{"instance_template": template.self_link_unique, "name": "primary"}],
)
gcp.compute.RegionAutoscaler(
    f"{NAME}-autoscaler",
    region="us-central1",
    target=group.id,
    autoscaling_policy={
        "min_replicas": 1,
        "max_replicas": 4,
        "cooldown_period": 120,
        "cpu_utilization": {"target": 0.6},
    },
)
