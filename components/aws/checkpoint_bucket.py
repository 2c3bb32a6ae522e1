"""A private, encrypted, versioned S3 bucket for training checkpoints, kept when the stack goes.

Public access blocked (all four settings), ACLs disabled (bucket owner enforced), TLS-only
bucket policy, SSE-KMS with ``kms_key_arn`` (bucket keys on) else SSE-S3, versioning so a bad
checkpoint never overwrites the last good one, old versions expiring after
``noncurrent_version_expiration_days`` and incomplete uploads after 7 days. The bucket is
retained on ``pulumi destroy`` (``retain_on_delete``) and never force-destroyed: checkpoints
outlive the stack.
"""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws


def checkpoint_bucket(
    name: str,
    *,
    parent: pulumi.Resource,
    bucket_prefix: str,
    tags: dict[str, str],
    kms_key_arn: pulumi.Input[str] | None,
    noncurrent_version_expiration_days: int,
) -> aws.s3.Bucket:
    bucket = aws.s3.Bucket(
        f"{name}-checkpoints",
        bucket_prefix=bucket_prefix,
        force_destroy=False,
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent, retain_on_delete=True),
    )
    child = pulumi.ResourceOptions(parent=parent)
    aws.s3.BucketPublicAccessBlock(
        f"{name}-checkpoints-public-access",
        bucket=bucket.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=child,
    )
    aws.s3.BucketOwnershipControls(
        f"{name}-checkpoints-ownership",
        bucket=bucket.id,
        rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"),
        opts=child,
    )
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{name}-checkpoints-encryption",
        bucket=bucket.id,
        rules=[
            aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms" if kms_key_arn else "AES256",
                    kms_master_key_id=kms_key_arn,
                ),
                bucket_key_enabled=bool(kms_key_arn),
            )
        ],
        opts=child,
    )
    aws.s3.BucketVersioning(
        f"{name}-checkpoints-versioning",
        bucket=bucket.id,
        versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(
            status="Enabled"
        ),
        opts=child,
    )
    aws.s3.BucketLifecycleConfiguration(
        f"{name}-checkpoints-lifecycle",
        bucket=bucket.id,
        rules=[
            aws.s3.BucketLifecycleConfigurationRuleArgs(
                id="expire-old-checkpoint-versions",
                status="Enabled",
                filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                    noncurrent_days=noncurrent_version_expiration_days
                ),
                abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                    days_after_initiation=7
                ),
            )
        ],
        opts=child,
    )
    aws.s3.BucketPolicy(
        f"{name}-checkpoints-tls-only",
        bucket=bucket.id,
        policy=bucket.arn.apply(tls_only_policy),
        opts=child,
    )
    return bucket


def tls_only_policy(bucket_arn: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [bucket_arn, f"{bucket_arn}/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            ],
        }
    )
