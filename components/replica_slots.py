"""Where each replica (serving) or worker (batch) packed onto an instance finds its GPUs.

When the plan packs several replicas onto one instance (``planner/packing.py``), each needs its
own devices, or all of them start on GPU 0. The VM groups on the three clouds boot with
``boot_script``: it leaves one environment file per replica slot,
``/etc/gpufleet/replicas/<slot>.env``, holding ``CUDA_VISIBLE_DEVICES`` (and
``NVIDIA_VISIBLE_DEVICES``, which the NVIDIA container toolkit reads) with that slot's devices,
so a systemd unit (``EnvironmentFile=/etc/gpufleet/replicas/%i.env``) or a container runtime
starts each replica on them. The instance's tags say the same (``tag_keys.REPLICA_SLOTS``:
``8x1`` is eight slots of one GPU each, ``28xmig`` 28 slots of MIG instances).

Replicas that share GPUs (``planner/gpu_sharing.py``) need the GPUs set up first, on every
boot: MIG instances do not survive a reboot, nor does the MPS daemon. The boot script installs
``gpufleet-gpu-sharing`` (``sharing_script``) and a systemd unit that runs it at each boot,
before the workload's units (which say ``Requires=`` and ``After=gpufleet-gpu-sharing.service``):

- MIG: each GPU in MIG mode (enabling it may need one reboot, taken once), then cut into the
  plan's instances (one profile for all where that fits as many: the driver places them),
  unless it already is; slot ``s`` gets the ``s // gpus``-th
  MIG device of GPU ``s % gpus`` (by UUID), so a partly used instance spreads its replicas.
- MPS: each GPU in exclusive-process mode, the MPS control daemon running; each slot's file
  adds its share of the SMs and its pinned memory limit.
- time-slicing: each GPU in the default compute mode; slots take turns on their GPU.

Every step checks before it changes anything, so running it again (the cloud's boot hook and
the unit both may) changes nothing, and a layout the GPUs cannot take fails the unit rather
than starting replicas on the wrong devices. Plain text, tested as text against a stand-in
``nvidia-smi``: no GPU is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.planner.mig_profiles import mig_profile

SLOTS_DIRECTORY = "/etc/gpufleet/replicas"
STATE_DIRECTORY = "/var/lib/gpufleet"
SHARING_COMMAND = "/usr/local/sbin/gpufleet-gpu-sharing"
SHARING_UNIT = "gpufleet-gpu-sharing.service"
UNIT_DIRECTORY = "/etc/systemd/system"
MPS_PIPE_DIRECTORY = "/run/nvidia-mps"
MPS_LOG_DIRECTORY = "/var/log/nvidia-mps"
# Names the GPU a boot script's MIG plan is for, which the gpu-sharing-config policy checks it
# against where the resource names no machine (a group's launch template).
MIG_GPU_MARKER = "gpufleet-mig-gpu:"

# nvidia-smi's names for the compute modes each kind of sharing wants.
_COMPUTE_MODES = {
    "mps": ("EXCLUSIVE_PROCESS", "Exclusive_Process"),
    "time_slicing": ("DEFAULT", "Default"),
}
_WORDS = {"mig": "MIG", "mps": "MPS", "time_slicing": "time-slicing"}


@dataclass(frozen=True)
class SlotLayout:
    """The replica slots of one instance: ``per_instance`` of them, each on ``gpus_each``
    whole GPUs, or sharing the instance's ``gpus`` GPUs by ``mode``."""

    workload: str
    per_instance: int
    gpus: int
    gpus_each: int | None = None
    gpu_name: str = ""
    mode: str | None = None  # mig | mps | time_slicing
    per_gpu: int = 1
    mig_profiles: tuple[str, ...] = ()  # one GPU's instances, in the order created
    memory_gib: float | None = None
    compute_percent: int | None = None

    def __post_init__(self) -> None:
        if self.per_instance < 1 or self.gpus < 1:
            raise ValueError("a replica layout has at least one slot and one GPU")
        if (self.gpus_each is None) == (self.mode is None):
            raise ValueError("a replica layout gives whole GPUs (gpus_each) or a sharing mode")
        if self.gpus_each is not None and (
            self.gpus_each < 1 or self.per_instance * self.gpus_each > self.gpus
        ):
            raise ValueError(f"{self.per_instance} slots of {self.gpus_each} GPU(s) do not fit")
        if self.mode is not None and self.per_instance > self.gpus * self.per_gpu:
            raise ValueError(f"{self.per_instance} slots do not fit {self.per_gpu} a GPU")
        if self.mode == "mig" and len(self.mig_profiles) != self.per_gpu:
            raise ValueError("a MIG layout names one profile a slot of a GPU")

    def mig_ids(self) -> list[int]:
        """The GPU instance profile ids of one GPU's layout (``nvidia-smi mig -cgi``)."""
        ids = []
        for name in self.mig_profiles:
            profile = mig_profile(self.gpu_name, name)
            if profile is None:
                raise ValueError(f"{self.gpu_name} has no MIG profile {name!r}")
            ids.append(profile.profile_id)
        return ids


