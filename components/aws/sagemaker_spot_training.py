"""SageMakerSpotTraining: managed spot training with checkpoints that outlive the stack.

SageMaker runs the job on spot capacity and, when an instance is reclaimed, restarts it from the
latest checkpoint it synced from ``/opt/ml/checkpoints`` to S3. This component provides what
that needs:

- a checkpoint bucket (``checkpoint_bucket.py``): private, SSE-KMS encrypted (the AWS-managed
  key, or ``kms_key_arn``), versioned, access-logged (into ``access_log_bucket``, or a log
  bucket made for it), retained on ``pulumi destroy``, so checkpoints survive the stack;
- an execution role (``sagemaker_execution_role.py``) that reaches only that bucket, the given
  ECR image repository and the SageMaker training log group;
- ``estimator_kwargs``: the keyword arguments of the SageMaker Python SDK's ``Estimator``
  (``use_spot_instances, max_run, max_wait, checkpoint_s3_uri, checkpoint_local_path, role,
  instance_type, instance_count``), so a notebook or pipeline starts the job with
  ``Estimator(image_uri=..., **estimator_kwargs)``;
- optionally (``training_job``) the ``aws.sagemaker.TrainingJob`` itself, when the job should
  be managed by Pulumi.

``max_wait_seconds`` (time to wait for spot capacity plus run time) must be at least
``max_run_seconds``; SageMaker caps both at 28 days. A job that must not be interrupted (a
workload whose spec says ``interruptible: false``, planned on-demand) sets ``spot=False``: the
same bucket, role and checkpoints, on on-demand capacity, with no wait for spot.

Example::

    from gpufleet.components.aws.sagemaker_spot_training import (
        SageMakerSpotTraining, SageMakerSpotTrainingArgs)

    ranker = SageMakerSpotTraining(
        "ranker-train",
        SageMakerSpotTrainingArgs(
            tags=tags,
            instance_type="ml.g5.12xlarge",
            instance_count=1,
            image_uri="123456789012.dkr.ecr.us-west-2.amazonaws.com/ranker:2026-11",
            max_run_seconds=8 * 3600,
            max_wait_seconds=12 * 3600,
        ),
    )
    pulumi.export("estimator_kwargs", ranker.estimator_kwargs)
"""

from __future__ import annotations

import re
from typing import Any

import pulumi
import pulumi_aws as aws
from pydantic import Field, field_validator, model_validator

from gpufleet import resource_types as types
from gpufleet.components.aws.checkpoint_bucket import checkpoint_bucket
from gpufleet.components.aws.sagemaker_execution_role import sagemaker_execution_role
from gpufleet.components.component_args import ComponentArgs, StrInput
from gpufleet.components.tagging import RequiredTags
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.pricing import sagemaker_markup
from gpufleet.pricing_models import HOURS_PER_MONTH

CHECKPOINT_LOCAL_PATH = "/opt/ml/checkpoints"
MAX_SECONDS = 28 * 24 * 3600  # SageMaker's limit on MaxRuntime and MaxWaitTime
ECR_IMAGE = re.compile(
    r"(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(?P<cn>\.cn)?/"
    r"(?P<repository>[a-z0-9](?:[a-z0-9._/-]*[a-z0-9])?)(?::[\w.-]{1,128}|@sha256:[0-9a-f]{64})?"
)
JOB_NAME = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}")


class TrainingJobSpec(ComponentArgs):
    """The job itself, when Pulumi should create it."""

    job_name: str
    hyperparameters: dict[str, str] = Field(default_factory=dict)
    environment: dict[str, str] = Field(default_factory=dict)

    @field_validator("job_name")
    @classmethod
    def _job_name(cls, value: str) -> str:
        if not JOB_NAME.fullmatch(value):
            raise ValueError(
                f"{value!r} is not a training job name: letters, digits and '-', 1-63 characters"
            )
        return value


