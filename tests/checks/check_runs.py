"""Running ``gpufleet check`` as users do, for the checks tests: the console script in the
repository root, and the bad program (``tests/programs/bad_gpu``), which breaks every
mandatory policy of the dev environment (``BAD_FINDINGS``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))
BAD = "tests/programs/bad_gpu"
# A new policy that fires on the bad program (most rules do) adds its findings here.
BAD_FINDINGS = {
    ("aml-scale-to-zero", "always-on"),
    ("checkpoint-bucket-private", "ckpt-store"),
    ("gpu-budget", ""),
    ("gpu-budget", "train-group"),  # at zero, no declared use: unpriced under a budget
    ("gpu-fleet-size", ""),  # the stack: 67 GPUs every group at its max, over dev's 64
    ("gpu-fleet-size", "train-group"),
    ("gpu-instance-size", "mega-node"),
    ("gpu-no-public-ip", "always-on"),
    ("gpu-no-public-ip", "mega-node"),
    ("gpu-no-public-ip", "train-template"),
    ("gpu-sharing-config", "mega-node"),
    ("imdsv2-required", "train-template"),
    ("required-tags", "train-template"),
    ("reservation-end-date", "hold-a100"),
    ("sagemaker-spot-checkpointing", "finetune-job"),
    ("training-on-spot", "train-group"),
}
DEV_CONFIG = "policies/config/dev.json"
# What a failing check of gpufleet's own stacks says to do.
OWN_STACKS_BREAK = (
    "gpufleet's own stacks break a policy: change the component or the generator that builds "
    "what it flags (its URN names the component), not the stack file (CONTRIBUTING, Add a "
    "policy rule: a rule about the builder too)"
)


def own_stack_findings(stdout: str) -> str:
    """A failing check's JSON report of gpufleet's own stacks, as a test's message."""
    try:
        findings = json.loads(stdout)["findings"]
    except (ValueError, KeyError, TypeError):
        return f"{OWN_STACKS_BREAK}\n{stdout}"
    found = [f"{f['policy']} on {f.get('urn') or f['name']}: {f['message']}" for f in findings]
    return OWN_STACKS_BREAK + "".join(f"\n  {line}" for line in found)


# The program line that creates the launch template (the SDK's source position).
TEMPLATE_LINE = next(
    number
    for number, line in enumerate((ROOT / BAD / "__main__.py").read_text().splitlines(), 1)
    if "= aws.ec2.LaunchTemplate(" in line
)


def gpufleet(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [GPUFLEET, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def bad(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return gpufleet(
        "check", "--env", "dev", "--program", BAD, "--policy-config", DEV_CONFIG, *args, env=env
    )
