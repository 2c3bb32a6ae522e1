"""Where each replica (serving) or worker (batch) packed onto an instance finds its GPUs.

When the plan packs several replicas onto one multi-GPU instance (``planner/packing.py``), each
needs its own GPUs, or all of them start on GPU 0. The VM groups on the three clouds boot with
``boot_script``: it writes one environment file per replica slot,
``/etc/gpufleet/replicas/<slot>.env``, holding ``CUDA_VISIBLE_DEVICES`` (and
``NVIDIA_VISIBLE_DEVICES``, which the NVIDIA container toolkit reads) with that slot's GPUs, so
a systemd unit (``EnvironmentFile=/etc/gpufleet/replicas/%i.env``) or a container runtime
starts each replica on its own devices. The instance's tags say the same
(``tag_keys.REPLICA_SLOTS``: ``8x1`` is eight slots of one GPU each).

The script runs on every boot (GCP startup scripts do; cloud-init runs user data once per
instance) and is idempotent: it rewrites each file whole, through a rename, and removes slots
a previous layout had beyond this one. It is plain text, tested as text: no GPU is needed.
"""

from __future__ import annotations

SLOTS_DIRECTORY = "/etc/gpufleet/replicas"


def slot_devices(per_instance: int, gpus_each: int) -> list[list[int]]:
    """Each slot's GPU indices: slot ``i`` has GPUs ``i*gpus_each`` up to the next slot's."""
    return [list(range(i * gpus_each, (i + 1) * gpus_each)) for i in range(per_instance)]


def slots_tag(per_instance: int, gpus_each: int) -> str:
    """The ``replica-slots`` tag value: slots x GPUs each (a valid GCP label value)."""
    return f"{per_instance}x{gpus_each}"


def boot_script(workload: str, per_instance: int, gpus_each: int) -> str:
    """A boot script writing each replica slot's environment file (see the module's doc)."""
    if per_instance < 1 or gpus_each < 1:
        raise ValueError("a replica layout has at least one slot of at least one GPU")
    lines = [
        "#!/bin/bash",
        f"# gpufleet: up to {per_instance} replicas of {workload} share this instance, "
        f"{gpus_each} GPU(s) each.",
        f"# Slot N's GPUs are in {SLOTS_DIRECTORY}/N.env (EnvironmentFile= of a systemd unit).",
        "set -euo pipefail",
        "umask 022",
        f"dir={SLOTS_DIRECTORY}",
        'mkdir -p "$dir"',
        "slot() {",
        '  printf "GPUFLEET_REPLICA_SLOT=%s\\nCUDA_VISIBLE_DEVICES=%s\\n'
        'NVIDIA_VISIBLE_DEVICES=%s\\n" "$1" "$2" "$2" > "$dir/.$1.env.tmp"',
        '  mv -f "$dir/.$1.env.tmp" "$dir/$1.env"',
        "}",
    ]
    for index, devices in enumerate(slot_devices(per_instance, gpus_each)):
        lines.append(f"slot {index} {','.join(map(str, devices))}")
    lines += [
        "# Slots a previous layout had beyond this one.",
        'for f in "$dir"/*.env; do',
        '  n=$(basename "$f" .env)',
        '  case "$n" in *[!0-9]*|"") continue ;; esac',
        f'  if [ "$n" -ge {per_instance} ]; then rm -f "$f"; fi',
        "done",
        "",
    ]
    return "\n".join(lines)