class SageMakerSpotTrainingArgs(ComponentArgs):
    tags: RequiredTags
    instance_type: str
    instance_count: int = Field(default=1, ge=1, le=100)
    image_uri: str
    max_run_seconds: int = Field(default=24 * 3600, ge=60, le=MAX_SECONDS)
    max_wait_seconds: int | None = Field(default=None, ge=60, le=MAX_SECONDS)
    volume_size_gib: int = Field(default=100, ge=1, le=16_384)
    noncurrent_version_expiration_days: int = Field(default=30, ge=1, le=3650)
    kms_key_arn: StrInput | None = None
    # Where S3 writes the checkpoint bucket's access logs (same account and region); None: a
    # log bucket created for it.
    access_log_bucket: StrInput | None = None
    subnet_ids: list[StrInput] = Field(default_factory=list)
    security_group_ids: list[StrInput] = Field(default_factory=list)
    training_job: TrainingJobSpec | None = None
    # Managed spot training; False: on-demand, for a job that must not be interrupted.
    spot: bool = True
    # Hours a month the plan expects runs to hold instance_count instances (runs start outside
    # the stack): the cost engine prices that in the monthly totals instead of one run apart.
    expected_hours: float | None = Field(default=None, ge=0, le=HOURS_PER_MONTH)

    @field_validator("instance_type")
    @classmethod
    def _sagemaker_type(cls, value: str) -> str:
        ec2_type = value.removeprefix("ml.")
        if load_catalog().shape("aws", ec2_type) is None or sagemaker_markup(ec2_type) is None:
            raise ValueError(f"{value!r} is not a GPU instance type SageMaker trains on")
        return f"ml.{ec2_type}"

    @field_validator("image_uri")
    @classmethod
    def _ecr_image(cls, value: str) -> str:
        if not ECR_IMAGE.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an ECR image URI "
                "(<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag])"
            )
        return value

    @model_validator(mode="after")
    def _times_and_network(self) -> SageMakerSpotTrainingArgs:
        wait = self.effective_max_wait
        if not self.spot and self.max_wait_seconds is not None:
            raise ValueError("max_wait_seconds is the wait for spot capacity: only with spot")
        if self.spot and wait < self.max_run_seconds:
            raise ValueError(
                f"max_wait_seconds ({wait}) must be at least max_run_seconds "
                f"({self.max_run_seconds}): it covers waiting for spot capacity plus the run"
            )
        if bool(self.subnet_ids) != bool(self.security_group_ids):
            raise ValueError("a job in a VPC needs both subnet_ids and security_group_ids")
        return self

    @property
    def effective_max_wait(self) -> int:
        if self.max_wait_seconds is not None:
            return self.max_wait_seconds
        return min(2 * self.max_run_seconds, MAX_SECONDS)

    def repository_arn(self) -> str:
        match = ECR_IMAGE.fullmatch(self.image_uri)
        assert match is not None
        partition = "aws-cn" if match["cn"] else "aws"
        return (
            f"arn:{partition}:ecr:{match['region']}:{match['account']}:"
            f"repository/{match['repository']}"
        )


def _bucket_prefix(tags: RequiredTags) -> str:
    """S3 bucket prefixes are lowercase letters, digits and '-', at most 37 characters."""
    raw = f"{tags.project}-{tags.workload}-ckpt".lower()
    return re.sub(r"[^a-z0-9-]+", "-", raw)[:36].strip("-") + "-"


