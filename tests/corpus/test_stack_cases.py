"""Evasions a stack makes as a whole: capacity that adds up — many groups parked at zero, a
fleet cut into members, a budget met only by the expected figure. Each case
(``stack_cases/<cloud>_<what>.py``) is a program of its own, so findings on the whole stack
(no resource of their own) are its: it states ``EXPECT`` (the policies that must find
something, on any resource or the stack) and may set ``POLICY_CONFIG`` (policy -> settings,
over the dev environment's). Cases run in-process under the offline engine, realistic and as a
preview, through the pack's servicer (``PolicyHarness.check``, the calls ``gpufleet check``
makes); ``tests/corpus/test_corpus.py`` runs the one-program corpus through the real command.
"""

from __future__ import annotations

import ast
import json
import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.clouds import CLOUDS
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.capture import capture_program
from gpufleet.policies.pack import CONFIG_DIR
from gpufleet.policies.testing import PolicyHarness

HERE = Path(__file__).parent
CASES = {p.stem: p for p in sorted((HERE / "stack_cases").glob("[!_]*.py"))}
# The corpus program's stack config (tests/corpus/program/Pulumi.yaml): dev's budget, regions.
STACK_CONFIG = {
    "aws:region": "us-east-1",
    "gcp:project": "acme-ml-dev",
    "gcp:region": "us-central1",
    "azure-native:location": "eastus2",
    "gpufleet:limits": json.dumps({"monthlyBudgetUsd": 6000}),
}


def _assigned(path: Path, name: str) -> Any:
    """The literal a case assigns to ``name`` (``set()`` for none), None when it assigns none."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if getattr(target, "id", None) != name or getattr(node, "value", None) is None:
            continue
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "set":
            return set()
        return ast.literal_eval(value)
    return None


def verdict(path: Path, preview: bool) -> set[str]:
    config = json.loads((CONFIG_DIR / "dev.json").read_text())
    for policy, settings in (_assigned(path, "POLICY_CONFIG") or {}).items():
        config[policy] = {**config.get(policy, {}), **settings}
    sys.path.insert(0, str(HERE / "cases"))  # the cases' shared tags (_tags)
    try:
        capture = capture_program(
            lambda: runpy.run_path(str(path), run_name=path.stem),
            project="stack-cases",
            stack="dev",
            preview=preview,
            config=STACK_CONFIG,
        ).capture
    finally:
        sys.path.remove(str(HERE / "cases"))
    harness = PolicyHarness(config=config, stack="dev", dry_run=preview, stack_config=STACK_CONFIG)
    return {v.policy for v in harness.check(from_capture(capture))}


def test_there_are_stack_cases_on_every_cloud() -> None:
    assert {name.split("_", 1)[0] for name in CASES} == set(CLOUDS)
    for path in CASES.values():
        assert _assigned(path, "EXPECT") is not None, f"{path.name} states no EXPECT"
    assert len(CASES) >= 16
    honest = [name for name, path in CASES.items() if not _assigned(path, "EXPECT")]
    assert len(honest) >= 5, "honest stacks keep the stack checks from passing by flagging all"


@pytest.mark.parametrize("preview", [False, True], ids=["realistic", "preview"])
@pytest.mark.parametrize("case", list(CASES))
def test_stack_case_verdict(case: str, preview: bool) -> None:
    path = CASES[case]
    assert verdict(path, preview) == set(_assigned(path, "EXPECT")), path.read_text()[:300]
