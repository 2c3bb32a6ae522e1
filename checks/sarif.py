"""A check report as SARIF 2.1.0, for GitHub code scanning (``upload-sarif``).

One run; one rule per policy of the pack, with what the pack says of it (``GetAnalyzerInfo``):
its title as ``shortDescription`` and its description as ``fullDescription`` (code scanning
shows both), remediation as ``help``, its help page as ``helpUri``, its tags, and for a
security policy code scanning's ``security-severity`` from its severity. One result per
finding — ``error`` for mandatory, ``warning`` for advisory — located at the stack-config or
program line that produced the resource (code scanning needs a physical location: resources
without one point at the stack config, else ``Pulumi.yaml``), with the URN as logical location
and a ``partialFingerprints`` entry so a finding is tracked across commits. Findings the
baseline holds and violations the policy config suppresses are results too, each with a SARIF
``suppressions`` entry (``external``: the baseline file or the policy config, not the program's
source) and its justification.

Paths are relative references to ``%SRCROOT%``, the repository's root (``report.root``; the
program's directory, given as a ``file:`` URI, when it is not in a git repository),
percent-encoded as RFC 3986 requires.

GitHub rejects a log over its limits (``MAX_RESULTS`` per run, ``MAX_GZIP_BYTES``): past them
``sarif_output`` keeps the most severe results, and says how many it left out in the log (a
tool execution notification) and to its caller.

The log is typed with ``TypedDict``s rather than a SARIF library: of the two on PyPI,
``sarif-om`` (Microsoft's) has had no release since 2019 and no type hints, and
``sarif-pydantic`` lacks properties this log needs (``result.suppressions``,
``result.baselineState``, ``invocation.toolExecutionNotifications``). ``sarif.schema.json``
(written from the SARIF 2.1.0 spec, the subset emitted here) lets tests validate the output.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NotRequired, TypedDict
from urllib.parse import quote, urlsplit

from gpufleet import PROJECT_URL, __version__
from gpufleet.checks.analyzer_protocol import PolicyInfo
from gpufleet.checks.check_run import CheckReport, Finding, SourceLocation, Suppressed
from gpufleet.policy_tags import SECURITY

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_SUBSET_SCHEMA = Path(__file__).with_name("sarif.schema.json")
SOURCE_ROOT = "%SRCROOT%"

# GitHub code scanning's limits ("SARIF support for code scanning"): a log with more results
# in a run, or larger once gzip-compressed, is rejected whole. 10 MB read as decimal
# megabytes, the smaller reading.
MAX_RESULTS = 25_000
MAX_GZIP_BYTES = 10_000_000
# Over 20 tags a rule is rejected too; 1024 characters of a description are shown.
MAX_TAGS = 20
MAX_DESCRIPTION = 1024

# A pack's severity as code scanning's security severity: a score in the middle of the band
# GitHub shows under that name (low 0.1-3.9, medium 4.0-6.9, high 7.0-8.9, critical > 9.0).
SECURITY_SEVERITY = {"low": "2.0", "medium": "5.5", "high": "8.0", "critical": "9.5"}

Level = Literal["none", "note", "warning", "error"]
_LEVELS: dict[str, Level] = {"mandatory": "error", "advisory": "warning", "disabled": "none"}
# Which results a capped log keeps first: the most severe.
_LEVEL_RANK: dict[Level, int] = {"error": 0, "warning": 1, "note": 2, "none": 3}


class Message(TypedDict):
    text: str


class ArtifactLocation(TypedDict):
    uri: NotRequired[str]
    uriBaseId: NotRequired[str]
    description: NotRequired[Message]


class Region(TypedDict):
    startLine: int


class PhysicalLocation(TypedDict):
    artifactLocation: ArtifactLocation
    region: Region


class LogicalLocation(TypedDict):
    name: str
    fullyQualifiedName: str
    kind: str


class Location(TypedDict):
    physicalLocation: PhysicalLocation
    logicalLocations: list[LogicalLocation]


class Suppression(TypedDict):
    kind: Literal["inSource", "external"]
    status: Literal["accepted", "underReview", "rejected"]
    justification: str


class Result(TypedDict):
    ruleId: str
    ruleIndex: NotRequired[int]
    level: Level
    message: Message
    locations: list[Location]
    partialFingerprints: dict[str, str]
    # On every result or none (SARIF 3.27.23): [] is "not suppressed".
    suppressions: list[Suppression]
    # Only when compared with a baseline, then on every result (SARIF 3.27.24).
    baselineState: NotRequired[Literal["new", "unchanged"]]


class ReportingConfiguration(TypedDict):
    level: Level


RuleProperties = TypedDict(
    "RuleProperties",
    {"tags": list[str], "policyType": str, "security-severity": NotRequired[str]},
)


class Rule(TypedDict):
    id: str
    name: str
    shortDescription: Message
    fullDescription: Message
    help: Message
    helpUri: NotRequired[str]
    defaultConfiguration: ReportingConfiguration
    properties: RuleProperties


class Notification(TypedDict):
    level: Level
    message: Message


class Invocation(TypedDict):
    executionSuccessful: bool
    toolExecutionNotifications: NotRequired[list[Notification]]


class Driver(TypedDict):
    name: str
    version: str
    informationUri: str
    rules: list[Rule]


class Tool(TypedDict):
    driver: Driver


class AutomationDetails(TypedDict):
    id: str


class RunProperties(TypedDict):
    pack: str
    stack: str
    preview: bool
    resources: int


class Run(TypedDict):
    tool: Tool
    automationDetails: AutomationDetails
    originalUriBaseIds: dict[str, ArtifactLocation]
    invocations: list[Invocation]
    results: list[Result]
    properties: RunProperties


SarifLog = TypedDict("SarifLog", {"$schema": str, "version": Literal["2.1.0"], "runs": list[Run]})


@dataclass(frozen=True)
class SarifOutput:
    text: str  # the log, as written
    results: int  # in it
    left_out: int  # not in it: over code scanning's limits

    @property
    def note(self) -> str | None:
        """What was left out, for people; None when nothing was."""
        return _left_out_note(self.results, self.left_out)


def sarif_output(report: CheckReport) -> SarifOutput:
    """The log as text, within code scanning's limits: the most severe results when there are
    too many, the cut said in the log itself."""
    ranked = sorted(_results(report), key=lambda ranked: ranked[0])
    results = [result for _, result in ranked]
    kept = min(len(results), MAX_RESULTS)
    while True:
        text = json.dumps(_log(report, results, kept), indent=2) + "\n"
        size = len(text.encode())
        # Compressing tens of megabytes takes a while: only when the raw text could be over.
        if size > MAX_GZIP_BYTES:
            size = len(gzip.compress(text.encode(), compresslevel=6))
        if size <= MAX_GZIP_BYTES or kept == 0:
            return SarifOutput(text, kept, len(results) - kept)
        # Results are most of the log: aim a little under, then measure again.
        kept = int(kept * MAX_GZIP_BYTES / size * 0.95)


def _left_out_note(results: int, left_out: int) -> str | None:
    if not left_out:
        return None
    return (
        f"{left_out:,} of {results + left_out:,} results left out, the least severe: GitHub "
        f"code scanning rejects a run of more than {MAX_RESULTS:,} results or a log of more "
        f"than {MAX_GZIP_BYTES // 1_000_000} MB gzip-compressed (--format json lists them all)"
    )


def _log(report: CheckReport, results: list[Result], kept: int) -> SarifLog:
    """The log with the first ``kept`` of ``results``."""
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpufleet",
                        "version": __version__,
                        "informationUri": PROJECT_URL,
                        "rules": [
                            _rule(p, report.levels.get(p.name, "")) for p in report.pack.policies
                        ],
                    }
                },
                "automationDetails": {"id": f"gpufleet-check/{report.stack}/"},
                "originalUriBaseIds": {SOURCE_ROOT: _source_root(report)},
                "invocations": [_invocation(report, kept, len(results) - kept)],
                "results": results[:kept],
                "properties": {
                    "pack": f"{report.pack.name}@{report.pack.version}",
                    "stack": report.stack,
                    "preview": report.dry_run,
                    "resources": report.resource_count,
                },
            }
        ],
    }


def artifact_uri(path: str) -> str:
    """A report path (POSIX, relative) as a URI reference: percent-encoded (RFC 3986) but for
    the characters a path segment may hold as they are. A colon is encoded too, so a first
    segment like ``c:`` cannot read as a scheme."""
    return quote(path, safe="/!$&'()*+,;=@")


def _source_root(report: CheckReport) -> ArtifactLocation:
    """Where ``%SRCROOT%`` is. Inside a repository only said in words: code scanning resolves
    paths from the repository's root, and the log stays free of the machine's paths (SARIF
    3.14.14 lets a producer leave the absolute URI out)."""
    root = report.root
    if root is None:
        return {"description": {"text": "The directory the report's paths are relative to."}}
    if root.repository:
        return {"description": {"text": "The root of the git repository holding the program."}}
    uri = root.path.as_uri()
    return {
        "uri": uri if uri.endswith("/") else uri + "/",  # a base ends with a slash (3.14.14)
        "description": {"text": "The program's directory (not in a git repository)."},
    }


def _invocation(report: CheckReport, results: int, left_out: int) -> Invocation:
    """The run itself: successful only when the program ran to its end; what did not make it
    into the log, said."""
    notes: list[Notification] = []
    if report.program_unfinished is not None:
        notes.append(
            {
                "level": "error",
                "message": {
                    "text": f"the program {report.program_unfinished}: only the "
                    f"{report.resource_count} resource(s) it registered were checked"
                },
            }
        )
    note = _left_out_note(results, left_out)
    if note is not None:
        notes.append({"level": "warning", "message": {"text": note}})
    invocation: Invocation = {"executionSuccessful": report.program_unfinished is None}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return invocation


def _rule(policy: PolicyInfo, level: str) -> Rule:
    short, full = _descriptions(policy)
    properties: RuleProperties = {
        "tags": list(policy.tags[:MAX_TAGS]),
        "policyType": "stack" if policy.is_stack_policy else "resource",
    }
    # Code scanning treats a rule with a security severity as a security rule: only those
    # tagged so by their pack.
    if SECURITY in policy.tags and policy.severity in SECURITY_SEVERITY:
        properties["security-severity"] = SECURITY_SEVERITY[policy.severity]
    rule: Rule = {
        "id": policy.name,
        "name": "".join(part.capitalize() for part in policy.name.split("-")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": policy.remediation_steps or full},
        "defaultConfiguration": {"level": _LEVELS.get(level, "none")},
        "properties": properties,
    }
    # helpUri is an absolute URI (3.49.12); a pack's is taken only if it is a web page.
    parts = urlsplit(policy.url)
    if parts.scheme in ("http", "https") and parts.netloc:
        rule["helpUri"] = policy.url
    return rule


def _descriptions(policy: PolicyInfo) -> tuple[str, str]:
    """(short, full): the title and the description. Code scanning shows both, one above the
    other; a pack without titles gets its description's first sentence as the short one, or
    the policy's name when that is the whole description."""
    full = policy.description or policy.name
    short = policy.display_name or full.split(". ", 1)[0].rstrip(".") + "."
    if short.rstrip(".") == full.rstrip("."):
        short = policy.name
    return short[:MAX_DESCRIPTION], full[:MAX_DESCRIPTION]


