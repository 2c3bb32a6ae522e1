"""The pack's rules are collected from policies/rules/: one module per policy, named after it,
each with its test module and its row in docs/policies.md; a new module is picked up with no
other edit."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from pulumi_policy import Severity

from gpufleet.policies import rules
from gpufleet.policies.policy_builders import Findings, help_url, resource_policy
from gpufleet.policies.rules import all_policies, rule_modules
from gpufleet.policy_tags import COST, SECURITY
from tests.helpers import ROOT

# Each row anchored for its policy's help link (help_url): `| <a id="policy-NAME"></a>`NAME` |`.
DOCS_POLICIES = re.findall(
    r'^\| <a id="policy-([a-z0-9-]+)"></a>`\1` \|',
    (ROOT / "docs" / "policies.md").read_text(),
    re.M,
)


def test_every_rule_module_defines_its_policy_under_its_own_name() -> None:
    names = [p.name for p in all_policies()]
    assert names == [module.replace("_", "-") for module in rule_modules()]


@pytest.mark.parametrize("module", rule_modules())
def test_every_rule_has_its_test_module_and_its_docs_row(module: str) -> None:
    tests = ROOT / "tests" / "policies" / "rules" / f"test_{module}.py"
    assert tests.is_file(), f"policies/rules/{module}.py has no tests: {tests.relative_to(ROOT)}"
    assert module.replace("_", "-") in DOCS_POLICIES, (
        f"docs/policies.md's policy table has no row for {module.replace('_', '-')}"
    )


def test_a_new_rule_module_is_collected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "no_h100_on_sundays.py").write_text(
        textwrap.dedent(
            """
            from gpufleet.policies.policy_builders import Findings, resource_policy
            from gpufleet.policy_tags import COST

            POLICY = resource_policy(
                "no-h100-on-sundays", "A rule added by dropping in a module.",
                lambda resource, settings: Findings(), config={}, applies_to=set(),
                display_name="No H100 on Sundays", tags=[COST],
            )
            """
        )
    )
    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(tmp_path)])
    assert "no-h100-on-sundays" in [p.name for p in all_policies()]


def test_a_rule_module_without_a_policy_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "half_done.py").write_text("THRESHOLD = 4\n")
    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(tmp_path)])
    with pytest.raises(TypeError, match="half_done defines no POLICY"):
        all_policies()


def test_every_policy_says_what_it_is_about() -> None:
    """Its title, security or cost, a severity exactly when it is about security, and its
    help: its row in docs/policies.md, whose anchor the table test above requires."""
    for policy in all_policies():
        assert policy.display_name and policy.display_name != policy.description, policy.name
        assert policy.tags in ([SECURITY], [COST]), policy.name
        assert (policy.severity is not None) == (policy.tags == [SECURITY]), policy.name
        assert policy.url == help_url(policy.name)
        assert help_url(policy.name).endswith(f"#policy-{policy.name}")


@pytest.mark.parametrize(
    ("tags", "severity", "problem"),
    [
        ([SECURITY], None, "a severity for security policies, and only for them"),
        ([COST], Severity.LOW, "a severity for security policies, and only for them"),
        ([], None, "tags must be"),
        (["speed"], None, "tags must be"),
    ],
)
def test_a_policy_must_say_what_it_is_about(
    tags: list[str], severity: Severity | None, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        resource_policy(
            "x", "X.", lambda r, s: Findings(), config={}, applies_to=set(),
            display_name="X", tags=tags, severity=severity,
        )  # fmt: skip


def test_the_docs_name_the_security_policies_with_their_severity() -> None:
    text = " ".join((ROOT / "docs" / "policies.md").read_text().split())
    named = text.split("`security`, each with a severity (", 1)[1].split("), or `cost`", 1)[0]
    stated = dict(re.findall(r"`([a-z0-9-]+)`: `([a-z]+)`", named))
    security = {
        p.name: p.severity.value
        for p in all_policies()
        if SECURITY in (p.tags or []) and p.severity
    }
    pairs = ", ".join(f"`{name}`: `{severity}`" for name, severity in security.items())
    assert stated == security, (
        "docs/policies.md's sentence above the policy table lists each security policy with its "
        f"severity, as `name`: `severity` pairs: {pairs}"
    )
