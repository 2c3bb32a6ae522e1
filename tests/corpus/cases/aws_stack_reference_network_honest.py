"""Honest: a CPU instance and a CPU group whose VPC, subnets and security group come from the
network stack through a StackReference (offline, with no file for it, its outputs are unknown:
they name no machine)."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

network = pulumi.StackReference(f"{NAME}-network", stack_name="acme/network/dev")
subnets = network.require_output("privateSubnetIds")
aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="m7i.large",
    subnet_id=subnets.apply(lambda ids: ids[0]),
    vpc_security_group_ids=[network.get_output("appSecurityGroupId")],
    metadata_options={"http_tokens": "required"},
    tags=TAGS,
)
template = aws.ec2.LaunchTemplate(
    f"{NAME}-lt",
    image_id="ami-0aaaaaaaaaaaaaaaa",
    instance_type="c7i.xlarge",
    vpc_security_group_ids=[network.get_output("appSecurityGroupId")],
    metadata_options={"http_tokens": "required"},
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
)
aws.autoscaling.Group(
    f"{NAME}-workers",
    min_size=1,
    max_size=20,
    vpc_zone_identifiers=subnets,
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
)
