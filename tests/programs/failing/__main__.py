"""A program whose component raises while building: the error, the resource, the line."""

import pulumi
import pulumi_aws as aws


class GpuPool(pulumi.ComponentResource):
    def __init__(self, name: str, size: int, opts: pulumi.ResourceOptions | None = None):
        super().__init__("acme:compute:GpuPool", name, None, opts)
        aws.ec2.LaunchTemplate(f"{name}-template", opts=pulumi.ResourceOptions(parent=self))
        if size > 8:
            raise ValueError(f"a pool holds at most 8 GPUs, asked for {size}")


GpuPool("small", 4)
GpuPool("huge", 64)