def slot_devices(per_instance: int, gpus_each: int) -> list[list[int]]:
    """Each slot's GPU indices: slot ``i`` has GPUs ``i*gpus_each`` up to the next slot's."""
    return [list(range(i * gpus_each, (i + 1) * gpus_each)) for i in range(per_instance)]


def slots_tag(layout: SlotLayout) -> str:
    """The ``replica-slots`` tag value: slots x GPUs each, or slots x how they share (a valid
    GCP label value)."""
    return f"{layout.per_instance}x{layout.gpus_each or layout.mode}"


_PRUNE = [
    "# Slots a previous layout had beyond this one.",
    'for f in "$dir"/*.env; do',
    '  n=$(basename "$f" .env)',
    '  case "$n" in *[!0-9]*|"") continue ;; esac',
    '  if [ "$n" -ge "$slots" ]; then rm -f "$f"; fi',
    "done",
]
_SLOT_FUNCTION = [
    "# slot N DEVICES [KEY=VALUE...]: slot N's environment file, replaced whole.",
    "slot() {",
    "  local n=$1 devices=$2; shift 2",
    '  { printf "GPUFLEET_REPLICA_SLOT=%s\\nCUDA_VISIBLE_DEVICES=%s\\n" "$n" "$devices"',
    '    printf "NVIDIA_VISIBLE_DEVICES=%s\\n" "$devices"',
    '    for pair in "$@"; do printf "%s\\n" "$pair"; done; } > "$dir/.$n.env.tmp"',
    '  mv -f "$dir/.$n.env.tmp" "$dir/$n.env"',
    "}",
]


def _header(layout: SlotLayout) -> list[str]:
    how = (
        f"{layout.gpus_each} GPU(s) each"
        if layout.gpus_each is not None
        else f"{layout.per_gpu} a GPU by {_WORDS[layout.mode or '']}"
    )
    return [
        "#!/bin/bash",
        f"# gpufleet: up to {layout.per_instance} replicas (or workers) of {layout.workload} "
        f"share this instance, {how}.",
        f"# Slot N's devices are in {SLOTS_DIRECTORY}/N.env (EnvironmentFile= of a systemd unit).",
        "set -euo pipefail",
        "umask 022",
        f"dir={SLOTS_DIRECTORY}",
        f"slots={layout.per_instance}",
        f"gpus={layout.gpus}",
        'mkdir -p "$dir"',
    ]


