"""A SageMaker Studio app on ml.g5.12xlarge without a cost-center tag."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"required-tags"}

aws.sagemaker.App(
    NAME,
    app_name="lab",
    app_type="JupyterLab",
    domain_id="d-abc",
    user_profile_name="alice",
    resource_spec={"instance_type": "ml.g5.12xlarge"},
    tags={k: v for k, v in TAGS.items() if k != "cost-center"},
)
