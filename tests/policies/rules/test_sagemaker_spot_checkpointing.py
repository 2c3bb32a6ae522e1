"""The ``sagemaker-spot-checkpointing`` rule through the servicer the pack serves: resources that
must pass and resources that must fail, as users write them."""

from __future__ import annotations

import pytest

from gpufleet.policies.testing import UNKNOWN, PolicyHarness
from tests.policies.inputs import TAGS

JOB = "aws:sagemaker/trainingJob:TrainingJob"


GOOD_JOB = {
    "tags": TAGS,
    "enableManagedSpotTraining": True,
    "checkpointConfig": {"s3Uri": "s3://b/ckpt"},
    "stoppingCondition": {"maxRuntimeInSeconds": 3600, "maxWaitTimeInSeconds": 7200},
    "resourceConfig": {"instanceType": "ml.g5.xlarge", "instanceCount": 1},
}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, []),
        ({"checkpointConfig": None}, ["without checkpointConfig.s3Uri"]),
        ({"stoppingCondition": {"maxRuntimeInSeconds": 3600}}, ["needs stoppingCondition"]),
        (
            {"stoppingCondition": {"maxRuntimeInSeconds": 7200, "maxWaitTimeInSeconds": 3600}},
            ["is less than maxRuntimeInSeconds"],
        ),
        ({"checkpointConfig": {"s3Uri": UNKNOWN}}, []),  # set, value known after deploy
    ],
)
def test_sagemaker_spot_checkpointing(dev: PolicyHarness, change: dict, expected: list) -> None:
    props = {k: v for k, v in {**GOOD_JOB, **change}.items() if v is not None}
    found = [v for v in dev.analyze(JOB, props) if v.policy == "sagemaker-spot-checkpointing"]
    assert len(found) == len(expected)
    assert all(e in v.message for e, v in zip(expected, found, strict=True))


TUNING = "aws:sagemaker/hyperParameterTuningJob:HyperParameterTuningJob"


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        ({**GOOD_JOB}, []),
        ({**GOOD_JOB, "checkpointConfig": {}}, ["trainingJobDefinitions[1]: managed spot"]),
        (
            {
                **GOOD_JOB,
                "stoppingCondition": {"maxRuntimeInSeconds": 60, "maxWaitTimeInSeconds": 1},
            },
            ["trainingJobDefinitions[1]: maxWaitTimeInSeconds 1 is less than"],
        ),
        ({**GOOD_JOB, "enableManagedSpotTraining": False, "checkpointConfig": {}}, []),
        # A number SageMaker would refuse is a violation, not a crash of the policy.
        (
            {
                **GOOD_JOB,
                "stoppingCondition": {"maxRuntimeInSeconds": 60, "maxWaitTimeInSeconds": "soon"},
            },
            ["is not a number"],
        ),
    ],
)
def test_each_definition_of_a_tuning_job_checkpoints(
    dev: PolicyHarness, definition: dict, expected: list
) -> None:
    props = {"trainingJobDefinitions": [GOOD_JOB, definition]}
    found = [v for v in dev.analyze(TUNING, props) if v.policy == "sagemaker-spot-checkpointing"]
    assert [v.level for v in found] == ["mandatory"] * len(expected)
    assert all(e in v.message for e, v in zip(expected, found, strict=True)), found
