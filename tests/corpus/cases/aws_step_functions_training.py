"""A state machine whose definition runs a SageMaker training job on 3 x ml.p5.48xlarge."""

import json

import pulumi_aws as aws
from _tags import TAGS

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-size-undetermined", "gpu-budget"}

definition = {
    "StartAt": "Train",
    "States": {
        "Train": {
            "Type": "Task",
            "Resource": "arn:aws:states:::sagemaker:createTrainingJob.sync",
            "Parameters": {
                "ResourceConfig": {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 3},
            },
            "End": True,
        }
    },
}
aws.sfn.StateMachine(
    NAME,
    role_arn="arn:aws:iam::123456789012:role/r",
    definition=json.dumps(definition),
    tags=TAGS,
)