def _results(report: CheckReport) -> list[tuple[tuple[int, int, float], Result]]:
    """Every result with its rank (lower first): what is suppressed after what is not, then by
    level, then by security severity."""
    index = {p.name: i for i, p in enumerate(report.pack.policies)}
    severity = {
        p.name: float(SECURITY_SEVERITY.get(p.severity, 0)) if SECURITY in p.tags else 0.0
        for p in report.pack.policies
    }
    compared = report.baseline is not None
    ranked: list[tuple[tuple[int, int, float], Result]] = []

    def add(suppressed: int, result: Result) -> None:
        rank = (suppressed, _LEVEL_RANK[result["level"]], -severity.get(result["ruleId"], 0.0))
        ranked.append((rank, result))

    for finding in report.findings:
        result = _finding_result(finding, index, report)
        if compared:
            result["baselineState"] = "new"
        add(0, result)
    for finding in report.baselined:
        result = _finding_result(finding, index, report)
        result["baselineState"] = "unchanged"
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": f"in the baseline {report.baseline or ''}".rstrip(),
            }
        ]
        add(1, result)
    for suppressed in report.suppressed:
        result = _suppressed_result(suppressed, index, report)
        if compared:
            # Never in a baseline: a baseline records findings, not suppressed violations.
            result["baselineState"] = "new"
        add(1, result)
    return ranked


