"""How many of a workload's replicas (serving) or workers (batch) share one instance.

A replica that needs fewer GPUs than a machine holds would otherwise get the whole machine:
40 one-A100 serving replicas on AWS were 40 p4d.24xlarge, 320 GPUs for 40. The planner instead
prices every offer that holds at least one replica with the replicas packed onto it —
``replicas_per_instance`` of them, each on its own ``gpus_per_instance // replicas_per_instance``
GPUs — so one small machine per replica and fewer large ones compete on cost alone.

Which workloads pack:

- serving replicas and batch workers, which run independently on whichever GPUs they are given;
- not training: its ``nodes x count`` is the job's parallel layout, chosen by the user;
- not on a managed service, which owns its machines (SageMaker, Azure ML);
- not a batch job that names its component (``runs_on``): that component builds the job's
  nodes as the spec counts them.

Where replicas share a GPU (``sharing``, ``planner/gpu_sharing.py``), a GPU holds several and
an instance its GPUs times that many.

``max_replicas_per_instance`` bounds what one machine's failure takes down; a workload never
claims more slots on a machine than it has replicas, so one replica on an 8-GPU machine is
one replica on eight GPUs. How each replica finds its GPUs on the machine is the stack's
(``components/replica_slots.py``).
"""

from __future__ import annotations

from gpufleet.planner.spec import Workload
from gpufleet.workload_kinds import Kind

# The kinds whose units run independently: serving replicas and batch workers.
PACKED_KINDS: frozenset[Kind] = frozenset({"inference", "batch"})

NOT_PACKED = (
    "max_replicas_per_instance applies to serving replicas and batch workers that gpufleet "
    "places itself (not training, a managed service, or a batch job with runs_on)"
)


def unit_name(kind: Kind) -> str:
    """What the units that share an instance are called, plural: replicas or workers."""
    return "replicas" if kind == "inference" else "workers"


def packs(workload: Workload) -> bool:
    """Whether several of the workload's replicas or workers may share an instance."""
    if workload.kind not in PACKED_KINDS or workload.managed is not None:
        return False
    return workload.kind == "inference" or workload.runs_on is None


def replicas_per_instance(
    workload: Workload,
    units: int,
    gpus_per_replica: int,
    gpus_per_instance: int,
    per_gpu: int = 1,
) -> int:
    """How many of ``units`` replicas (or workers) of ``gpus_per_replica`` GPUs each one
    instance of ``gpus_per_instance`` GPUs runs, ``per_gpu`` to a GPU where they share one
    (``planner/gpu_sharing.py``): at least 1 (the instance holds one)."""
    if not packs(workload) or gpus_per_replica <= 0:
        return 1
    fit = gpus_per_instance // gpus_per_replica * per_gpu
    cap = workload.max_replicas_per_instance
    return max(1, min(fit, units, cap if cap is not None else fit))
