"""A sole-tenant node template of n1 nodes with 4 T4s attached each, and a node group of 4 such
nodes: a type gpufleet reads only by name (the template asks for accelerators) sized by another
it does not read."""

import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

template = gcp.compute.NodeTemplate(
    f"{NAME}-template",
    region="us-central1",
    node_type="n1-node-96-624",
    accelerators=[{"accelerator_type": "nvidia-tesla-t4", "accelerator_count": 4}],
    node_affinity_labels=TAGS,
)
gcp.compute.NodeGroup(
    NAME,
    zone="us-central1-a",
    node_template=template.id,
    initial_size=4,
    maintenance_policy="RESTART_IN_PLACE",
)
