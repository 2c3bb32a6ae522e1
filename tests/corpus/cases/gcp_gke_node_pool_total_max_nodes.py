"""A regional GKE node pool of a3-highgpu-8g (8 H100s) whose autoscaling caps the whole pool at
6 nodes (total_max_node_count, not per zone) with queued provisioning: 48 H100s."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.NodePool(
    NAME,
    cluster="projects/acme-ml-dev/locations/us-central1/clusters/ml",
    location="us-central1",
    node_locations=["us-central1-a", "us-central1-c"],
    initial_node_count=0,
    autoscaling={"total_min_node_count": 0, "total_max_node_count": 6, "location_policy": "ANY"},
    queued_provisioning={"enabled": True},
    node_config={
        "machine_type": "a3-highgpu-8g",
        "reservation_affinity": {"consume_reservation_type": "NO_RESERVATION"},
        "flex_start": False,
        "resource_labels": {**TAGS, "expected-minutes": "600"},
        "guest_accelerators": [{"type": "nvidia-h100-80gb", "count": 8}],
    },
)
