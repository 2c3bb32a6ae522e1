"""A private, encrypted, versioned, logged S3 bucket for training checkpoints, kept when the stack
goes.

Public access blocked (all four settings), ACLs disabled (bucket owner enforced), TLS-only
bucket policy, SSE-KMS by default (Checkov CKV_AWS_145) with bucket keys on: with
``kms_key_arn``, that customer-managed key; without, the account's AWS-managed ``aws/s3`` key,
which AWS rotates every year and which no stack can delete — a key created here would go with
``pulumi destroy`` while the retained bucket stays, leaving its checkpoints unreadable.
Versioning so a bad checkpoint never overwrites the last good one, old versions expiring after
``noncurrent_version_expiration_days`` and incomplete uploads after 7 days. The bucket is
retained on ``pulumi destroy`` (``retain_on_delete``) and never force-destroyed: checkpoints
outlive the stack.

Server access logging is on (Checkov CKV_AWS_18), into ``access_log_bucket`` when given (a
central log bucket in the same account and region, whose policy lets ``logging.s3.amazonaws.com``
write), else into a log bucket created beside it: private like it, TLS only, writable only by
S3 log delivery for this one bucket and account, logs expiring after ``ACCESS_LOG_DAYS``,
retained on destroy with the bucket it logs. That log bucket is the documented exception to
both rules: it uses SSE-S3, the only default encryption S3 log delivery writes into, and it
logs nowhere itself (its own log bucket would need one too, without end).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

# Access logs are for audits of who read or wrote checkpoints: a year of them, then they go.
ACCESS_LOG_DAYS = 365
# S3 bucket prefixes take at most 37 characters (the provider adds a 26-character suffix).
_PREFIX_LIMIT = 37
_LOG_SUFFIX = "-log-"


def checkpoint_bucket(
    name: str,
    *,
    parent: pulumi.Resource,
    bucket_prefix: str,
    tags: dict[str, str],
    kms_key_arn: pulumi.Input[str] | None,
    noncurrent_version_expiration_days: int,
    access_log_bucket: pulumi.Input[str] | None = None,
) -> aws.s3.Bucket:
    bucket = aws.s3.Bucket(
        f"{name}-checkpoints",
        bucket_prefix=bucket_prefix,
        force_destroy=False,
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent, retain_on_delete=True),
    )
    child = pulumi.ResourceOptions(parent=parent)
    _private(f"{name}-checkpoints", bucket, child)
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{name}-checkpoints-encryption",
        bucket=bucket.id,
        rules=[
            aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms",
                    # None: the AWS-managed aws/s3 key.
                    kms_master_key_id=kms_key_arn,
                ),
                # One data key per bucket rather than per object: far fewer KMS requests.
                bucket_key_enabled=True,
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
        policy=bucket.arn.apply(lambda arn: bucket_policy(arn, [])),
        opts=child,
    )
    if access_log_bucket is None:
        access_log_bucket = _access_log_bucket(name, parent, bucket_prefix, tags, bucket).bucket
    aws.s3.BucketLogging(
        f"{name}-checkpoints-logging",
        bucket=bucket.id,
        target_bucket=access_log_bucket,
        # One folder per source bucket, so a shared log bucket keeps each bucket's logs apart.
        target_prefix=bucket.bucket.apply(lambda b: f"{b}/"),
        opts=child,
    )
    return bucket


def log_bucket_prefix(bucket_prefix: str) -> str:
    """The log bucket's prefix: the checkpoint bucket's, marked as its log, within S3's limit."""
    stem = bucket_prefix.rstrip("-")[: _PREFIX_LIMIT - len(_LOG_SUFFIX)].rstrip("-")
    return f"{stem}{_LOG_SUFFIX}"


def _access_log_bucket(
    name: str,
    parent: pulumi.Resource,
    bucket_prefix: str,
    tags: dict[str, str],
    source: aws.s3.Bucket,
) -> aws.s3.Bucket:
    """The bucket S3 writes ``source``'s access logs into."""
    logs = aws.s3.Bucket(
        f"{name}-access-logs",
        bucket_prefix=log_bucket_prefix(bucket_prefix),
        force_destroy=False,
        tags=tags,
        # The audit trail of a retained bucket stays with it.
        opts=pulumi.ResourceOptions(parent=parent, retain_on_delete=True),
    )
    child = pulumi.ResourceOptions(parent=parent)
    _private(f"{name}-access-logs", logs, child)
    aws.s3.BucketServerSideEncryptionConfiguration(
        f"{name}-access-logs-encryption",
        bucket=logs.id,
        rules=[
            aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                # S3 server access log delivery writes only into SSE-S3 buckets (S3 User Guide,
                # "Enabling Amazon S3 server access logging"): the CKV_AWS_145 exception.
                apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="AES256"
                ),
            )
        ],
        opts=child,
    )
    aws.s3.BucketLifecycleConfiguration(
        f"{name}-access-logs-lifecycle",
        bucket=logs.id,
        rules=[
            aws.s3.BucketLifecycleConfigurationRuleArgs(
                id="expire-access-logs",
                status="Enabled",
                filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(
                    days=ACCESS_LOG_DAYS
                ),
                abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                    days_after_initiation=7
                ),
            )
        ],
        opts=child,
    )
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=parent))
    aws.s3.BucketPolicy(
        f"{name}-access-logs-policy",
        bucket=logs.id,
        policy=pulumi.Output.all(logs.arn, source.arn, account.account_id).apply(
            lambda v: bucket_policy(v[0], [log_delivery_statement(v[0], v[1], v[2])])
        ),
        opts=child,
    )
    return logs


def _private(name: str, bucket: aws.s3.Bucket, opts: pulumi.ResourceOptions) -> None:
    """No public access by any route, and no ACLs: the bucket's policy alone grants access."""
    aws.s3.BucketPublicAccessBlock(
        f"{name}-public-access",
        bucket=bucket.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
    aws.s3.BucketOwnershipControls(
        f"{name}-ownership",
        bucket=bucket.id,
        rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"),
        opts=opts,
    )


def bucket_policy(bucket_arn: str, statements: list[dict[str, Any]]) -> str:
    """A bucket policy refusing requests without TLS, with ``statements`` after it."""
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
                },
                *statements,
            ],
        }
    )


def log_delivery_statement(log_bucket_arn: str, source_arn: str, account: str) -> dict[str, Any]:
    """S3 log delivery may write the logs of ``source_arn`` in ``account``, and nothing else
    (with ACLs disabled, a bucket policy is how log delivery gets in)."""
    return {
        "Sid": "S3ServerAccessLogs",
        "Effect": "Allow",
        "Principal": {"Service": "logging.s3.amazonaws.com"},
        "Action": "s3:PutObject",
        "Resource": f"{log_bucket_arn}/*",
        "Condition": {
            "ArnLike": {"aws:SourceArn": source_arn},
            "StringEquals": {"aws:SourceAccount": account},
        },
    }
