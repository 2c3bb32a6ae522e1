"""An EC2 A100 instance whose user data asks its GPU for two 4g.20gb MIG instances: eight
compute slices where an A100 has seven, so the driver refuses the second and the replicas
meant for it never start."""

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-sharing-config"}

aws.ec2.Instance(
    NAME,
    ami="ami-0aaaaaaaaaaaaaaaa",
    instance_type="p4d.24xlarge",
    metadata_options={"http_tokens": "required"},
    user_data="#!/bin/bash\nnvidia-smi -mig 1\nnvidia-smi mig -cgi 5,5 -C\n",
    tags=TAGS,
)
