"""An unmanaged instance group listing 6 VMs of a2-highgpu-4g (4 A100s each): every VM is
within the fleet limit (16), but the group is one fleet of 24 GPUs. The budget is raised so only
the fleet is judged."""

import pulumi_gcp as gcp
from _tags import TAGS

EXPECT = {"gpu-fleet-size"}
POLICY_CONFIG = {"gpu-budget": {"monthlyBudgetUsd": 250000}}

vms = [
    gcp.compute.Instance(
        f"a100-vm-{i}",
        zone="us-central1-a",
        machine_type="a2-highgpu-4g",
        boot_disk={"initialize_params": {"image": "debian-cloud/debian-12"}},
        network_interfaces=[{"network": "default"}],
        scheduling={"on_host_maintenance": "TERMINATE"},
        labels=TAGS,
    )
    for i in range(6)
]
gcp.compute.InstanceGroup(
    "a100-unmanaged",
    zone="us-central1-a",
    instances=[vm.self_link for vm in vms],
    named_ports=[{"name": "grpc", "port": 8500}],
)