def _finding_result(finding: Finding, index: dict[str, int], report: CheckReport) -> Result:
    subject = f"{finding.resource_name} ({finding.resource_type}): " if finding.urn else ""
    return _result(
        finding.policy,
        _LEVELS.get(finding.level, "note"),
        f"{subject}{finding.message}",
        _location(finding.location, report, finding.resource_name, finding.urn),
        finding.fingerprint,
        index,
    )


def _suppressed_result(
    suppressed: Suppressed, index: dict[str, int], report: CheckReport
) -> Result:
    name = suppressed.resource_name or suppressed.urn.rsplit("::", 1)[-1]
    kind = f" ({suppressed.resource_type})" if suppressed.resource_type else ""
    result = _result(
        suppressed.policy,
        _LEVELS.get(report.levels.get(suppressed.policy, ""), "warning"),
        f"{name}{kind}: suppressed by the policy config: {suppressed.reason}",
        _location(suppressed.location, report, name, suppressed.urn),
        suppressed.fingerprint,
        index,
    )
    result["suppressions"] = [
        {"kind": "external", "status": "accepted", "justification": suppressed.reason}
    ]
    return result


def _result(
    policy: str,
    level: Level,
    text: str,
    location: Location,
    fingerprint: str,
    index: dict[str, int],
) -> Result:
    result: Result = {
        "ruleId": policy,
        "level": level,
        "message": {"text": _literal(text)},
        "locations": [location],
        "partialFingerprints": {"gpufleetFinding/v1": fingerprint},
        "suppressions": [],
    }
    if policy in index:
        result["ruleIndex"] = index[policy]
    return result


def _location(
    location: SourceLocation | None, report: CheckReport, name: str, urn: str
) -> Location:
    path, line = (location.path, location.line) if location else (report.fallback_path, 1)
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(path), "uriBaseId": SOURCE_ROOT},
            "region": {"startLine": line},
        },
        "logicalLocations": [
            {"name": name or "stack", "fullyQualifiedName": urn or "stack", "kind": "resource"}
        ],
    }


def _literal(text: str) -> str:
    """A plain-text message as written: in SARIF "[text](target)" is an embedded link (to a
    location or a URL), so a name like "[x](https://evil)" would become one; brackets are
    escaped with a backslash, as SARIF 2.1.0 §3.11.6 says, and so are backslashes before them."""
    return re.sub(r"(\\*)([\[\]])", lambda m: m.group(1) * 2 + "\\" + m.group(2), text)
