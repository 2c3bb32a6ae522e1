"""Which instance types can run a tightly coupled multi-node job, and their EFA interfaces.

A multi-node training job spends much of each step in all-reduce; on a plain 10-25 Gbit/s network
it crawls. gpufleet places ``nodes > 1`` workloads only on sizes with cluster networking:

- AWS: Elastic Fabric Adapter. ``AWS_EFA_INTERFACES`` gives, per size, how many EFA interfaces
  it takes — one per network card that supports EFA — from the EC2 user guide: "Supported
  instance types" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types) and
  "Maximize network bandwidth ... with multiple network cards"
  (docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html), which EC2's
  DescribeInstanceTypes gives as ``EfaInfo.MaximumEfaInterfaces`` (a test compares the two for
  every catalog size moto's copy of that data knows): p4d/p4de 4, p5/p5e 32, p5en 16, trn1 8,
  trn1n 16, dl1 4, g6e.24xlarge 2, g6e.48xlarge 4, and one on the other large g4dn/g5/g6/g6e/gr6
  sizes, p3dn, inf1.24xlarge and dl2q.24xlarge.
  ``AWS_EFA_ONLY_LAYOUT`` lists the sizes AWS configures with an ENA primary interface and
  EFA-only interfaces (P5 family); the others use classic EFA (EFA with ENA) interfaces.
- GCP: the accelerator-optimized series built for multi-host training, placed together with
  compact placement policies (``gcp_machines.CLUSTER_NETWORKING_SERIES``).
- Azure: the InfiniBand ("r") sizes of the NC/ND series
  (learn.microsoft.com/azure/virtual-machines/sizes-hpc#rdma-capable-instances).
"""

from __future__ import annotations

from gpufleet.clouds import Cloud
from gpufleet.planner.gcp_machines import CLUSTER_NETWORKING_SERIES

AWS_EFA_INTERFACES: dict[str, int] = {
    "p3dn.24xlarge": 1,
    "p4d.24xlarge": 4,
    "p4de.24xlarge": 4,
    "p5.48xlarge": 32,
    "p5e.48xlarge": 32,
    "p5en.48xlarge": 16,
    "g4dn.8xlarge": 1,
    "g4dn.12xlarge": 1,
    "g4dn.16xlarge": 1,
    "g4dn.metal": 1,
    "g5.8xlarge": 1,
    "g5.12xlarge": 1,
    "g5.16xlarge": 1,
    "g5.24xlarge": 1,
    "g5.48xlarge": 1,
    "g6.8xlarge": 1,
    "g6.12xlarge": 1,
    "g6.16xlarge": 1,
    "g6.24xlarge": 1,
    "g6.48xlarge": 1,
    "g6e.8xlarge": 1,
    "g6e.12xlarge": 1,
    "g6e.16xlarge": 1,
    "g6e.24xlarge": 2,
    "g6e.48xlarge": 4,
    "gr6.8xlarge": 1,
    "dl1.24xlarge": 4,
    "dl2q.24xlarge": 1,
    "inf1.24xlarge": 1,
    "trn1.32xlarge": 8,
    "trn1n.32xlarge": 16,
}
AWS_EFA_ONLY_LAYOUT = frozenset({"p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge"})

_AZURE_INFINIBAND_SIZES = frozenset(
    {
        "Standard_NC24rs_v3",
        "Standard_ND40rs_v2",
        "Standard_ND96asr_v4",
        "Standard_ND96amsr_A100_v4",
        "Standard_ND96isr_H100_v5",
    }
)


def supports_multi_node(cloud: Cloud, instance_type: str) -> bool:
    if cloud == "aws":
        return instance_type in AWS_EFA_INTERFACES
    if cloud == "gcp":
        return bool(CLUSTER_NETWORKING_SERIES.match(instance_type))
    if cloud == "azure":
        return instance_type in _AZURE_INFINIBAND_SIZES
    return False
