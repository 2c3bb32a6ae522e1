"""Managed services: cloud services that own the machines of the work they run (a workload's
``managed:``), each described once.

A service runs on one cloud, takes some workload kinds, calls its interruptible capacity by a
name of its own, and is used through its own jobs rather than by sizing a group (what
``gpufleet scale`` says instead of scaling it). Which component builds a service's capacity is
the component's to say (``capabilities``: its ``managed``).

Adding a managed service: add its name to ``Managed`` and its entry to ``MANAGED_SERVICES``,
then a component that realizes it (CONTRIBUTING, "Add a managed service"); a test fails while
the two disagree or no component builds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from gpufleet.clouds import Cloud
from gpufleet.pricing_models import LOW_PRIORITY
from gpufleet.workload_kinds import Kind

Managed = Literal["sagemaker", "azureml"]


@dataclass(frozen=True)
class ManagedService:
    """A cloud service that owns the machines of the work it runs (``Workload.managed``)."""

    cloud: Cloud
    kinds: frozenset[Kind]
    # How its capacity is used instead of a run sizing it, for ``gpufleet scale``.
    used_by: str
    # What the service calls its interruptible capacity, for people reading a plan.
    spot_name: str = "spot"


MANAGED_SERVICES: dict[Managed, ManagedService] = {
    "sagemaker": ManagedService(
        "aws",
        frozenset({"training"}),
        used_by="is a SageMaker training job template: start a training job (SageMaker brings "
        "the instances and releases them when the job ends)",
    ),
    "azureml": ManagedService(
        "azure",
        frozenset({"training", "batch"}),
        used_by="is an Azure ML compute cluster that scales from 0 on queued jobs: submit a "
        "job to it (the cluster scales back down when idle)",
        spot_name=LOW_PRIORITY,
    ),
}
MANAGED: tuple[Managed, ...] = get_args(Managed)


def is_managed(name: object) -> bool:
    return name in MANAGED_SERVICES
