"""An Auto Scaling group launching from a template outside the stack (a literal id), its tags
not propagated: what its instances carry cannot be read, and nothing in the stack tags them."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags", "gpu-size-undetermined", "gpu-budget"}

aws.autoscaling.Group(
    NAME,
    min_size=0,
    max_size=2,
    vpc_zone_identifiers=["subnet-0aaaaaaaaaaaaaaaa"],
    launch_template={"id": "lt-0123456789abcdef0", "version": "$Default"},
    tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in TAGS.items()],
)
