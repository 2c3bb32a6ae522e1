"""A check report as SARIF 2.1.0, for GitHub code scanning (``upload-sarif``).

One run; one rule per policy of the pack (``defaultConfiguration.level`` from the level the
environment gave it); one result per finding: ``error`` for mandatory, ``warning`` for advisory,
located at the stack-config or program line that produced the resource (code scanning needs a
physical location: resources without one point at the stack config, else ``Pulumi.yaml``),
with the URN as logical location and a ``partialFingerprints`` entry so code scanning tracks a
finding across commits. Baselined findings are included with ``baselineState: unchanged``.
``sarif.schema.json`` (written from the SARIF 2.1.0 spec, the subset emitted here) lets tests
validate the output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpufleet import __version__
from gpufleet.checks.check_run import CheckReport, Finding

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_SUBSET_SCHEMA = Path(__file__).with_name("sarif.schema.json")
INFORMATION_URI = "https://github.com/gpufleet/gpufleet"
_LEVELS = {"mandatory": "error", "advisory": "warning", "disabled": "none"}


def sarif_log(report: CheckReport, *, fallback_uri: str) -> dict[str, Any]:
    rules = [
        {
            "id": p.name,
            "name": "".join(part.capitalize() for part in p.name.split("-")),
            "shortDescription": {"text": p.description},
            "fullDescription": {"text": p.description},
            "help": {"text": p.remediation_steps or p.description},
            "defaultConfiguration": {"level": _LEVELS.get(report.levels.get(p.name, ""), "none")},
            "properties": {"policyType": "stack" if p.is_stack_policy else "resource"},
        }
        for p in report.pack.policies
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [_result(f, index, fallback_uri, "new") for f in report.findings] + [
        _result(f, index, fallback_uri, "unchanged") for f in report.baselined
    ]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpufleet",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "automationDetails": {"id": f"gpufleet-check/{report.stack}/"},
                "invocations": [_invocation(report)],
                "results": results,
                "properties": {
                    "pack": f"{report.pack.name}@{report.pack.version}",
                    "stack": report.stack,
                    "preview": report.dry_run,
                    "resources": report.resource_count,
                    "suppressed": [vars(s) for s in report.suppressed],
                },
            }
        ],
    }


def _invocation(report: CheckReport) -> dict[str, Any]:
    """The run itself: successful only when the program ran to its end."""
    if report.program_unfinished is None:
        return {"executionSuccessful": True}
    return {
        "executionSuccessful": False,
        "toolExecutionNotifications": [
            {
                "level": "error",
                "message": {
                    "text": f"the program {report.program_unfinished}: only the "
                    f"{report.resource_count} resource(s) it registered were checked"
                },
            }
        ],
    }


def _result(finding: Finding, index: dict[str, int], fallback: str, state: str) -> dict[str, Any]:
    location = finding.location
    physical: dict[str, Any] = {
        "artifactLocation": {"uri": location.path if location else fallback},
        "region": {"startLine": location.line if location else 1},
    }
    result: dict[str, Any] = {
        "ruleId": finding.policy,
        "level": _LEVELS.get(finding.level, "note"),
        "message": {"text": _text(finding)},
        "locations": [
            {
                "physicalLocation": physical,
                "logicalLocations": [
                    {
                        "name": finding.resource_name or "stack",
                        "fullyQualifiedName": finding.urn or "stack",
                        "kind": "resource",
                    }
                ],
            }
        ],
        "partialFingerprints": {"gpufleetFinding/v1": finding.fingerprint},
        "baselineState": state,
    }
    if finding.policy in index:
        result["ruleIndex"] = index[finding.policy]
    return result


def _text(finding: Finding) -> str:
    subject = f"{finding.resource_name} ({finding.resource_type}): " if finding.urn else ""
    return f"{subject}{finding.message}"
