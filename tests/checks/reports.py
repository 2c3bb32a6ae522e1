"""Check reports made by hand, for the reports' tests: any number of findings, hostile names,
awkward paths, without running a program or the pack."""

from __future__ import annotations

from pathlib import Path

from gpufleet.checks.analyzer_protocol import PackInfo, PolicyInfo
from gpufleet.checks.check_run import CheckReport, Finding, SourceLocation, SourceRoot
from gpufleet.policy_tags import COST, SECURITY

SECURE = PolicyInfo(
    "no-public-ip",
    "GPU machines get no public IP address.",
    "mandatory",
    {},
    False,
    "Put them in private subnets.",
    display_name="No public IP",
    severity="high",
    tags=(SECURITY,),
    url="https://example.com/policies#no-public-ip",
)
THRIFTY = PolicyInfo(
    "budget", "The stack stays within budget.", "advisory", {}, True, "", tags=(COST,)
)
PACK = PackInfo("pack", "1.0", (SECURE, THRIFTY), {})


def finding(
    name: str,
    *,
    policy: PolicyInfo = SECURE,
    message: str = "a public IP",
    path: str | None = "__main__.py",
    line: int = 3,
) -> Finding:
    return Finding(
        policy=policy.name,
        level=policy.level,
        message=message,
        urn=f"urn:pulumi:dev::p::aws:ec2/instance:Instance::{name}",
        resource_type="aws:ec2/instance:Instance",
        resource_name=name,
        location=SourceLocation(path, line) if path is not None else None,
    )


def report(findings: list[Finding], *, root: Path | None = None, **fields: object) -> CheckReport:
    made = CheckReport(
        pack=PACK,
        project="p",
        stack="dev",
        dry_run=False,
        resource_count=len(findings),
        levels={SECURE.name: "mandatory", THRIFTY.name: "advisory"},
        findings=findings,
        root=SourceRoot(root, repository=True) if root is not None else None,
    )
    for name, value in fields.items():
        setattr(made, name, value)
    return made
