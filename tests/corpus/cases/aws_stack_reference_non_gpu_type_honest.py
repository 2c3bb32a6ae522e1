"""Honest: machine classes read from a shared stack through a StackReference, used only where
they cannot be GPUs — a database's instance class and a cache's node type."""

import pulumi
import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

shared = pulumi.StackReference(f"{NAME}-shared", stack_name="acme/platform-sizes/dev")
aws.rds.Instance(
    NAME,
    engine="postgres",
    engine_version="16.3",
    instance_class=shared.require_output("dbInstanceClass"),
    allocated_storage=50,
    username="app",
    manage_master_user_password=True,
    db_subnet_group_name=shared.get_output("dbSubnetGroup"),
    skip_final_snapshot=True,
    tags=TAGS,
)
aws.elasticache.Cluster(
    f"{NAME}-cache",
    engine="redis",
    node_type=shared.require_output("cacheNodeType"),
    num_cache_nodes=1,
    tags=TAGS,
)
