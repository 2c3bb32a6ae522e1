"""Honest: an SSM parameter whose value is a JSON document of settings naming a GPU machine
type and a count, for a job started outside the stack: data, not a template that launches."""

import json

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

aws.ssm.Parameter(
    NAME,
    name="/ml/training/defaults",
    type="String",
    value=json.dumps({"instanceType": "p5.48xlarge", "instanceCount": 2, "maxRuntimeHours": 12}),
    tags=TAGS,
)
