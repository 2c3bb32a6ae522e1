"""An ECS service scaled by Application Auto Scaling: tasks, not GPU capacity. Passes."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

cluster = aws.ecs.Cluster(NAME, tags=TAGS)
service = aws.ecs.Service(
    f"{NAME}-service",
    cluster=cluster.arn,
    task_definition="web:1",
    desired_count=2,
    tags=TAGS,
)
aws.appautoscaling.Target(
    f"{NAME}-target",
    service_namespace="ecs",
    scalable_dimension="ecs:service:DesiredCount",
    resource_id=service.name.apply(lambda name: f"service/{NAME}/{name}"),
    min_capacity=2,
    max_capacity=100,
    tags=TAGS,
)
