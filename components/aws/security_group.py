"""Security groups for GPU instances: nothing in from the internet, ever.

Two shapes: a worker group with no inbound rules and outbound to anywhere (to pull images and
write checkpoints), and a cluster group whose only rules allow all traffic to and from itself,
which EFA requires between the nodes of a job. Rules are separate resources (the provider's
recommended form), and ``revoke_rules_on_delete`` avoids deletes hanging on cross-references.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws


def worker_security_group(
    name: str, *, vpc_id: pulumi.Input[str], tags: dict[str, str], parent: pulumi.Resource
) -> aws.ec2.SecurityGroup:
    group = _group(name, vpc_id, tags, parent, "gpufleet workers: no inbound, outbound only")
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-sg-egress",
        security_group_id=group.id,
        ip_protocol="-1",
        cidr_ipv4="0.0.0.0/0",
        description="outbound: images, datasets, checkpoints",
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return group


def cluster_security_group(
    name: str, *, vpc_id: pulumi.Input[str], tags: dict[str, str], parent: pulumi.Resource
) -> aws.ec2.SecurityGroup:
    group = _group(name, vpc_id, tags, parent, "gpufleet cluster: EFA traffic among its nodes")
    aws.vpc.SecurityGroupIngressRule(
        f"{name}-sg-from-self",
        security_group_id=group.id,
        ip_protocol="-1",
        referenced_security_group_id=group.id,
        description="all traffic from cluster nodes (EFA)",
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-sg-to-self",
        security_group_id=group.id,
        ip_protocol="-1",
        referenced_security_group_id=group.id,
        description="all traffic to cluster nodes (EFA)",
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return group


def _group(
    name: str, vpc_id: pulumi.Input[str], tags: dict[str, str], parent: pulumi.Resource, what: str
) -> aws.ec2.SecurityGroup:
    return aws.ec2.SecurityGroup(
        f"{name}-sg",
        vpc_id=vpc_id,
        description=what,
        revoke_rules_on_delete=True,
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
