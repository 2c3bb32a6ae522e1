"""A zonal cluster with two more node locations: its default pool's 6 nodes per zone run in 3
zones (its own and the two listed), 18 L4."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-fleet-size"}

gcp.container.Cluster(
    NAME,
    location="us-central1-a",
    node_locations=["us-central1-b", "us-central1-c"],
    initial_node_count=6,
    node_config={"machine_type": "g2-standard-4", "spot": True, "resource_labels": TAGS},
    resource_labels=TAGS,
)
