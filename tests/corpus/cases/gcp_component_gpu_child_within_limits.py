"""Honest: a component of the program that builds a labelled group of 2 x g2-standard-24 (2 L4s
each) and registers outputs naming its machine type and a larger one: its child is read, 4
L4s; its outputs are not capacity."""

import pulumi
import pulumi_gcp as gcp
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()


class L4Pool(pulumi.ComponentResource):
    def __init__(self, name: str, size: int, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:ml:L4Pool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        template = gcp.compute.InstanceTemplate(
            f"{name}-template",
            machine_type="g2-standard-24",
            disks=[{"source_image": "debian-cloud/debian-12", "boot": True}],
            network_interfaces=[{"network": "default"}],
            scheduling={"on_host_maintenance": "TERMINATE"},
            labels=TAGS,
            opts=child,
        )
        group = gcp.compute.InstanceGroupManager(
            f"{name}-group",
            zone="us-central1-a",
            base_instance_name=name,
            target_size=size,
            versions=[{"instance_template": template.self_link_unique}],
            opts=child,
        )
        self.register_outputs(
            {
                "machineType": "g2-standard-24",
                "upgradeTo": {"machine_type": "a3-highgpu-8g", "targetSize": 8},
                "group": group.self_link,
            }
        )


L4Pool(NAME, size=2)