def sharing_script(layout: SlotLayout) -> str:
    """The script that sets the instance's GPUs up for shared slots and writes each slot's
    file (whole-GPU slots need no setup: ``boot_script`` writes theirs directly)."""
    lines = _header(layout) + _SLOT_FUNCTION
    if layout.mode == "mig":
        ids = layout.mig_ids()
        want = ",".join(map(str, ids))
        lines += [
            f"state={STATE_DIRECTORY}",
            f"# {MIG_GPU_MARKER} {layout.gpu_name}",
            f"# One GPU's instances, in the order created: {' '.join(layout.mig_profiles)}.",
            f'want="{want}"',
            'mkdir -p "$state"',
            "sorted() { tr , '\\n' | sort -n | paste -sd, -; }",
            'want_sorted=$(echo "$want" | sorted)',
            'mig_mode() { nvidia-smi -i "$1" --query-gpu=mig.mode.current --format=csv,noheader; }',
            "# Every GPU asked for MIG mode first, so one reboot serves them all.",
            "pending=0",
            "for ((g = 0; g < gpus; g++)); do",
            '  if [ "$(mig_mode "$g")" != Enabled ]; then',
            '    nvidia-smi -i "$g" -mig 1 >/dev/null',
            '    if [ "$(mig_mode "$g")" != Enabled ]; then pending=1; fi',
            "  fi",
            "done",
            'if [ "$pending" = 1 ]; then',
            "  # The mode takes effect after a GPU reset: a VM may get one only by rebooting.",
            '  if [ ! -e "$state/mig-reboot" ]; then',
            '    touch "$state/mig-reboot"; systemctl reboot; exit 0',
            "  fi",
            '  echo "gpufleet: a GPU is still not in MIG mode after a reboot" >&2; exit 1',
            "fi",
            "for ((g = 0; g < gpus; g++)); do",
            '  have=$( (nvidia-smi mig -i "$g" -lgi 2>/dev/null || true) |'
            " awk '$3 == \"MIG\" {print $5}' | paste -sd, - | sorted)",
            '  if [ "$have" != "$want_sorted" ]; then',
            '    nvidia-smi mig -i "$g" -dci >/dev/null 2>&1 || true',
            '    nvidia-smi mig -i "$g" -dgi >/dev/null 2>&1 || true',
            '    nvidia-smi mig -i "$g" -cgi "$want" -C >/dev/null',
            "  fi",
            "done",
            'rm -f "$state/mig-reboot"',
            "# Each MIG device as 'index-on-its-GPU GPU UUID', round-robin over the GPUs.",
            "mapfile -t devices < <(nvidia-smi -L | awk '",
            '  /^GPU [0-9]+:/ { g = $2; sub(":", "", g); d = 0 }',
            "  /^ +MIG / && match($0, /UUID: MIG-[^)]+/) {",
            "    print d, g, substr($0, RSTART + 6, RLENGTH - 6); d++ }' | sort -n -k1,1 -k2,2)",
            'if [ "${#devices[@]}" -lt "$slots" ]; then',
            '  echo "gpufleet: ${#devices[@]} MIG devices for $slots replica slots" >&2; exit 1',
            "fi",
            "for ((s = 0; s < slots; s++)); do",
            '  read -r _ _ uuid <<< "${devices[$s]}"',
            '  slot "$s" "$uuid"',
            "done",
        ]
    else:
        mode = layout.mode or ""
        setting, shown = _COMPUTE_MODES[mode]
        lines += [
            "for ((g = 0; g < gpus; g++)); do",
            '  now=$(nvidia-smi -i "$g" --query-gpu=compute_mode --format=csv,noheader)',
            f'  if [ "$now" != {shown} ]; then nvidia-smi -i "$g" -c {setting} >/dev/null; fi',
            "done",
        ]
        extra = ""
        if mode == "mps":
            lines += [
                f"export CUDA_MPS_PIPE_DIRECTORY={MPS_PIPE_DIRECTORY}",
                f"export CUDA_MPS_LOG_DIRECTORY={MPS_LOG_DIRECTORY}",
                'mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"',
                "if ! pgrep -x nvidia-cuda-mps-control >/dev/null; then",
                "  nvidia-cuda-mps-control -d",
                "fi",
            ]
            extra = f" CUDA_MPS_PIPE_DIRECTORY={MPS_PIPE_DIRECTORY}"
            if layout.compute_percent is not None:
                extra += f" CUDA_MPS_ACTIVE_THREAD_PERCENTAGE={layout.compute_percent}"
            if layout.memory_gib is not None:
                # The slot sees its one GPU as device 0.
                extra += f" CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0={int(layout.memory_gib * 1024)}M"
        lines += [
            "# Slot s takes turns on GPU s % gpus.",
            f'for ((s = 0; s < slots; s++)); do slot "$s" "$((s % gpus))"{extra}; done',
        ]
    return "\n".join([*lines, *_PRUNE, ""])


def boot_script(layout: SlotLayout) -> str:
    """What an instance runs at boot for its replica slots (see the module's doc)."""
    if layout.mode is None:
        assert layout.gpus_each is not None
        lines = _header(layout) + _SLOT_FUNCTION
        for index, devices in enumerate(slot_devices(layout.per_instance, layout.gpus_each)):
            lines.append(f"slot {index} {','.join(map(str, devices))}")
        return "\n".join([*lines, *_PRUNE, ""])
    unit = "\n".join(
        [
            "[Unit]",
            f"Description=gpufleet: share the GPUs between replica slots ({_WORDS[layout.mode]})",
            "After=nvidia-persistenced.service",
            "[Service]",
            "Type=oneshot",
            "RemainAfterExit=yes",
            f"ExecStart={SHARING_COMMAND}",
            "[Install]",
            "WantedBy=multi-user.target",
        ]
    )
    return "\n".join(
        [
            "#!/bin/bash",
            f"# gpufleet: {layout.workload}'s replicas share this instance's GPUs; "
            f"{SHARING_UNIT} sets them up at every boot.",
            "set -euo pipefail",
            "umask 022",
            f'mkdir -p "$(dirname {SHARING_COMMAND})" {UNIT_DIRECTORY}',
            f"cat > {SHARING_COMMAND}.tmp <<'GPUFLEET_SCRIPT'",
            sharing_script(layout).rstrip("\n"),
            "GPUFLEET_SCRIPT",
            f"chmod 0755 {SHARING_COMMAND}.tmp",
            f"mv -f {SHARING_COMMAND}.tmp {SHARING_COMMAND}",
            f"cat > {UNIT_DIRECTORY}/{SHARING_UNIT} <<'GPUFLEET_UNIT'",
            unit,
            "GPUFLEET_UNIT",
            "systemctl daemon-reload",
            f"systemctl enable {SHARING_UNIT}",
            f"systemctl start {SHARING_UNIT}",
            "",
        ]
    )
