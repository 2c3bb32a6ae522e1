"""Packed replicas in the stack: the boot script that gives each replica slot its GPUs, and
generated stacks of packed serving and batch on the three clouds, which boot it on every
instance, tag the layout, pass their own check and cost what their plan says."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from gpufleet.components.replica_slots import (
    SLOTS_DIRECTORY,
    boot_script,
    slot_devices,
    slots_tag,
)
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import parse_spec
from gpufleet.tag_keys import REPLICA_SLOTS, gcp_label_key
from tests.capacity.test_plan_priced_alike import assert_costs_its_plan
from tests.checks.test_gate_agrees_with_builder import assert_gate_agrees, generated, spec_text
from tests.stack_captures import capture_generated


def test_slots_split_the_gpus_without_overlap() -> None:
    devices = slot_devices(4, 2)
    assert devices == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert slots_tag(4, 2) == "4x2"
    with pytest.raises(ValueError):
        boot_script("w", 0, 1)


def _run(script: str, root: Path) -> dict[str, str]:
    """Run ``script`` with its directory under ``root``; each file's text by name."""
    here = root / SLOTS_DIRECTORY.lstrip("/")
    text = script.replace(SLOTS_DIRECTORY, str(here))
    subprocess.run(["bash", "-c", text], check=True, env={"PATH": os.environ["PATH"]})
    return {p.name: p.read_text() for p in sorted(here.iterdir())}


def test_boot_script_is_idempotent_and_drops_slots_a_previous_layout_had(tmp_path: Path) -> None:
    first = _run(boot_script("serve", 4, 2), tmp_path)
    assert first == {
        f"{i}.env": (
            f"GPUFLEET_REPLICA_SLOT={i}\nCUDA_VISIBLE_DEVICES={2 * i},{2 * i + 1}\n"
            f"NVIDIA_VISIBLE_DEVICES={2 * i},{2 * i + 1}\n"
        )
        for i in range(4)
    }
    # Every boot runs it again: the same files, nothing more.
    assert _run(boot_script("serve", 4, 2), tmp_path) == first
    # A new layout (two slots of four GPUs) leaves no slot of the old one behind.
    again = _run(boot_script("serve", 2, 4), tmp_path)
    assert sorted(again) == ["0.env", "1.env"]
    assert "CUDA_VISIBLE_DEVICES=4,5,6,7\n" in again["1.env"]


# Each cloud sells these GPUs only in 8-GPU machines (in these regions), so replicas of a
# few GPUs must share them; the batch job's 16 one-GPU workers fill two machines, a cluster.
PACKED = {
    "aws": """\
  - {name: serve, kind: inference, gpu: {name: A100, count: 2}, always_on: true,
     interruptible: true, replicas: {min: 3, max: 10}, hours_per_month: 100, clouds: [aws]}
  - {name: sweep, kind: batch, gpu: {name: A100}, nodes: 16, interruptible: true,
     hours_per_month: 50, clouds: [aws]}
""",
    "gcp": """\
  - {name: serve, kind: inference, gpu: {name: H200}, always_on: true, interruptible: true,
     replicas: {min: 4, max: 12}, hours_per_month: 100, clouds: [gcp]}
  - {name: sweep, kind: batch, gpu: {name: H200, count: 2}, nodes: 3, interruptible: true,
     hours_per_month: 50, clouds: [gcp]}
""",
    "azure": """\
  - {name: serve, kind: inference, gpu: {name: A100, count: 4}, always_on: true,
     replicas: {min: 2, max: 2}, clouds: [azure], max_replicas_per_instance: 2}
  - {name: sweep, kind: batch, gpu: {name: A100}, nodes: 3, interruptible: true,
     hours_per_month: 50, clouds: [azure]}
""",
}


def _boot_texts(inputs: dict[str, object]) -> list[str]:
    """The boot text a VM resource carries, decoded: AWS launch templates' and Azure scale
    sets' base64, GCP instance templates' startup script."""
    found: list[str] = []
    if isinstance(inputs.get("userData"), str):
        found.append(base64.b64decode(str(inputs["userData"])).decode())
    if isinstance(inputs.get("metadataStartupScript"), str):
        found.append(str(inputs["metadataStartupScript"]))
    profile = inputs.get("virtualMachineProfile")
    if isinstance(profile, dict):
        custom = profile.get("osProfile", {}).get("customData")
        if isinstance(custom, str):
            found.append(base64.b64decode(custom).decode())
    return found


@pytest.mark.parametrize("cloud", sorted(PACKED))
def test_packed_stacks_boot_their_slots_pass_their_check_and_cost_their_plan(cloud: str) -> None:
    text = spec_text(PACKED[cloud])
    spec = parse_spec(text, "spec.yaml", load_catalog())
    plan = Planner(spec, load_catalog()).plan_environment("prod")
    placements = {p.name: p for p in plan.placements}
    assert sorted(placements) == ["serve", "sweep"], plan.unplaced
    for p in placements.values():
        assert p.replicas_per_instance > 1, (p.name, p.instance_type)
        assert p.replicas_per_instance * p.gpus_per_replica <= p.offer.gpu_count
    assert_gate_agrees(text)
    with generated(text, "prod", drawn=False) as (project, _):
        stack = yaml.safe_load((project / "stacks" / "Pulumi.prod.yaml").read_text())
        written = {w["name"]: w for w in stack["config"]["gpufleet:workloads"]}
        capture, _ = capture_generated(project, "prod")
        assert_costs_its_plan(spec, project, "prod")
    for name, p in placements.items():
        slots = written[name]["replicaSlots"]
        assert slots == {"perInstance": p.replicas_per_instance, "gpusEach": p.gpus_per_replica}
        tag = slots_tag(p.replicas_per_instance, p.gpus_per_replica)
        script = boot_script(name, p.replicas_per_instance, p.gpus_per_replica)
        booted = [
            r
            for r in capture.registrations
            if r.custom and script in _boot_texts(r.inputs) and f"{name}-" in r.name
        ]
        assert booted, f"{name}: no VM template boots its replica slots"
        key = gcp_label_key(REPLICA_SLOTS) if cloud == "gcp" else REPLICA_SLOTS
        for r in booted:
            tags = r.inputs.get("labels" if cloud == "gcp" else "tags")
            assert isinstance(tags, dict) and tags.get(key) == tag, (r.type, tags)