class SageMakerSpotTraining(pulumi.ComponentResource):
    checkpoint_bucket_name: pulumi.Output[str]
    checkpoint_s3_uri: pulumi.Output[str]
    role_arn: pulumi.Output[str]
    estimator_kwargs: pulumi.Output[dict[str, Any]]
    training_job_arn: pulumi.Output[str] | None

    def __init__(
        self, name: str, args: SageMakerSpotTrainingArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(types.GPUFLEET_SAGEMAKER_SPOT_TRAINING, name, None, opts)
        tags = args.tags.as_tags()

        bucket = checkpoint_bucket(
            name,
            parent=self,
            bucket_prefix=_bucket_prefix(args.tags),
            tags=tags,
            kms_key_arn=args.kms_key_arn,
            noncurrent_version_expiration_days=args.noncurrent_version_expiration_days,
            access_log_bucket=args.access_log_bucket,
        )
        checkpoint_uri = bucket.bucket.apply(lambda b: f"s3://{b}/checkpoints/")
        role, access = sagemaker_execution_role(
            name,
            parent=self,
            tags=tags,
            bucket_arn=bucket.arn,
            repository_arn=args.repository_arn(),
            kms_key_arn=args.kms_key_arn,
            in_vpc=bool(args.subnet_ids),
        )

        self.checkpoint_bucket_name = bucket.bucket
        self.checkpoint_s3_uri = checkpoint_uri
        self.role_arn = role.arn
        self.estimator_kwargs = pulumi.Output.all(checkpoint_uri, role.arn).apply(
            lambda v: {
                "use_spot_instances": args.spot,
                "max_run": args.max_run_seconds,
                **({"max_wait": args.effective_max_wait} if args.spot else {}),
                "checkpoint_s3_uri": v[0],
                "checkpoint_local_path": CHECKPOINT_LOCAL_PATH,
                "role": v[1],
                "instance_type": args.instance_type,
                "instance_count": args.instance_count,
            }
        )
        self.training_job_arn = None
        if args.training_job is not None:
            self.training_job_arn = self._training_job(
                name, args, args.training_job, bucket, checkpoint_uri, role, access, tags
            )
        self.register_outputs(
            {
                "checkpoint_bucket_name": bucket.bucket,
                "checkpoint_s3_uri": checkpoint_uri,
                "role_arn": role.arn,
                "estimator_kwargs": self.estimator_kwargs,
                "training_job_arn": self.training_job_arn,
                # Known even in a preview, unlike estimator_kwargs: what one run holds, for the
                # cost engine (capacity/footprints/aws.py).
                "instance_type": args.instance_type,
                "instance_count": args.instance_count,
                "use_spot_instances": args.spot,
                "max_run_seconds": args.max_run_seconds,
                "expected_minutes": None
                if args.expected_hours is None
                else round(args.expected_hours * 60),
            }
        )

    def _training_job(
        self,
        name: str,
        args: SageMakerSpotTrainingArgs,
        job: TrainingJobSpec,
        bucket: aws.s3.Bucket,
        checkpoint_uri: pulumi.Output[str],
        role: aws.iam.Role,
        access: aws.iam.RolePolicy,
        tags: dict[str, str],
    ) -> pulumi.Output[str]:
        training = aws.sagemaker.TrainingJob(
            f"{name}-job",
            training_job_name=job.job_name,
            role_arn=role.arn,
            enable_managed_spot_training=args.spot,
            enable_inter_container_traffic_encryption=args.instance_count > 1,
            algorithm_specification=aws.sagemaker.TrainingJobAlgorithmSpecificationArgs(
                training_image=args.image_uri, training_input_mode="File"
            ),
            checkpoint_config=aws.sagemaker.TrainingJobCheckpointConfigArgs(
                s3_uri=checkpoint_uri, local_path=CHECKPOINT_LOCAL_PATH
            ),
            stopping_condition=aws.sagemaker.TrainingJobStoppingConditionArgs(
                max_runtime_in_seconds=args.max_run_seconds,
                max_wait_time_in_seconds=args.effective_max_wait if args.spot else None,
            ),
            resource_config=aws.sagemaker.TrainingJobResourceConfigArgs(
                instance_type=args.instance_type,
                instance_count=args.instance_count,
                volume_size_in_gb=args.volume_size_gib,
                volume_kms_key_id=args.kms_key_arn,
            ),
            output_data_config=aws.sagemaker.TrainingJobOutputDataConfigArgs(
                s3_output_path=bucket.bucket.apply(lambda b: f"s3://{b}/output/"),
                kms_key_id=args.kms_key_arn,
            ),
            hyper_parameters=job.hyperparameters or None,
            environment=job.environment or None,
            vpc_config=None
            if not args.subnet_ids
            else aws.sagemaker.TrainingJobVpcConfigArgs(
                subnets=list(args.subnet_ids), security_group_ids=list(args.security_group_ids)
            ),
            tags=tags,
            # The job fails at start if its role cannot yet reach the bucket and image.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[access]),
        )
        return training.arn
