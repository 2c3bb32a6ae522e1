"""A check report as JUnit XML, for CI systems that show test results (GitLab, Jenkins...).

One test suite per policy, one test case per resource the policy flagged plus one passing case
for the policy as a whole: mandatory findings are failures, advisory ones are recorded as
``system-out`` of a passing case (JUnit has no "warning"), so the failure count is exactly what
fails the check.

The XML is valid against Jenkins' ``junit-10.xsd`` (the xUnit plugin's, the strictest common
reading of the format; ``junit-10.xsd`` beside this module, for tests): a test case takes no
``file`` or ``line`` attribute there, so where a finding comes from is the first line of its
failure or output text. Characters XML 1.0 cannot carry at all (most controls, even as
references) are written as ``\\xNN`` escapes, as on a terminal; carriage returns, C1 controls
and bidirectional overrides as character references.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from gpufleet.checks.check_run import CheckReport, Finding
from gpufleet.terminal_text import BIDI_CONTROLS, C1_CONTROLS

JUNIT_SCHEMA = Path(__file__).with_name("junit-10.xsd")

# Not a Char of XML 1.0 (section 2.2): C0 controls but tab, newline and carriage return, lone
# surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


_AS_REFERENCE = re.compile(f"[\r{C1_CONTROLS}{BIDI_CONTROLS}]")


def xml_text(value: str) -> str:
    """``value`` with what XML 1.0 cannot hold shown as an escape."""
    return _NOT_XML.sub(lambda found: f"\\x{ord(found.group()):02x}", value)


def junit_xml(report: CheckReport) -> str:
    by_policy: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_policy[finding.policy].append(finding)
    suites = ET.Element("testsuites", name=xml_text(f"gpufleet check {report.stack}"))
    total_failures = 0
    total_tests = 0
    for policy in report.pack.policies:
        findings = by_policy.get(policy.name, [])
        failures = sum(1 for f in findings if f.level == "mandatory")
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=xml_text(policy.name),
            tests=str(len(findings) + 1),
            failures=str(failures),
            errors="0",
            skipped="1" if report.levels.get(policy.name) == "disabled" else "0",
        )
        overall = ET.SubElement(suite, "testcase", classname=xml_text(policy.name), name="policy")
        if report.levels.get(policy.name) == "disabled":
            ET.SubElement(overall, "skipped", message="disabled in this environment")
        for finding in findings:
            _case(suite, finding)
        total_failures += failures
        total_tests += len(findings) + 1
    # The program itself: a test that fails when it did not run to its end.
    program = ET.SubElement(
        suites,
        "testsuite",
        name="program",
        tests="1",
        failures="0" if report.program_unfinished is None else "1",
        errors="0",
        skipped="0",
    )
    ran = ET.SubElement(program, "testcase", classname="program", name="ran to its end")
    if report.program_unfinished is not None:
        failure = ET.SubElement(
            ran,
            "failure",
            message=xml_text(f"the program {report.program_unfinished}"),
            type="program",
        )
        failure.text = xml_text(
            f"the program {report.program_unfinished}; only the {report.resource_count} "
            "resource(s) it registered were checked"
        )
        total_failures += 1
    total_tests += 1
    suites.set("tests", str(total_tests))
    suites.set("failures", str(total_failures))
    ET.indent(suites)
    document = ET.tostring(suites, encoding="unicode")
    # Carriage returns (a parser would read them as newlines), C1 controls and bidirectional
    # overrides as character references: the same XML, shown safely on a terminal. Only text
    # and attribute values can hold them (no CDATA is written).
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _AS_REFERENCE.sub(
        lambda found: f"&#x{ord(found.group()):X};", document
    )


def _case(suite: ET.Element, finding: Finding) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        classname=xml_text(finding.policy),
        name=xml_text(finding.resource_name or "stack"),
    )
    where = f"at {finding.location.path}:{finding.location.line}\n" if finding.location else ""
    if finding.level == "mandatory":
        failure = ET.SubElement(
            case, "failure", message=xml_text(finding.message), type="mandatory"
        )
        failure.text = xml_text(f"{where}{finding.urn}\n{finding.message}")
    else:
        out = ET.SubElement(case, "system-out")
        out.text = xml_text(f"{where}advisory: {finding.message}")
