"""MIG (Multi-Instance GPU) profiles: how NVIDIA lets one GPU be cut into isolated instances.

From NVIDIA's MIG User Guide (docs.nvidia.com/datacenter/tesla/mig-user-guide, "Supported MIG
Profiles", tables 6-9, and "Getting Started", the ``nvidia-smi mig -lgipp`` placements):

- a GPU has 7 compute (SM) slices and 8 memory slices; a GPU instance profile ``<c>g.<m>gb``
  takes ``c`` compute slices and a run of memory slices, starting only at the placements the
  driver lists (profile 19, ``1g``: any of 0-6; profile 15, ``1g`` with two memory slices: 0,
  2, 4, 6; profile 14, ``2g``: 0, 2, 4; profile 9, ``3g``: 0, 4; profiles 5, ``4g``, and 0,
  ``7g``: 0);
- instances on one GPU may not share a memory slice, and together take at most 7 compute
  slices (NVIDIA's diagrams: "no two profiles overlap vertically");
- the same geometry holds on A100 40 GB and 80 GB, H100 80 GB, H200 141 GB and B200 180 GB;
  the profiles' memory (their names) scales with the GPU's.

Media-extension profiles (``+me``, one per GPU) are left out: serving and batch replicas need
no video decoders. ``MIG_PROFILES`` is the one home of these tables; ``gpus.GpuSpec`` names a
GPU's, ``placed`` says whether a set of instances has a valid layout (the stack config and
the ``gpu-sharing-config`` policy check plans with it), and ``planner/gpu_sharing.py`` lays
replicas out on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

COMPUTE_SLICES = 7
MEMORY_SLICES = 8


@dataclass(frozen=True, slots=True)
class MigProfile:
    name: str  # e.g. "1g.10gb", as nvidia-smi and Kubernetes (nvidia.com/mig-1g.10gb) name it
    profile_id: int  # GPU instance profile id: nvidia-smi mig -cgi <id>
    compute_slices: int  # of COMPUTE_SLICES
    memory_slices: int  # of MEMORY_SLICES, contiguous from a placement
    memory_gib: float  # nominal, as in its name
    placements: tuple[int, ...]  # memory slices an instance may start at
    max_instances: int  # NVIDIA's "Number of Instances Available"

    @property
    def compute_fraction(self) -> float:
        return self.compute_slices / COMPUTE_SLICES

    def slices_at(self, start: int) -> range:
        """The memory slices an instance placed at ``start`` takes."""
        return range(start, start + self.memory_slices)


# (compute slices, memory slices, profile id, placements, max instances) of each profile, the
# same on every GPU below; its memory is the GPU's per memory slice.
_GEOMETRY: tuple[tuple[int, int, int, tuple[int, ...], int], ...] = (
    (1, 1, 19, (0, 1, 2, 3, 4, 5, 6), 7),
    (1, 2, 15, (0, 2, 4, 6), 4),
    (2, 2, 14, (0, 2, 4), 3),
    (3, 4, 9, (0, 4), 2),
    (4, 4, 5, (0,), 1),
    (7, 8, 0, (0,), 1),
)


def _profiles(names: tuple[str, ...]) -> tuple[MigProfile, ...]:
    """The profiles of a GPU, given their names in ``_GEOMETRY``'s order."""
    return tuple(
        MigProfile(
            name,
            profile_id,
            compute,
            memory,
            float(name.split(".")[1].removesuffix("gb")),
            placements,
            most,
        )
        for name, (compute, memory, profile_id, placements, most) in zip(
            names, _GEOMETRY, strict=True
        )
    )


# By canonical GPU name (``gpus.GPUS``).
MIG_PROFILES: dict[str, tuple[MigProfile, ...]] = {
    "A100": _profiles(("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")),
    "A100-80GB": _profiles(("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
    "H100": _profiles(("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
    "H200": _profiles(("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")),
    "B200": _profiles(("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb")),
}


def mig_profile(gpu_name: str, profile: str) -> MigProfile | None:
    """The profile named ``profile`` on ``gpu_name``, or None."""
    return next((p for p in MIG_PROFILES.get(gpu_name, ()) if p.name == profile), None)


def placed(gpu_name: str, profiles: Sequence[str]) -> list[int] | None:
    """A start slice for each named profile on one GPU that NVIDIA's rules allow (valid
    placements, no memory slice shared, at most 7 compute slices), or None when none does or
    a name is not the GPU's profile. Exhaustive: a GPU holds at most seven instances."""
    table = {p.name: p for p in MIG_PROFILES.get(gpu_name, ())}
    if any(name not in table for name in profiles) or len(profiles) > COMPUTE_SLICES:
        return None
    chosen = [table[name] for name in profiles]
    if sum(p.compute_slices for p in chosen) > COMPUTE_SLICES:
        return None
    order = sorted(range(len(chosen)), key=lambda i: -chosen[i].memory_slices)
    starts: list[int] = [0] * len(chosen)

    def fill(k: int, used: frozenset[int]) -> bool:
        if k == len(order):
            return True
        profile = chosen[order[k]]
        for start in profile.placements:
            taken = set(profile.slices_at(start))
            if not taken & used:
                starts[order[k]] = start
                if fill(k + 1, used | taken):
                    return True
        return False

    return starts if fill(0, frozenset()) else None
