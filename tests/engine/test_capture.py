"""The offline engine's capture: every registration as the engine sees it, previews leave computed
values unknown, transforms take effect."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpufleet.engine.capture import Capture, capture_program
from gpufleet.engine.wire import UNKNOWN, contains_unknown
from tests.engine.samples import Pool, small_program


def test_capture_records_the_engine_view() -> None:
    cap = capture_program(small_program, project="acme", stack="dev").capture
    bucket = cap.one("aws:s3/bucket:Bucket")
    role = cap.one("aws:iam/role:Role")
    pool = cap.one("acme:compute:Pool")
    # URNs as the engine forms them: no Stack in the type chain, the parent's type for children.
    assert bucket.urn == "urn:pulumi:dev::acme::aws:s3/bucket:Bucket::ckpt"
    assert role.urn == "urn:pulumi:dev::acme::acme:compute:Pool$aws:iam/role:Role::pool-role"
    assert role.parent == pool.urn and pool.parent == cap.stack_urn
    assert (bucket.protect, bucket.ignore_changes) == (True, ["tags"])
    assert bucket.property_dependencies["tags"] == [role.urn]
    assert role.urn in bucket.dependencies
    assert bucket.inputs["tags"]["uses"] == "arn:aws:iam::123456789012:role/pool-role"
    assert bucket.source is not None and bucket.source[0].endswith("samples.py")
    assert pool.outputs == {"role": "arn:aws:iam::123456789012:role/pool-role"}
    assert cap.exports == {"role": "arn:aws:iam::123456789012:role/pool-role"}


def test_preview_leaves_computed_values_unknown() -> None:
    cap = capture_program(small_program, stack="dev", preview=True).capture
    bucket = cap.one("aws:s3/bucket:Bucket")
    profile = cap.one("aws:iam/instanceProfile:InstanceProfile")
    assert bucket.inputs["tags"]["uses"] == UNKNOWN
    assert profile.inputs["role"] == UNKNOWN  # the role's name is computed (auto-named)
    assert contains_unknown(bucket.inputs) and bucket.id == ""
    assert cap.exports == {"role": UNKNOWN}
    # Inputs known at preview time stay known.
    role = cap.one("aws:iam/role:Role")
    assert role.inputs["assumeRolePolicy"] == "{}"


def tag_everything(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
    if args.type_ not in ("aws:s3/bucket:Bucket", "aws:iam/role:Role"):
        return None
    props: dict[str, Any] = dict(args.props)
    tags: dict[str, Any] = props.get("tags") or {}
    props["tags"] = {**tags, "cost-center": "cc-1"}
    return pulumi.ResourceTransformResult(props, args.opts)


def protect_children(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult:
    return pulumi.ResourceTransformResult(
        args.props, pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(protect=True))
    )


def test_stack_transforms_take_effect_in_the_capture() -> None:
    def program() -> None:
        pulumi.runtime.register_resource_transform(tag_everything)
        small_program()

    cap = capture_program(program).capture
    assert cap.one("aws:s3/bucket:Bucket").inputs["tags"]["cost-center"] == "cc-1"
    # A resource nested in a component gets the stack transform too.
    assert cap.one("aws:iam/role:Role").inputs["tags"] == {"cost-center": "cc-1"}
    assert "tags" not in cap.one("aws:iam/instanceProfile:InstanceProfile").inputs


def test_resource_transforms_apply_to_the_resource_and_its_children() -> None:
    def program() -> None:
        Pool("guarded", pulumi.ResourceOptions(transforms=[protect_children]))
        Pool("plain")

    cap = capture_program(program).capture
    protected = {r.name for r in cap.registrations if r.protect}
    assert protected == {"guarded", "guarded-role", "guarded-profile"}


def test_without_transforms_nothing_is_tagged() -> None:
    # The control for the two tests above: the tags come from the transform.
    cap = capture_program(small_program).capture
    assert "cost-center" not in cap.one("aws:s3/bucket:Bucket").inputs["tags"]


def test_capture_type_helpers() -> None:
    cap: Capture = capture_program(small_program).capture
    assert cap.named("pool-role").type == "aws:iam/role:Role"
    with pytest.raises(LookupError):
        cap.one("aws:ec2/instance:Instance")
