"""Honest: a CPU group whose max size and subnets come from other stacks' outputs (no file of
them given): unknown offline, but its launch template (in the stack) holds no GPU, so it holds
none whatever its size. Beside it, a small literal spot GPU group within the dev limits."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

platform = pulumi.StackReference(f"{NAME}-platform", stack_name="acme/ml-platform/dev")
subnets = platform.require_output("privateSubnetIds")
GROUP_TAGS = [{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()]
cpu = aws.ec2.LaunchTemplate(
    f"{NAME}-cpu-template",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="m6i.large",
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
aws.autoscaling.Group(
    f"{NAME}-cpu",
    min_size=0,
    max_size=platform.require_output("cpuMaxNodes"),
    vpc_zone_identifiers=subnets,
    launch_template={"id": cpu.id, "version": "$Latest"},
    tags=GROUP_TAGS,
)
gpu = aws.ec2.LaunchTemplate(
    f"{NAME}-gpu-template",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="g5.xlarge",
    instance_market_options={"market_type": "spot"},
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    f"{NAME}-gpu",
    min_size=0,
    max_size=2,
    vpc_zone_identifiers=subnets,
    launch_template={"id": gpu.id, "version": "$Latest"},
    # At zero until asked: its expected use is declared, so it can be priced.
    tags=[*GROUP_TAGS, {"key": "expected-minutes", "value": "600", "propagate_at_launch": False}],
)
