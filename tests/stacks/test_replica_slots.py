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
    MPS_LOG_DIRECTORY,
    MPS_PIPE_DIRECTORY,
    SHARING_COMMAND,
    SLOTS_DIRECTORY,
    STATE_DIRECTORY,
    UNIT_DIRECTORY,
    SlotLayout,
    boot_script,
    sharing_script,
    slot_devices,
    slots_tag,
)
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import parse_spec
from gpufleet.stacks.component_registry import slot_layout
from gpufleet.stacks.stack_config import WorkloadPlacement
from gpufleet.tag_keys import REPLICA_SLOTS, gcp_label_key
from tests.capacity.test_plan_priced_alike import assert_costs_its_plan
from tests.checks.test_gate_agrees_with_builder import assert_gate_agrees, generated, spec_text
from tests.stack_captures import capture_generated
from tests.stacks import fake_gpu_tools


def whole(per_instance: int, gpus_each: int, gpus: int = 8) -> SlotLayout:
    return SlotLayout("serve", per_instance, gpus, gpus_each)


def test_slots_split_the_gpus_without_overlap() -> None:
    assert slot_devices(4, 2) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert slots_tag(whole(4, 2)) == "4x2"
    for bad in ((0, 1), (5, 2), (2, 0)):
        with pytest.raises(ValueError):
            whole(*bad)
    with pytest.raises(ValueError, match="MIG"):
        SlotLayout("s", 4, 1, gpu_name="A100", mode="mig", per_gpu=4, mig_profiles=("1g.5gb",))


def _paths(root: Path) -> dict[str, str]:
    """Where a boot script under test writes: its absolute paths moved under ``root``."""
    return {
        path: str(root / path.lstrip("/"))
        for path in (
            SLOTS_DIRECTORY,
            STATE_DIRECTORY,
            MPS_PIPE_DIRECTORY,
            MPS_LOG_DIRECTORY,
            SHARING_COMMAND,
            UNIT_DIRECTORY,
        )
    }


