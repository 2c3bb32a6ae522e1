"""SageMakerSpotTraining under the offline engine: the checkpoint bucket, the execution role's
reach, estimator arguments, the optional job, validation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.components.aws.sagemaker_spot_training import (
    SageMakerSpotTraining,
    SageMakerSpotTrainingArgs,
    TrainingJobSpec,
)
from tests.components.aws.site import SUBNETS
from tests.components.component_checks import (
    TAGS,
    assert_children_of,
    assert_nothing_deprecated,
    assert_provider_would_accept,
    assert_tagged,
    policy_document,
)
from tests.components.pulumi_mocks import (
    ACCOUNT,
    REGION,
    Capture,
    Registration,
    capture,
    resolve,
)

IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/ml/ranker:2026-11"


def sagemaker(**overrides: Any) -> tuple[Capture, SageMakerSpotTraining]:
    values: dict[str, Any] = {
        "tags": TAGS,
        "instance_type": "ml.g5.12xlarge",
        "image_uri": IMAGE,
        "max_run_seconds": 8 * 3600,
    }
    values.update(overrides)
    args = SageMakerSpotTrainingArgs(**values)
    return capture(lambda: SageMakerSpotTraining("ranker", args))


def checkpoint_bucket(cap: Capture) -> Registration:
    (bucket,) = [b for b in cap.of_type("aws:s3/bucket:Bucket") if b.name == "ranker-checkpoints"]
    return bucket


def attached(cap: Capture, type_: str, bucket: Registration) -> Registration:
    """The one resource of ``type_`` configuring ``bucket``."""
    (found,) = [r for r in cap.of_type(type_) if r.inputs["bucket"] == bucket.outputs["bucket"]]
    return found


SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
LOGGING = "aws:s3/bucketLogging:BucketLogging"


def test_sagemaker_checkpoint_bucket_is_private_encrypted_versioned_and_retained() -> None:
    cap, component = sagemaker()
    assert_children_of(cap, "gpufleet:aws:SageMakerSpotTraining", "ranker")
    # Role, checkpoint bucket, its access log bucket.
    assert assert_tagged(cap) == 3
    assert assert_provider_would_accept(cap) >= 4
    assert_nothing_deprecated(cap)
    bucket = checkpoint_bucket(cap)
    assert bucket.retain_on_delete is True
    assert bucket.inputs["bucketPrefix"] == "acme-ml-trainer-ckpt-"
    assert bucket.inputs["forceDestroy"] is False
    name = bucket.outputs["bucket"]
    access = attached(cap, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", bucket).inputs
    assert access == {
        "bucket": name,
        "blockPublicAcls": True,
        "blockPublicPolicy": True,
        "ignorePublicAcls": True,
        "restrictPublicBuckets": True,
    }
    ownership = attached(cap, "aws:s3/bucketOwnershipControls:BucketOwnershipControls", bucket)
    assert ownership.inputs["rule"] == {"objectOwnership": "BucketOwnerEnforced"}
    # CKV_AWS_145: SSE-KMS by default, with the AWS-managed key when none is given.
    (sse,) = attached(cap, SSE, bucket).inputs["rules"]
    assert sse["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "aws:kms"}
    assert sse["bucketKeyEnabled"] is True
    versioning = cap.one("aws:s3/bucketVersioning:BucketVersioning").inputs
    assert versioning["versioningConfiguration"] == {"status": "Enabled"}
    lifecycle = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
    (rule,) = attached(cap, lifecycle, bucket).inputs["rules"]
    assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 30}
    (deny,) = policy_document(attached(cap, "aws:s3/bucketPolicy:BucketPolicy", bucket))[
        "Statement"
    ]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {
        "Bool": {"aws:SecureTransport": "false"}
    }
    assert resolve(component.checkpoint_s3_uri) == f"s3://{name}/checkpoints/"


def test_sagemaker_checkpoint_bucket_access_is_logged_into_a_private_log_bucket() -> None:
    """CKV_AWS_18: the checkpoint bucket logs its access, by default into a bucket made for it:
    private, TLS only, SSE-S3 (all S3 log delivery writes into), writable by log delivery for
    this bucket only, its logs expiring, retained on destroy with the bucket it logs."""
    cap, _ = sagemaker()
    bucket = checkpoint_bucket(cap)
    (logs,) = [b for b in cap.of_type("aws:s3/bucket:Bucket") if b is not bucket]
    assert logs.name == "ranker-access-logs" and logs.retain_on_delete is True
    assert logs.inputs["bucketPrefix"] == "acme-ml-trainer-ckpt-log-"
    assert logs.inputs["forceDestroy"] is False
    logging = attached(cap, LOGGING, bucket).inputs
    assert logging["targetBucket"] == logs.outputs["bucket"]
    assert logging["targetPrefix"] == f"{bucket.outputs['bucket']}/"
    # The log bucket does not log itself (its own log bucket would need one too).
    assert len(cap.of_type(LOGGING)) == 1
    block = attached(cap, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", logs)
    assert all(block.inputs[flag] is True for flag in ("blockPublicAcls", "restrictPublicBuckets"))
    ownership = attached(cap, "aws:s3/bucketOwnershipControls:BucketOwnershipControls", logs)
    assert ownership.inputs["rule"] == {"objectOwnership": "BucketOwnerEnforced"}
    (sse,) = attached(cap, SSE, logs).inputs["rules"]
    assert sse["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "AES256"}
    lifecycle = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
    (rule,) = attached(cap, lifecycle, logs).inputs["rules"]
    assert rule["expiration"] == {"days": 365}
    deny, delivery = policy_document(attached(cap, "aws:s3/bucketPolicy:BucketPolicy", logs))[
        "Statement"
    ]
    assert deny["Sid"] == "DenyInsecureTransport"
    assert delivery["Principal"] == {"Service": "logging.s3.amazonaws.com"}
    assert delivery["Action"] == "s3:PutObject"
    assert delivery["Resource"] == f"{logs.outputs['arn']}/*"
    assert delivery["Condition"] == {
        "ArnLike": {"aws:SourceArn": bucket.outputs["arn"]},
        "StringEquals": {"aws:SourceAccount": ACCOUNT},
    }


def test_sagemaker_checkpoint_access_logs_into_a_given_bucket() -> None:
    cap, _ = sagemaker(access_log_bucket="acme-s3-access-logs")
    (bucket,) = cap.of_type("aws:s3/bucket:Bucket")
    assert bucket.name == "ranker-checkpoints"
    logging = cap.one(LOGGING).inputs
    assert logging["bucket"] == bucket.outputs["bucket"]
    assert logging["targetBucket"] == "acme-s3-access-logs"


def test_sagemaker_role_reaches_only_its_bucket_image_and_logs() -> None:
    cap, _ = sagemaker()
    bucket_arn = checkpoint_bucket(cap).outputs["arn"]
    trust = json.loads(cap.one("aws:iam/role:Role").inputs["assumeRolePolicy"])
    assert [s["Principal"] for s in trust["Statement"]] == [{"Service": "sagemaker.amazonaws.com"}]
    statements = {
        s["Sid"]: s for s in policy_document(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
    }
    assert set(statements) == {
        "CheckpointBucket",
        "CheckpointObjects",
        "PullTrainingImage",
        "EcrLogin",
        "TrainingLogs",
    }
    assert statements["CheckpointBucket"]["Resource"] == bucket_arn
    assert statements["CheckpointObjects"]["Resource"] == f"{bucket_arn}/*"
    assert statements["PullTrainingImage"]["Resource"] == (
        "arn:aws:ecr:us-west-2:123456789012:repository/ml/ranker"
    )
    logs = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/aws/sagemaker/TrainingJobs"
    assert statements["TrainingLogs"]["Resource"] == [logs, f"{logs}:log-stream:*"]
    wildcard = [sid for sid, s in statements.items() if s["Resource"] == "*"]
    assert wildcard == ["EcrLogin"]


def test_sagemaker_estimator_kwargs() -> None:
    cap, component = sagemaker(instance_count=2)
    role_arn = cap.one("aws:iam/role:Role").outputs["arn"]
    bucket = checkpoint_bucket(cap).outputs["bucket"]
    assert resolve(component.estimator_kwargs) == {
        "use_spot_instances": True,
        "max_run": 8 * 3600,
        "max_wait": 16 * 3600,
        "checkpoint_s3_uri": f"s3://{bucket}/checkpoints/",
        "checkpoint_local_path": "/opt/ml/checkpoints",
        "role": role_arn,
        "instance_type": "ml.g5.12xlarge",
        "instance_count": 2,
    }
    assert not cap.of_type("aws:sagemaker/trainingJob:TrainingJob")
    assert component.training_job_arn is None


def test_sagemaker_training_job_when_asked() -> None:
    job = TrainingJobSpec(job_name="ranker-2026-11-22", hyperparameters={"epochs": "3"})
    cap, component = sagemaker(
        instance_type="g5.12xlarge", training_job=job, max_wait_seconds=9 * 3600
    )
    training = cap.one("aws:sagemaker/trainingJob:TrainingJob")
    inputs = training.inputs
    assert inputs["enableManagedSpotTraining"] is True
    assert inputs["checkpointConfig"]["localPath"] == "/opt/ml/checkpoints"
    assert inputs["stoppingCondition"] == {
        "maxRuntimeInSeconds": 8 * 3600,
        "maxWaitTimeInSeconds": 9 * 3600,
    }
    assert inputs["resourceConfig"]["instanceType"] == "ml.g5.12xlarge"
    assert inputs["algorithmSpecification"]["trainingImage"] == IMAGE
    assert inputs["hyperParameters"] == {"epochs": "3"}
    access = cap.one("aws:iam/rolePolicy:RolePolicy")
    assert access.urn in training.dependencies
    assert assert_tagged(cap) == 4
    assert resolve(component.training_job_arn).endswith("training-job/ranker-2026-11-22")


def test_a_job_that_must_not_be_interrupted_runs_on_demand_with_its_checkpoints() -> None:
    job = TrainingJobSpec(job_name="ranker-on-demand")
    cap, component = sagemaker(training_job=job, spot=False)
    kwargs = resolve(component.estimator_kwargs)
    assert kwargs["use_spot_instances"] is False and "max_wait" not in kwargs
    assert kwargs["checkpoint_s3_uri"].startswith("s3://")
    inputs = cap.one("aws:sagemaker/trainingJob:TrainingJob").inputs
    assert inputs["enableManagedSpotTraining"] is False
    assert inputs["stoppingCondition"] == {"maxRuntimeInSeconds": 8 * 3600}
    assert checkpoint_bucket(cap).retain_on_delete is True


def test_sagemaker_kms_and_vpc() -> None:
    key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    cap, _ = sagemaker(
        kms_key_arn=key, subnet_ids=SUBNETS, security_group_ids=["sg-0123456789abcdef0"]
    )
    (sse,) = attached(cap, SSE, checkpoint_bucket(cap)).inputs["rules"]
    assert sse["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "aws:kms",
        "kmsMasterKeyId": key,
    }
    assert sse["bucketKeyEnabled"] is True
    statements = {
        s["Sid"]: s for s in policy_document(cap.one("aws:iam/rolePolicy:RolePolicy"))["Statement"]
    }
    assert statements["EncryptionKey"]["Resource"] == key
    assert "JobNetworkInterfaces" in statements


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"max_run_seconds": 7200, "max_wait_seconds": 3600},
            r"max_wait_seconds \(3600\) must be at least max_run_seconds \(7200\)",
        ),
        ({"max_run_seconds": 29 * 24 * 3600}, "less than or equal to 2419200"),
        ({"instance_type": "ml.m5.xlarge"}, "not a GPU instance type SageMaker trains on"),
        ({"instance_type": "gr6.4xlarge"}, "not a GPU instance type SageMaker trains on"),
        ({"image_uri": "docker.io/library/pytorch:latest"}, "not an ECR image URI"),
        ({"subnet_ids": SUBNETS}, "needs both subnet_ids and security_group_ids"),
        ({"instance_count": 0}, "greater than or equal to 1"),
        (
            {"spot": False, "max_wait_seconds": 3600},
            "max_wait_seconds is the wait for spot capacity: only with spot",
        ),
    ],
)
def test_sagemaker_validation(overrides: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {"tags": TAGS, "instance_type": "ml.p4d.24xlarge", "image_uri": IMAGE}
    with pytest.raises(ValueError, match=message):
        SageMakerSpotTrainingArgs(**(values | overrides))
    with pytest.raises(ValueError, match="not a training job name"):
        TrainingJobSpec(job_name="has_underscores")
