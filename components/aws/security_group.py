"""Security groups for GPU instances: nothing in from the internet, ever.

Two shapes: a worker group with no inbound rules and one outbound rule, HTTPS (TCP 443) to
anywhere — what GPU workers reach: container registries, package indexes, model hubs, S3 and the
other AWS APIs (Systems Manager among them) — and a cluster group whose only rules allow all
traffic to and from itself, which EFA requires between the nodes of a job. Neither allows all
traffic out to 0.0.0.0/0 (Checkov CKV_AWS_382); security groups do not filter the Amazon DNS
server, Time Sync or the instance metadata service, so those need no rule. Anything else out
(NFS to EFS or FSx, plain-HTTP mirrors, a proxy) comes from groups you add beside these
(``extra_security_group_ids``), so the extra reach is yours to name. Rules are separate
resources (the provider's recommended form), and ``revoke_rules_on_delete`` avoids deletes
hanging on cross-references.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

HTTPS = 443
ANYWHERE = "0.0.0.0/0"


def worker_security_group(
    name: str, *, vpc_id: pulumi.Input[str], tags: dict[str, str], parent: pulumi.Resource
) -> aws.ec2.SecurityGroup:
    # The description is the one the group always had: EC2 replaces a group to change it.
    group = _group(name, vpc_id, tags, parent, "gpufleet workers: no inbound, outbound only")
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-sg-egress",
        security_group_id=group.id,
        ip_protocol="tcp",
        from_port=HTTPS,
        to_port=HTTPS,
        cidr_ipv4=ANYWHERE,
        description="HTTPS out: images, packages, datasets, checkpoints, AWS APIs",
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
