"""A group whose launch template id is another stack's output, picked through an apply that
also depends on a CPU template of this stack, and whose size is secret config. Its dependency
names the CPU template, but its value (not known offline) may name any template, GPU or not:
which machines it launches is not known, so it blocks whatever its size."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

platform = pulumi.StackReference(f"{NAME}-platform", stack_name="acme/ml-platform/dev")
cpu = aws.ec2.LaunchTemplate(
    f"{NAME}-cpu",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="c6i.2xlarge",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
template_id = pulumi.Output.all(cpu.id, platform.require_output("gpuTemplateId")).apply(
    lambda ids: ids[1]
)
aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=pulumi.Config().require_secret_int("gpuMaxNodes"),
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": template_id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)
