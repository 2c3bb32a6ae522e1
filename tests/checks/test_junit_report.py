"""JUnit XML from gpufleet check: one suite per policy, failures exactly the mandatory findings,
valid against Jenkins' junit-10.xsd, each finding's location in its text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import xmlschema

from gpufleet.checks.junit_report import JUNIT_SCHEMA, junit_xml
from tests.checks.check_runs import BAD, BAD_FINDINGS, TEMPLATE_LINE, bad
from tests.checks.reports import THRIFTY, finding, report


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(JUNIT_SCHEMA)


def test_junit(bad_json: dict, schema: xmlschema.XMLSchema10) -> None:
    result = bad("--format", "junit")
    assert result.returncode == 1
    schema.validate(result.stdout)
    suites = ET.fromstring(result.stdout)
    assert int(suites.get("failures", "0")) == len(bad_json["findings"])
    failing = {s.get("name") for s in suites if int(s.get("failures", "0"))}
    assert failing == {p for p, _ in BAD_FINDINGS}, (
        "the failing suites differ from the policies of BAD_FINDINGS (tests/checks/check_runs.py)"
    )
    (template,) = suites.findall("testsuite[@name='imdsv2-required']/testcase/failure")
    assert (template.text or "").startswith(f"at {BAD}/__main__.py:{TEMPLATE_LINE}\n")


def test_locations_are_in_the_text_not_attributes(schema: xmlschema.XMLSchema10) -> None:
    made = report(
        [
            finding("hard", path="stacks dir/__main__.py", line=7),
            finding("soft", policy=THRIFTY, path="Pulumi.dev.yaml", line=2),
            finding("nowhere", path=None),
        ]
    )
    text = junit_xml(made)
    schema.validate(text)
    suites = ET.fromstring(text)
    cases = {c.get("name"): c for c in suites.iter("testcase")}
    assert all(set(c.attrib) <= {"name", "classname"} for c in cases.values())
    failure = cases["hard"].find("failure")
    assert failure is not None and (failure.text or "").startswith("at stacks dir/__main__.py:7\n")
    out = cases["soft"].find("system-out")
    assert out is not None and out.text == "at Pulumi.dev.yaml:2\nadvisory: a public IP"
    nowhere = cases["nowhere"].find("failure")
    assert nowhere is not None and (nowhere.text or "").startswith("urn:pulumi:")


def test_text_xml_cannot_carry_is_escaped(schema: xmlschema.XMLSchema10) -> None:
    made = report([finding("evil\x1b]0;x\x07", message="bad\x00byte \ufffe & <tag>")])
    made.program_unfinished = "raised at __main__.py:3\x1b[2J"
    text = junit_xml(made)
    schema.validate(text)  # parses: no character XML 1.0 forbids
    suites = ET.fromstring(text)
    names = {c.get("name") for c in suites.iter("testcase")}
    assert "evil\\x1b]0;x\\x07" in names
    messages = [f.get("message") for f in suites.iter("failure")]
    assert "bad\\x00byte \\xfffe & <tag>" in messages


def test_carriage_returns_and_bidirectional_overrides_are_references(
    schema: xmlschema.XMLSchema10,
) -> None:
    # Raw, a parser reads \r as a newline and a terminal shows the text reordered.
    name = "a\rb\u202ec\u2066d\x85e"
    made = report([finding(name, message=f"quoting {name}")])
    text = junit_xml(made)
    schema.validate(text)
    assert not any(c in text for c in "\r\u202e\u2066\x85")
    assert "a&#xD;b&#x202E;c&#x2066;d&#x85;e" in text
    suites = ET.fromstring(text)
    assert name in {c.get("name") for c in suites.iter("testcase")}  # the same XML
    assert f"quoting {name}" in {f.get("message") for f in suites.iter("failure")}
