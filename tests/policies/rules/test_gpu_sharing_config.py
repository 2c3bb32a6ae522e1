"""The ``gpu-sharing-config`` rule through the servicer the pack serves: MIG plans in boot text,
as users and gpufleet write them, that must pass and that must fail."""

from __future__ import annotations

import base64
import gzip
from typing import Any

import pytest

from gpufleet.components.replica_slots import SlotLayout, boot_script
from gpufleet.policies.testing import UNKNOWN, PolicyHarness
from tests.policies.inputs import GCP_TEMPLATE, LT, SECURE_LT, TAGS

POLICY = "gpu-sharing-config"


def user_data(script: str, *, gzipped: bool = False) -> str:
    raw = script.encode()
    return base64.b64encode(gzip.compress(raw) if gzipped else raw).decode()


def mig(profiles: str) -> str:
    return f"#!/bin/bash\nnvidia-smi -mig 1\nnvidia-smi mig -i 0 -cgi {profiles} -C\n"


def found(harness: PolicyHarness, type_: str, props: dict[str, Any]) -> list[str]:
    return [v.message for v in harness.analyze(type_, props) if v.policy == POLICY]


P4D = {**SECURE_LT, "instanceType": "p4d.24xlarge"}


@pytest.mark.parametrize(
    "profiles",
    ["9,9", "19,19,19,19,19,19,19", "14,14,14,15", "5,9", "3g.20gb,4g.20gb", "0"],
)
def test_plans_an_a100_takes_pass(dev: PolicyHarness, profiles: str) -> None:
    assert found(dev, LT, {**P4D, "userData": user_data(mig(profiles))}) == []


@pytest.mark.parametrize(
    ("profiles", "words"),
    [
        ("5,5", "do not fit one A100"),  # two 4g: eight compute slices
        ("19,19,19,19,19,19,19,19", "do not fit"),  # eight 1g: seven is the most
        ("0,19", "do not fit"),  # the whole GPU and one more
        ("42", "A100 has no MIG profile 42"),
        ("1g.10gb,7g.80gb", "A100 has no MIG profile 7g.80gb"),  # an A100-80GB's
    ],
)
def test_plans_an_a100_cannot_take_fail(dev: PolicyHarness, profiles: str, words: str) -> None:
    (message,) = found(dev, LT, {**P4D, "userData": user_data(mig(profiles))})
    assert words in message


def test_mig_on_a_gpu_without_it_fails(dev: PolicyHarness) -> None:
    props = {**SECURE_LT, "instanceType": "g6.xlarge", "userData": user_data(mig("19"))}
    (message,) = found(dev, LT, props)
    assert "g6.xlarge carries L4, which has no MIG" in message


def test_compressed_text_and_variables_are_read(dev: PolicyHarness) -> None:
    hidden = user_data(mig("5,5"), gzipped=True)
    assert found(dev, LT, {**P4D, "userData": hidden})
    script = 'want="9,9"\nnvidia-smi mig -i 0 -cgi "$want" -C\n'
    gcp = {"labels": TAGS, "machineType": "a2-highgpu-1g", "metadataStartupScript": script}
    assert found(dev, GCP_TEMPLATE, gcp) == []
    wrong = {**gcp, "metadataStartupScript": script.replace("9,9", "9,9,9")}
    assert found(dev, GCP_TEMPLATE, wrong)
    unread = {**gcp, "metadataStartupScript": "nvidia-smi mig -cgi $PROFILES -C\n"}
    (message,) = found(dev, GCP_TEMPLATE, unread)
    assert "cannot read the MIG profiles" in message


def test_a_template_that_names_no_machine_is_judged_by_the_gpu_it_declares(
    dev: PolicyHarness,
) -> None:
    layout = SlotLayout(
        "serve",
        14,
        8,
        gpu_name="A100",
        mode="mig",
        per_gpu=2,
        mig_profiles=("4g.20gb", "3g.20gb"),
    )
    # gpufleet's own boot script on a fleet's template (the group's overrides name the type).
    assert found(dev, LT, {**SECURE_LT, "userData": user_data(boot_script(layout))}) == []
    undeclared = {**SECURE_LT, "userData": user_data(mig("9,9"))}
    (message,) = found(dev, LT, undeclared)
    assert "nothing says on which GPU" in message
    # Declared for one GPU, run on another.
    (message,) = found(
        dev,
        LT,
        {**SECURE_LT, "instanceType": "p5.48xlarge", "userData": user_data(boot_script(layout))},
    )
    assert "is for A100, but it runs H100" in message


def test_a_type_nobody_listed_is_read_too(dev: PolicyHarness) -> None:
    """Boot text under any property of any type: a MIG plan there is judged like a template's
    (this type names no machine gpufleet can read, so the plan's GPU is unknown: blocked)."""
    props = {"machine": "p4d.24xlarge", "bootstrap": {"commands": [mig("9,9")]}}
    (message,) = found(dev, "acme:compute:GpuMachine", props)
    assert "nothing says on which GPU" in message
    declared = {"bootstrap": {"commands": ["# gpufleet-mig-gpu: A100\n" + mig("5,5")]}}
    (message,) = found(dev, "acme:compute:GpuMachine", declared)
    assert "do not fit one A100" in message


def test_unknown_boot_text_is_advisory_and_other_unknowns_are_nothing(
    dev: PolicyHarness,
) -> None:
    (v,) = [x for x in dev.analyze(LT, {**P4D, "userData": UNKNOWN}) if x.policy == POLICY]
    assert v.level == "advisory"
    assert found(dev, LT, {**P4D, "imageId": UNKNOWN}) == []
