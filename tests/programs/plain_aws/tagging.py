"""A sibling module the program imports (programs are run from their own directory)."""

from typing import Any

import pulumi

TAGGABLE = {
    "aws:ec2/launchTemplate:LaunchTemplate",
    "aws:ec2/instance:Instance",
    "aws:s3/bucket:Bucket",
}


def add_team_tags(team: str) -> pulumi.ResourceTransform:
    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if args.type_ not in TAGGABLE:
            return None
        props: dict[str, Any] = dict(args.props)
        tags: dict[str, Any] = props.get("tags") or {}
        props["tags"] = {**tags, "team": team, "managed-by": "transform"}
        return pulumi.ResourceTransformResult(props, args.opts)

    return transform
