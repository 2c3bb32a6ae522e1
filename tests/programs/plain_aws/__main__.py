"""A plain pulumi_aws program: a GPU launch template, instances, a bucket; tags by transform."""

import pulumi
import pulumi_aws as aws
from tagging import add_team_tags

config = pulumi.Config()
pulumi.runtime.register_resource_transform(add_team_tags(config.require("team")))

template = aws.ec2.LaunchTemplate(
    "gpu-template",
    instance_type="g6.xlarge",
    metadata_options={"http_tokens": "required"},
)
for i in range(config.require_int("instanceCount")):
    aws.ec2.Instance(
        f"worker-{i}",
        launch_template={"id": template.id, "version": "$Latest"},
        opts=pulumi.ResourceOptions(depends_on=[template]),
    )
bucket = aws.s3.Bucket("checkpoints", opts=pulumi.ResourceOptions(protect=True))
pulumi.export("bucket", bucket.bucket)
pulumi.export("templateId", template.id)
pulumi.export("secretSeen", config.get_secret("dbPassword") is not None)
