"""A stand-in for ``nvidia-smi``, ``nvidia-cuda-mps-control``, ``pgrep`` and ``systemctl``, for
running the replica-slot boot scripts without a GPU (``tests/stacks/test_replica_slots.py``).

Each tool is this file, run under the tool's name from a directory put first on ``PATH``; they
share a JSON state (``FAKE_GPU_STATE``): per GPU its MIG mode (``Enabled``, ``Disabled``, or
``Pending`` until a reboot), compute mode and GPU instances; whether the MPS daemon runs; how
many times MIG devices were created (their UUIDs carry it, so a slot pointing at a device
from before a reboot shows). Every call that changes something is appended to
``FAKE_GPU_LOG``. GPU instances are created only where NVIDIA's placement rules allow
(``planner.gpu_sharing.placed``), as the driver refuses the rest.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from gpufleet.planner.mig_profiles import MIG_PROFILES, placed


def _state() -> dict[str, Any]:
    return json.loads(Path(os.environ["FAKE_GPU_STATE"]).read_text())


def _save(state: dict[str, Any]) -> None:
    Path(os.environ["FAKE_GPU_STATE"]).write_text(json.dumps(state))


def _log(words: list[str]) -> None:
    with Path(os.environ["FAKE_GPU_LOG"]).open("a") as log:
        log.write(" ".join(words) + "\n")


def _gpu(args: list[str]) -> int:
    return int(args[args.index("-i") + 1])


def nvidia_smi(args: list[str]) -> int:
    state = _state()
    gpus = state["gpus"]
    profiles = {p.profile_id: p.name for p in MIG_PROFILES[state["model"]]}
    if args == ["-L"]:
        for g, gpu in enumerate(gpus):
            print(f"GPU {g}: NVIDIA {state['model']} (UUID: GPU-{g:08d})")
            for d, profile_id in enumerate(gpu["instances"]):
                uuid = f"MIG-{state['generation']}-{g}-{d}"
                print(f"  MIG {profiles[profile_id]}     Device  {d}: (UUID: {uuid})")
        return 0
    if args and args[0] == "mig":
        gpu = gpus[_gpu(args)]
        if "-lgi" in args:
            if not gpu["instances"]:
                print("No GPU instances found: Not Found", file=sys.stderr)
                return 6
            for i, profile_id in enumerate(gpu["instances"]):
                print(f"|   {_gpu(args)}  MIG {profiles[profile_id]}   {profile_id}   {i}   0:1 |")
            return 0
        _log(["nvidia-smi", *args])
        if "-dci" in args:
            return 0
        if "-dgi" in args:
            gpu["instances"] = []
        elif "-cgi" in args:
            if gpu["mig"] != "Enabled":
                return 1
            ids = [int(i) for i in args[args.index("-cgi") + 1].split(",")]
            if placed(state["model"], [profiles[i] for i in gpu["instances"] + ids]) is None:
                print("Unable to create a GPU instance: Insufficient Resources", file=sys.stderr)
                return 1
            gpu["instances"] += ids
            state["generation"] += 1
        _save(state)
        return 0
    gpu = gpus[_gpu(args)]
    if "--query-gpu=mig.mode.current" in args:
        print(gpu["mig"])
        return 0
    if "--query-gpu=compute_mode" in args:
        print(gpu["compute"])
        return 0
    _log(["nvidia-smi", *args])
    if "-mig" in args:
        gpu["mig"] = "Enabled" if state["mig_without_reset"] else "Pending"
    elif "-c" in args:
        gpu["compute"] = {"EXCLUSIVE_PROCESS": "Exclusive_Process", "DEFAULT": "Default"}[
            args[args.index("-c") + 1]
        ]
    _save(state)
    return 0


def main() -> int:
    tool, args = Path(sys.argv[0]).name, sys.argv[1:]
    if tool == "nvidia-smi":
        return nvidia_smi(args)
    state = _state()
    if tool == "pgrep":
        return 0 if state["mps"] else 1
    _log([tool, *args])
    if tool == "nvidia-cuda-mps-control":
        state["mps"] = True
    elif tool == "systemctl" and args == ["reboot"]:
        state["reboots"] += 1
    _save(state)
    return 0


def install(bin_dir: Path, state_file: Path, log_file: Path, **state: Any) -> dict[str, str]:
    """The tools in ``bin_dir``, their state in ``state_file``; the environment to run with."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in ("nvidia-smi", "nvidia-cuda-mps-control", "pgrep", "systemctl"):
        path = bin_dir / tool
        body = "import sys\nfrom tests.stacks.fake_gpu_tools import main\nsys.exit(main())\n"
        path.write_text(f"#!{sys.executable}\n{body}")
        path.chmod(0o755)
    gpus = state.pop("gpus")
    state_file.write_text(
        json.dumps(
            {
                "gpus": [{"mig": "Disabled", "compute": "Default", "instances": []}] * gpus,
                "mps": False,
                "generation": 0,
                "reboots": 0,
                "mig_without_reset": True,
                **state,
            }
        )
    )
    log_file.write_text("")
    root = str(Path(__file__).resolve().parents[2])
    return {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "FAKE_GPU_STATE": str(state_file),
        "FAKE_GPU_LOG": str(log_file),
        "PYTHONPATH": root,
    }


def reboot(state_file: Path) -> None:
    """What a reboot does to the GPUs: pending MIG modes take effect, GPU instances and the MPS
    daemon are gone."""
    state = json.loads(state_file.read_text())
    for gpu in state["gpus"]:
        gpu["mig"] = "Enabled" if gpu["mig"] == "Pending" else gpu["mig"]
        gpu["instances"] = []
    state["mps"] = False
    state_file.write_text(json.dumps(state))
