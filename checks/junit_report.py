"""A check report as JUnit XML, for CI systems that show test results (GitLab, Jenkins...).

One test suite per policy, one test case per resource the policy flagged plus one passing case
for the policy as a whole: mandatory findings are failures, advisory ones are recorded as
``system-out`` of a passing case (JUnit has no "warning"), so the failure count is exactly what
fails the check.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from gpufleet.checks.check_run import CheckReport, Finding


def junit_xml(report: CheckReport) -> str:
    by_policy: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_policy[finding.policy].append(finding)
    suites = ET.Element("testsuites", name=f"gpufleet check {report.stack}")
    total_failures = 0
    total_tests = 0
    for policy in report.pack.policies:
        findings = by_policy.get(policy.name, [])
        failures = sum(1 for f in findings if f.level == "mandatory")
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=policy.name,
            tests=str(len(findings) + 1),
            failures=str(failures),
            errors="0",
            skipped="1" if report.levels.get(policy.name) == "disabled" else "0",
        )
        overall = ET.SubElement(suite, "testcase", classname=policy.name, name="policy")
        if report.levels.get(policy.name) == "disabled":
            ET.SubElement(overall, "skipped", message="disabled in this environment")
        for finding in findings:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=policy.name,
                name=finding.resource_name or "stack",
            )
            if finding.location is not None:
                case.set("file", finding.location.path)
                case.set("line", str(finding.location.line))
            if finding.level == "mandatory":
                failure = ET.SubElement(case, "failure", message=finding.message, type="mandatory")
                failure.text = f"{finding.urn}\n{finding.message}"
            else:
                ET.SubElement(case, "system-out").text = f"advisory: {finding.message}"
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
            ran, "failure", message=f"the program {report.program_unfinished}", type="program"
        )
        failure.text = (
            f"the program {report.program_unfinished}; only the {report.resource_count} "
            "resource(s) it registered were checked"
        )
        total_failures += 1
    total_tests += 1
    suites.set("tests", str(total_tests))
    suites.set("failures", str(total_failures))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
