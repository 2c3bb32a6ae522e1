"""What the engine tests share: a small program with a component, and validating a stack export
against the schema gpufleet documents it with."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pulumi
import pulumi_aws as aws

from gpufleet.engine.stack_export import STACK_EXPORT_SCHEMA


class Pool(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:compute:Pool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.role = aws.iam.Role(f"{name}-role", assume_role_policy="{}", opts=child)
        self.profile = aws.iam.InstanceProfile(f"{name}-profile", role=self.role.name, opts=child)
        self.register_outputs({"role": self.role.arn})


def small_program() -> None:
    pool = Pool("pool")
    aws.s3.Bucket(
        "ckpt",
        tags={"uses": pool.role.arn},
        opts=pulumi.ResourceOptions(protect=True, ignore_changes=["tags"]),
    )
    pulumi.export("role", pool.role.arn)


def validate_export(document: dict[str, Any]) -> None:
    schema = json.loads(STACK_EXPORT_SCHEMA.read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(
        document
    )
