"""Which instance types can run a tightly coupled multi-node job.

A multi-node training job spends much of each step in all-reduce; on a plain 10-25 Gbit/s network
it crawls. gpufleet places ``nodes > 1`` workloads only on sizes with cluster networking:

- AWS: Elastic Fabric Adapter. Sizes from "Supported instance types" in the EFA user guide
  (docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types), GPU/accelerator
  families only.
- GCP: the A2 and A3 High/Mega/Ultra accelerator-optimized series, built for multi-host training
  (100-3,200 Gbit/s, GPUDirect-TCPX/TCPXO on A3) and placed together with compact placement
  policies (cloud.google.com/compute/docs/accelerator-optimized-machines). A3 Edge is a serving
  shape; G2 and N1 hosts are not built for it either.
- Azure: the InfiniBand ("r") sizes of the NC/ND series
  (learn.microsoft.com/azure/virtual-machines/sizes-hpc#rdma-capable-instances).
"""

from __future__ import annotations

import re

_AWS_EFA_SIZES = frozenset(
    {
        "p3dn.24xlarge",
        "p4d.24xlarge",
        "p4de.24xlarge",
        "p5.48xlarge",
        "p5e.48xlarge",
        "p5en.48xlarge",
        "g4dn.8xlarge",
        "g4dn.12xlarge",
        "g4dn.16xlarge",
        "g4dn.metal",
        "g5.8xlarge",
        "g5.12xlarge",
        "g5.16xlarge",
        "g5.24xlarge",
        "g5.48xlarge",
        "g6.8xlarge",
        "g6.12xlarge",
        "g6.16xlarge",
        "g6.24xlarge",
        "g6.48xlarge",
        "g6e.8xlarge",
        "g6e.12xlarge",
        "g6e.16xlarge",
        "g6e.24xlarge",
        "g6e.48xlarge",
        "gr6.8xlarge",
        "dl1.24xlarge",
        "trn1.32xlarge",
        "trn1n.32xlarge",
    }
)
_GCP_CLUSTER_SERIES = re.compile(r"^(a2-(high|mega|ultra)gpu|a3-(high|mega|ultra)gpu)-")
_AZURE_INFINIBAND_SIZES = frozenset(
    {
        "Standard_NC24rs_v3",
        "Standard_ND40rs_v2",
        "Standard_ND96asr_v4",
        "Standard_ND96amsr_A100_v4",
        "Standard_ND96isr_H100_v5",
    }
)


def supports_multi_node(cloud: str, instance_type: str) -> bool:
    if cloud == "aws":
        return instance_type in _AWS_EFA_SIZES
    if cloud == "gcp":
        return bool(_GCP_CLUSTER_SERIES.match(instance_type))
    if cloud == "azure":
        return instance_type in _AZURE_INFINIBAND_SIZES
    return False
