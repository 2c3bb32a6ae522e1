"""``gpufleet check``: analyze a stack's resources with a policy pack, through the protocol.

``run_check`` starts the pack as a plugin process, runs the engine's Analyzer calls over the
resources, and turns the pack's diagnostics into ``Finding``s tied to resources and, where
known, to the line that produced them. Baselines (``baseline``) then separate what was already
there from what is new.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpufleet.checks.analyzer_protocol import (
    PackInfo,
    analyze,
    configure,
    configure_stack,
    pack_info,
    without_description,
)
from gpufleet.checks.policy_config import load_policy_config, reconcile
from gpufleet.checks.policy_pack_process import PolicyPackProcess
from gpufleet.engine.analyzer_resources import AnalyzerResource
from gpufleet.engine.secret_mask import SecretMask
from gpufleet.policy_notes import SUPPRESSED_PREFIX, read_suppressed_note
from gpufleet.text_input import InputFileError
from gpufleet.yaml_input import read_yaml_file


@dataclass(frozen=True)
class SourceLocation:
    path: str  # POSIX, relative to the report's SourceRoot, never leaving it
    line: int


@dataclass(frozen=True)
class SourceRoot:
    """What every path of a report is relative to: the top of the git work tree holding the
    program (code scanning and annotations resolve paths from the repository's root, wherever
    the check ran from), else the program's own directory."""

    path: Path  # absolute, symlinks resolved
    repository: bool


@dataclass(frozen=True)
class Finding:
    policy: str
    level: str  # "mandatory" or "advisory"
    message: str
    urn: str
    resource_type: str
    resource_name: str
    location: SourceLocation | None

    @property
    def fingerprint(self) -> str:
        """Stable across runs: numbers (costs, counts) do not change it."""
        return _fingerprint(self.policy, self.urn, re.sub(r"\d[\d,.]*", "#", self.message))


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Suppressed:
    """A violation the policy config suppressed (``suppressions: [{resource, reason}]``): the
    pack reports only the resource and the reason, not the violation's message."""

    policy: str
    urn: str
    reason: str
    resource_type: str = ""
    resource_name: str = ""
    location: SourceLocation | None = None

    @property
    def fingerprint(self) -> str:
        """Stable while the policy config suppresses the policy on the resource."""
        return _fingerprint(self.policy, self.urn, SUPPRESSED_PREFIX)


@dataclass
class CheckReport:
    pack: PackInfo
    project: str
    stack: str
    dry_run: bool
    resource_count: int
    levels: dict[str, str]
    findings: list[Finding]
    suppressed: list[Suppressed] = field(default_factory=list)
    baselined: list[Finding] = field(default_factory=list)
    # How the program ended when it did not run to its end ("called sys.exit(0) at
    # __main__.py:9 before its end"): the check then fails, whatever the findings.
    program_unfinished: str | None = None
    # What locations' paths are relative to (None: not known, as for a report built by hand),
    # and where a finding without a location of its own points: code scanning needs one.
    root: SourceRoot | None = None
    fallback_path: str = "Pulumi.yaml"
    # The --baseline file the baselined findings were in, as given.
    baseline: str | None = None

    @property
    def mandatory(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "mandatory"]

    @property
    def advisory(self) -> list[Finding]:
        return [f for f in self.findings if f.level != "mandatory"]


Locator = Callable[[AnalyzerResource], SourceLocation | None]


def run_check(
    resources: list[AnalyzerResource],
    *,
    pack_dir: Path,
    policy_config: Path | None,
    project: str,
    stack: str,
    dry_run: bool,
    stack_config: dict[str, str],
    locate: Locator | None = None,
    started: PolicyPackProcess | None = None,
    loaded_config: tuple[dict[str, Any], str] | None = None,
) -> CheckReport:
    """Analyze ``resources`` with the pack in ``pack_dir`` (``started`` already, when given:
    the same pack, project, stack and config). PolicyConfigError for a bad config file,
    PolicyPackError when the pack cannot run. ``loaded_config``: the policy config file's
    (content, text) read already, before a program ran."""
    if loaded_config is not None:
        config, text = loaded_config
    else:
        config, text = load_policy_config(policy_config) if policy_config else ({}, "")
    pack = started or PolicyPackProcess(
        pack_dir, project=project, stack=stack, dry_run=dry_run, config=stack_config
    )
    with pack as process:
        analyzer = process.stub
        info = _with_declared_version(pack_info(analyzer), pack_dir)
        settings = reconcile(info, config, path=policy_config, text=text)
        configure(analyzer, settings)
        configure_stack(
            analyzer, project=project, stack=stack, dry_run=dry_run, config=stack_config
        )
        diagnostics, not_applicable = analyze(analyzer, resources)
    by_urn = {r.urn: r for r in resources}
    descriptions = {p.name: p.description for p in info.policies}
    mask = SecretMask(resources)
    findings = []
    for d in diagnostics:
        resource = by_urn.get(d.urn)
        findings.append(
            Finding(
                policy=d.policy,
                level=d.level,
                message=mask(without_description(d.message, descriptions.get(d.policy, "")), d.urn),
                urn=d.urn,
                resource_type=resource.type if resource else "",
                resource_name=resource.name if resource else "",
                location=locate(resource) if locate and resource else None,
            )
        )
    findings.sort(key=lambda f: (f.level != "mandatory", f.policy, f.urn, f.message))
    suppressed = []
    for n in not_applicable:
        note = read_suppressed_note(n.reason)
        if note is None:
            continue
        urn = note.urn if note.urn is not None else n.urn
        resource = by_urn.get(urn)
        suppressed.append(
            Suppressed(
                n.policy,
                urn,
                mask(note.reason, urn),
                resource_type=resource.type if resource else "",
                resource_name=resource.name if resource else "",
                location=locate(resource) if locate and resource else None,
            )
        )
    return CheckReport(
        pack=info,
        project=project,
        stack=stack,
        dry_run=dry_run,
        resource_count=len(resources),
        levels={name: level for name, (level, _) in settings.items()},
        findings=findings,
        suppressed=suppressed,
    )


def _with_declared_version(info: PackInfo, pack_dir: Path) -> PackInfo:
    # Python packs always answer 0.0.1; the CLI uses PulumiPolicy.yaml's version instead.
    try:
        declared = read_yaml_file(pack_dir / "PulumiPolicy.yaml", what="a policy pack file").data
    except InputFileError:
        return info
    version = declared.get("version") if isinstance(declared, dict) else None
    return replace(info, version=str(version)) if version else info
