"""Rule ``checkpoint-bucket-private``: buckets holding checkpoints (name matching
``checkpointBucketPattern``) block public access and are encrypted: S3 with a public access
block (all four settings) and a server-side encryption configuration; GCS with
``publicAccessPrevention: enforced`` and uniform bucket-level access; Azure storage accounts
with ``allowBlobPublicAccess: false`` (GCS and Azure always encrypt at rest)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pulumi_policy import Severity

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import is_unknown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policy_tags import SECURITY

_PUBLIC_BLOCK_FLAGS = (
    "blockPublicAcls",
    "blockPublicPolicy",
    "ignorePublicAcls",
    "restrictPublicBuckets",
)

CONFIG = {
    "checkpointBucketPattern": {
        "type": "string",
        "minLength": 1,
        "format": "regex",
        "default": "checkpoint|ckpt",
        "description": "Regex (case-insensitive) on a bucket's resource or bucket name.",
    },
}


def _bucket_names(resource: StackResource) -> list[str]:
    names = [resource.name]
    for key in ("bucket", "bucketPrefix", "name", "accountName"):
        value = resource.props.get(key)
        if isinstance(value, str) and not is_unknown(value):
            names.append(value)
    return names


def _attached(
    resources: list[StackResource], kinds: tuple[str, ...], bucket: StackResource
) -> Iterator[StackResource]:
    """Resources of ``kinds`` configuring ``bucket`` (by dependency, or by its known name)."""
    names = {n for n in _bucket_names(bucket)[1:]}
    for r in resources:
        if r.type not in kinds:
            continue
        target = r.props.get("bucket")
        if bucket.urn in r.property_dependencies.get("bucket", []) or (
            isinstance(target, str) and target in names
        ):
            yield r


def check_checkpoint_buckets(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    pattern = re.compile(settings["checkpointBucketPattern"], re.I)
    for bucket in resources:
        if bucket.type not in (
            *types.AWS_S3_BUCKETS,
            types.GCP_STORAGE_BUCKET,
            types.AZURE_STORAGE_ACCOUNT,
        ):
            continue
        if not any(pattern.search(n) for n in _bucket_names(bucket)):
            continue
        for problem in _bucket_problems(resources, bucket):
            findings.violate(f"checkpoint bucket {bucket.name}: {problem}", bucket.urn)
    return findings


def _bucket_problems(resources: list[StackResource], bucket: StackResource) -> list[str]:
    props = bucket.props
    problems = []
    if bucket.type in types.AWS_S3_BUCKETS:
        blocks = list(_attached(resources, (types.AWS_S3_PUBLIC_ACCESS_BLOCK,), bucket))
        if not any(all(b.props.get(f) is True for f in _PUBLIC_BLOCK_FLAGS) for b in blocks):
            problems.append("no public access block with all of " + ", ".join(_PUBLIC_BLOCK_FLAGS))
        if props.get("acl") in ("public-read", "public-read-write", "authenticated-read"):
            problems.append(f"acl {props['acl']} makes it readable outside the account")
        encrypted = props.get("serverSideEncryptionConfiguration") or list(
            _attached(resources, types.AWS_S3_ENCRYPTION, bucket)
        )
        if not encrypted:
            problems.append("no server-side encryption configuration")
    elif bucket.type == types.GCP_STORAGE_BUCKET:
        if props.get("publicAccessPrevention") != "enforced":
            problems.append("publicAccessPrevention is not enforced")
        if props.get("uniformBucketLevelAccess") is not True:
            problems.append("uniformBucketLevelAccess is off (object ACLs can make files public)")
    elif props.get("allowBlobPublicAccess") is not False:
        problems.append("allowBlobPublicAccess is not false")
    return problems


POLICY = stack_policy(
    "checkpoint-bucket-private",
    "Checkpoint buckets are private and encrypted.",
    check_checkpoint_buckets,
    config=CONFIG,
    display_name="Private, encrypted checkpoint buckets",
    tags=[SECURITY],
    severity=Severity.HIGH,
)
