"""An EC2 instance whose machine type comes from another stack's output: without that stack's
outputs (gpufleet check --stack-reference), it could be any machine, GPU or not. A real preview
knows it; offline nothing does, so it is no preview's unknown: it blocks, and cannot be priced
(not a crash, not a pass)."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

sizes = pulumi.StackReference(f"{NAME}-sizes", stack_name="acme/platform-sizes/dev")
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type=sizes.require_output("trainerInstanceType"),
    subnet_id="subnet-0aaaaaaaaaaaaaaaa",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
