"""The ``checkpoint-bucket-private`` rule through the servicer the pack serves: resources that must
pass and resources that must fail, as users write them."""

from __future__ import annotations

from gpufleet.policies.testing import UNKNOWN, PolicyHarness, StackInput
from tests.policies.inputs import TAGS


def test_checkpoint_buckets(dev: PolicyHarness) -> None:
    bucket = StackInput("aws:s3/bucket:Bucket", {"tags": TAGS}, "model-checkpoints")
    urn = bucket.urn("dev")
    block = StackInput(
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        {
            "bucket": UNKNOWN,
            **dict.fromkeys(
                [
                    "blockPublicAcls",
                    "blockPublicPolicy",
                    "ignorePublicAcls",
                    "restrictPublicBuckets",
                ],
                True,
            ),
        },
        "block",
        property_dependencies={"bucket": [urn]},
    )
    sse = StackInput(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        {"bucket": UNKNOWN, "rules": [{}]},
        "sse",
        property_dependencies={"bucket": [urn]},
    )
    assert [
        v
        for v in dev.analyze_stack([bucket, block, sse])
        if v.policy == "checkpoint-bucket-private"
    ] == []
    found = [v for v in dev.analyze_stack([bucket, sse]) if v.policy == "checkpoint-bucket-private"]
    assert len(found) == 1 and "no public access block" in found[0].message
    logs = StackInput("aws:s3/bucket:Bucket", {"tags": TAGS}, "access-logs")
    assert [v for v in dev.analyze_stack([logs]) if v.policy == "checkpoint-bucket-private"] == []