def _run(script: str, root: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """Run ``script`` with its paths under ``root``; each slot file's text by name."""
    for path, moved in _paths(root).items():
        script = script.replace(path, moved)
    subprocess.run(["bash", "-c", script], check=True, env=env or {"PATH": os.environ["PATH"]})
    here = Path(_paths(root)[SLOTS_DIRECTORY])
    return {p.name: p.read_text() for p in sorted(here.glob("*"))}


def test_boot_script_is_idempotent_and_drops_slots_a_previous_layout_had(tmp_path: Path) -> None:
    first = _run(boot_script(whole(4, 2)), tmp_path)
    assert first == {
        f"{i}.env": (
            f"GPUFLEET_REPLICA_SLOT={i}\nCUDA_VISIBLE_DEVICES={2 * i},{2 * i + 1}\n"
            f"NVIDIA_VISIBLE_DEVICES={2 * i},{2 * i + 1}\n"
        )
        for i in range(4)
    }
    # Every boot runs it again: the same files, nothing more.
    assert _run(boot_script(whole(4, 2)), tmp_path) == first
    # A new layout (two slots of four GPUs) leaves no slot of the old one behind.
    again = _run(boot_script(whole(2, 4)), tmp_path)
    assert sorted(again) == ["0.env", "1.env"]
    assert "CUDA_VISIBLE_DEVICES=4,5,6,7\n" in again["1.env"]


MIG_A100 = SlotLayout(
    "serve",
    7,
    2,
    gpu_name="A100",
    mode="mig",
    per_gpu=4,
    mig_profiles=("2g.10gb", "2g.10gb", "2g.10gb", "1g.10gb"),
)


def _changes(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line]


def test_mig_setup_is_idempotent_across_runs_and_reboots(tmp_path: Path) -> None:
    state, log = tmp_path / "state.json", tmp_path / "log"
    env = fake_gpu_tools.install(tmp_path / "bin", state, log, gpus=2, model="A100")
    script = sharing_script(MIG_A100)
    first = _run(script, tmp_path / "root", env)
    made = _changes(log)
    assert made.count("nvidia-smi mig -i 0 -cgi 14,14,14,15 -C") == 1
    assert made.count("nvidia-smi mig -i 1 -cgi 14,14,14,15 -C") == 1
    assert sum("-mig 1" in line for line in made) == 2
    # Seven slots on eight MIG devices, round-robin: GPU 0's first, GPU 1's first, ...
    devices = [
        dict(line.split("=", 1) for line in first[f"{s}.env"].splitlines()) for s in range(7)
    ]
    assert [d["CUDA_VISIBLE_DEVICES"] for d in devices] == [
        f"MIG-2-{s % 2}-{s // 2}" for s in range(7)
    ]
    assert all(d["NVIDIA_VISIBLE_DEVICES"] == d["CUDA_VISIBLE_DEVICES"] for d in devices)
    # Run again (the cloud's boot hook and the unit both may): nothing changes.
    log.write_text("")
    assert _run(script, tmp_path / "root", env) == first
    assert _changes(log) == []
    # After a reboot the instances are gone (MIG mode stays): made again, the slots follow.
    fake_gpu_tools.reboot(state)
    after = _run(script, tmp_path / "root", env)
    assert [line for line in _changes(log) if "-cgi" in line] == [
        "nvidia-smi mig -i 0 -cgi 14,14,14,15 -C",
        "nvidia-smi mig -i 1 -cgi 14,14,14,15 -C",
    ]
    assert "CUDA_VISIBLE_DEVICES=MIG-4-0-0\n" in after["0.env"]


def test_mig_mode_that_needs_a_reset_reboots_once_then_fails_closed(tmp_path: Path) -> None:
    state, log = tmp_path / "state.json", tmp_path / "log"
    env = fake_gpu_tools.install(
        tmp_path / "bin", state, log, gpus=2, model="A100", mig_without_reset=False
    )
    # Two GPUs: both asked for MIG mode before the one reboot.
    layout = SlotLayout(
        "s", 4, 2, gpu_name="A100", mode="mig", per_gpu=2, mig_profiles=("3g.20gb", "3g.20gb")
    )
    script = sharing_script(layout)
    for path, moved in _paths(tmp_path / "root").items():
        script = script.replace(path, moved)
    subprocess.run(["bash", "-c", script], check=True, env=env)
    assert _changes(log).count("systemctl reboot") == 1
    assert sum("-mig 1" in line for line in _changes(log)) == 2
    fake_gpu_tools.reboot(state)
    subprocess.run(["bash", "-c", script], check=True, env=env)
    assert not (tmp_path / "root" / STATE_DIRECTORY.lstrip("/") / "mig-reboot").exists()
    # A GPU that will not take MIG even after the reboot: the unit fails, no slot is written.
    fresh = tmp_path / "again"
    env = fake_gpu_tools.install(
        fresh / "bin",
        fresh / "state.json",
        fresh / "log",
        gpus=2,
        model="A100",
        mig_without_reset=False,
    )
    script = sharing_script(layout)
    for path, moved in _paths(fresh / "root").items():
        script = script.replace(path, moved)
    subprocess.run(["bash", "-c", script], check=True, env=env)  # asks for the reboot
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "still not in MIG mode" in done.stderr, done.stderr
    assert not list((fresh / "root" / SLOTS_DIRECTORY.lstrip("/")).glob("*.env"))


@pytest.mark.parametrize("mode", ["mps", "time_slicing"])
def test_mps_and_time_slicing_setup_is_idempotent(tmp_path: Path, mode: str) -> None:
    state, log = tmp_path / "state.json", tmp_path / "log"
    env = fake_gpu_tools.install(tmp_path / "bin", state, log, gpus=2, model="A100")
    layout = SlotLayout(
        "serve", 5, 2, gpu_name="L4", mode=mode, per_gpu=3, memory_gib=6.0, compute_percent=33
    )
    first = _run(sharing_script(layout), tmp_path / "root", env)
    made = _changes(log)
    if mode == "mps":
        assert made == [
            "nvidia-smi -i 0 -c EXCLUSIVE_PROCESS",
            "nvidia-smi -i 1 -c EXCLUSIVE_PROCESS",
            "nvidia-cuda-mps-control -d",
        ]
        assert "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=33\n" in first["0.env"]
        assert "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=6144M\n" in first["4.env"]
    else:
        assert made == []  # the GPUs are in the default mode already
    assert [first[f"{s}.env"].splitlines()[1] for s in range(5)] == [
        f"CUDA_VISIBLE_DEVICES={s % 2}" for s in range(5)
    ]
    log.write_text("")
    assert _run(sharing_script(layout), tmp_path / "root", env) == first
    assert _changes(log) == []


def test_the_boot_script_installs_the_sharing_unit(tmp_path: Path) -> None:
    state, log = tmp_path / "state.json", tmp_path / "log"
    env = fake_gpu_tools.install(tmp_path / "bin", state, log, gpus=2, model="A100")
    _run(boot_script(MIG_A100), tmp_path / "root", env)
    paths = _paths(tmp_path / "root")
    installed = Path(paths[SHARING_COMMAND]).read_text()
    expected = sharing_script(MIG_A100)
    for path, moved in paths.items():
        expected = expected.replace(path, moved)
    assert installed == expected
    unit = Path(paths[UNIT_DIRECTORY], "gpufleet-gpu-sharing.service").read_text()
    assert "Type=oneshot" in unit and f"ExecStart={paths[SHARING_COMMAND]}" in unit
    assert "systemctl enable gpufleet-gpu-sharing.service" in _changes(log)


def test_a_stack_config_refuses_a_mig_layout_the_gpu_cannot_take() -> None:
    base = {
        "name": "w",
        "kind": "inference",
        "cloud": "aws",
        "region": "us-east-1",
        "zone": "use1-az1",
        "instanceType": "p4d.24xlarge",
        "gpu": "A100",
        "gpusPerInstance": 8,
        "provider": "aws-us-east-1",
        "monthlyUsd": 1.0,
        "parts": [{"component": "aws:SpotFleet", "instances": 1, "pricing": "on_demand"}],
    }
    good = {"mode": "mig", "perGpu": 2, "migProfiles": ["3g.20gb", "4g.20gb"]}
    placement = WorkloadPlacement.model_validate(
        {**base, "replicaSlots": {"perInstance": 16, "shared": good}}
    )
    layout = slot_layout(placement)
    assert layout is not None and layout.mig_ids() == [9, 5]
    for bad in (
        {"mode": "mig", "perGpu": 2, "migProfiles": ["4g.20gb", "4g.20gb"]},  # 8 compute slices
        {"mode": "mig", "perGpu": 2, "migProfiles": ["1g.10gb", "7g.80gb"]},  # not an A100's
        {"mode": "mps", "perGpu": 2, "migProfiles": ["3g.20gb", "4g.20gb"]},
    ):
        with pytest.raises(ValueError, match="replicaSlots"):
            WorkloadPlacement.model_validate(
                {**base, "replicaSlots": {"perInstance": 16, "shared": bad}}
            )
    with pytest.raises(ValueError, match="do not fit"):
        WorkloadPlacement.model_validate(
            {**base, "replicaSlots": {"perInstance": 17, "shared": good}}
        )


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
        assert p.replicas_per_instance * (p.gpus_per_replica or 0) <= p.offer.gpu_count
    assert_gate_agrees(text)
    with generated(text, "prod", drawn=False) as (project, _):
        stack = yaml.safe_load((project / "stacks" / "Pulumi.prod.yaml").read_text())
        written = {w["name"]: w for w in stack["config"]["gpufleet:workloads"]}
        capture, _ = capture_generated(project, "prod")
        assert_costs_its_plan(spec, project, "prod")
    for name, p in placements.items():
        slots = written[name]["replicaSlots"]
        assert slots == {"perInstance": p.replicas_per_instance, "gpusEach": p.gpus_per_replica}
        layout = SlotLayout(name, p.replicas_per_instance, p.offer.gpu_count, p.gpus_per_replica)
        tag = slots_tag(layout)
        script = boot_script(layout)
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


# Replicas sharing GPUs, one way per case, on each cloud's VM groups.
SHARED = {
    ("aws", "mig"): "{name: A100}, replicas: {min: 6, max: 20}, interruptible: true,"
    " hours_per_month: 100, replica_gpu: {memory_gib: 8}",
    ("gcp", "mig"): "{name: A100}, replicas: {min: 9, max: 9}, replica_gpu: {memory_gib: 8}",
    ("azure", "mig"): "{name: A100}, replicas: {min: 12, max: 12},"
    " replica_gpu: {mig_profile: 3g.20gb}",
    ("gcp", "mps"): "{name: L4}, replicas: {min: 5, max: 5},"
    " replica_gpu: {memory_gib: 6, compute: 0.3}",
    ("azure", "time_slicing"): "{name: T4}, replicas: {min: 4, max: 4},"
    " replica_gpu: {memory_gib: 4}",
}


@pytest.mark.parametrize(("cloud", "mode"), sorted(SHARED))
def test_shared_stacks_boot_their_gpus_pass_their_check_and_cost_their_plan(
    cloud: str, mode: str
) -> None:
    text = spec_text(
        f"  - {{name: serve, kind: inference, clouds: [{cloud}], always_on: true,"
        f" sharing: {mode}, gpu: {SHARED[cloud, mode]}}}\n"
    )
    spec = parse_spec(text, "spec.yaml", load_catalog())
    (p,) = Planner(spec, load_catalog()).plan_environment("prod").placements
    assert p.shared is not None and p.shared.mode == mode, (p.instance_type, p.shared)
    assert p.replicas_per_instance > p.offer.gpu_count
    assert_gate_agrees(text)
    with generated(text, "prod", drawn=False) as (project, _):
        stack = yaml.safe_load((project / "stacks" / "Pulumi.prod.yaml").read_text())
        (written,) = stack["config"]["gpufleet:workloads"]
        capture, _ = capture_generated(project, "prod")
        assert_costs_its_plan(spec, project, "prod")
    layout = slot_layout(WorkloadPlacement.model_validate(written))
    assert layout is not None and layout.mode == mode
    assert layout.per_gpu == p.shared.replicas and layout.per_instance == p.replicas_per_instance
    script = boot_script(layout)
    booted = [r for r in capture.registrations if r.custom and script in _boot_texts(r.inputs)]
    assert booted, "no VM template boots the GPU sharing"
    key = gcp_label_key(REPLICA_SLOTS) if cloud == "gcp" else REPLICA_SLOTS
    for r in booted:
        tags = r.inputs.get("labels" if cloud == "gcp" else "tags")
        assert isinstance(tags, dict) and tags.get(key) == slots_tag(layout), (r.type, tags)
