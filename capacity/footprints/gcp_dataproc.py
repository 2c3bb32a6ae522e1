"""GPU footprints of Dataproc clusters and workflow templates: a part per role — the master,
the primary workers, the secondary workers, auxiliary node groups, the node pools of a cluster
on GKE — each of GCE machines (built-in GPUs, or attached accelerators) times its instances, up
to what the autoscaling policy the cluster names allows.

Secondary workers take the primary workers' machine type (Dataproc's rule; the provider sets no
machine of their own on a cluster) without their attached accelerators, which Dataproc attaches
to secondary workers only when asked for them on their own; by default they are preemptible.

A workflow template creates nothing itself: each time it is instantiated (an API call, a Cloud
Scheduler job, a Workflows step), Dataproc creates its managed cluster for that run and deletes
it when the run's jobs are done. Its capacity is a run's, started outside the stack (as a
SageMaker job template's), for at most its ``dagTimeout``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.gcp import gce_machine, gcp_region
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, inherits, reads
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, resource_name
from gpufleet.pricing_models import Market

# Where ``stack_capacity`` puts the properties of the autoscaling policy a cluster (or a
# template's managed cluster) names, when the stack holds it (``inherit_policy``).
POLICY = "gpufleet:autoscalingPolicy"

# Dataproc's defaults, as the provider documents them: a master and two primary workers, of
# n1-standard-4 (a machine type that takes attached GPUs).
DEFAULT_MACHINE = "n1-standard-4"
_MASTERS, _WORKERS = 1.0, 2.0

_KIND = {
    types.DATAPROC_CLUSTER: "Dataproc cluster",
    types.DATAPROC_WORKFLOW_TEMPLATE: "Dataproc workflow template",
}
_NOTE = "priced at Compute Engine rates: Dataproc adds its own fee per vCPU"
_UNKNOWN_POLICY = "its autoscaling policy is"  # ... unknown during preview


@inherits(
    types.DATAPROC_CLUSTER,
    "clusterConfig.autoscalingConfig.policyUri",
    types.DATAPROC_AUTOSCALING_POLICY,
)
@inherits(
    types.DATAPROC_WORKFLOW_TEMPLATE,
    "placement.managedCluster.config.autoscalingConfig.policy",
    types.DATAPROC_AUTOSCALING_POLICY,
)
def inherit_policy(own: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
    """A cluster's (or template's) properties with the autoscaling policy it names."""
    return {**own, POLICY: policy}


def _accelerated(r: Reading, group: Any, *, attached: bool = True) -> list[Machine]:
    """The machines a Dataproc instance group runs: its machine type (Dataproc's default when
    it attaches GPUs and names none) or the types its flexibility policy lists, with its
    accelerators attached (``attached``)."""
    accelerators = [
        {"type": a.get("acceleratorType"), "count": a.get("acceleratorCount")}
        for a in as_list(get_path(group, "accelerators"))
        if isinstance(a, dict)
    ]
    if not attached:
        accelerators = []
    machine_type = get_path(group, "machineType")
    if machine_type is None and accelerators:
        machine_type = DEFAULT_MACHINE
    flexibility = get_path(group, "instanceFlexibilityPolicy")
    names = [
        name
        for selection in as_list(get_path(flexibility, "instanceSelectionLists"))
        for name in as_list(get_path(selection, "machineTypes"))
    ] + as_list(get_path(flexibility, "instanceMachineTypes"))
    found: list[Machine] = []
    for name in [machine_type, *names] if machine_type is not None else names:
        sub = r.within({"guestAccelerators": accelerators} if accelerators else {})
        machine = gce_machine(sub, name)
        r.absorb(sub)
        if machine is not None:
            found.append(machine)
    return list(dict.fromkeys(found))


def _market(value: Any, default: Market) -> Market:
    if value is None or is_unknown(value):
        return default
    return "on_demand" if str(value).upper() == "NON_PREEMPTIBLE" else "spot"


class _Cluster:
    """One cluster config (a cluster's ``clusterConfig``, a template's managed cluster's
    ``config``) read into its parts."""

    def __init__(self, r: Reading, config: Any, policy_uri: Any, kind: str) -> None:
        self.r = r
        self.config = config
        self.kind = kind
        self.region = _str(r.get("location")) or gcp_region(r)
        self.policy = self._policy(policy_uri)

    def _policy(self, uri: Any) -> dict[str, Any] | str | None:
        """The autoscaling policy's properties; None with no policy; why not, for one that is
        not in the stack (or not known yet: ``_UNKNOWN_POLICY``)."""
        linked = self.r.get(POLICY)
        if isinstance(linked, dict):
            return linked
        if uri is None:
            return None
        if is_unknown(uri):
            return _UNKNOWN_POLICY
        name = resource_name(uri) or "it names"
        return (
            f"its autoscaling policy {name} is not in this stack: how many workers it may add "
            "is not known"
        )

    def _bound(
        self, g: Reading, role: str, given: float | None, default_least: float
    ) -> tuple[float | None, float | None, bool]:
        """(least, most, whether it scales) of a worker role under the policy; what cannot be
        known recorded in ``g``."""
        policy = self.policy
        if policy is None or given is None:
            return given, given, False
        if policy == _UNKNOWN_POLICY:
            g.unknown_value(_UNKNOWN_POLICY)
            return given, None, True
        if isinstance(policy, str):
            g.undetermined.append(policy)
            return given, None, True
        p = g.within(policy)
        least = p.number(p.get(role, "minInstances"), f"policy {role}.minInstances", None)
        most = p.number(
            p.get(role, "maxInstances"),
            f"policy {role}.maxInstances",
            None if role == "workerConfig" else 0.0,
            whole=True,
        )
        if most is None and not p.undetermined:
            p.undetermined.append(f"its autoscaling policy sets no {role}.maxInstances")
        g.absorb(p)
        if most is None:
            return given, None, True
        least = default_least if least is None else least
        return min(given, least), max(given, most), most > least

    def part(
        self,
        group: Any,
        name: str,
        count_default: float | None,
        *,
        market: Market = "on_demand",
        machines: list[Machine] | None = None,
        role: str | None = None,
        default_least: float = 0.0,
    ) -> GpuFootprint | None:
        g = self.r.within(group)
        if is_unknown(group):
            g.unknown_value(f"{name} is")
        found = _accelerated(g, group) if machines is None else machines
        if not found and not g.undetermined:
            return None  # no GPUs in this role: its size does not matter here
        count = g.number(g.get("numInstances"), f"{name}.numInstances", count_default, whole=True)
        if count is None and g.get("numInstances") is None:
            g.undetermined.append(f"its {name}.numInstances is not set")
        least, most, scales = count, count, False
        if role is not None and found:
            least, most, scales = self._bound(g, role, count, default_least)
        if group is None and most == 0 and not g.undetermined:
            return None  # a role it does not have (no secondary workers, none to add)
        return g.footprint(
            cloud="gcp",
            kind=self.kind,
            is_template=False,
            machines=found,
            expected_units=count,
            max_units=most,
            scales_itself=scales and least is not None and most is not None and most > least,
            market=market,
            region=self.region,
            notes=(_NOTE,),
            part=name,
        )

    def parts(self, *, secondary_machines: bool) -> list[GpuFootprint | None]:
        """The master, the primary and secondary workers, the auxiliary node groups."""
        config = self.config
        workers = get_path(config, "workerConfig")
        key = "secondaryWorkerConfig" if secondary_machines else "preemptibleWorkerConfig"
        secondary = get_path(config, key)
        # A cluster's secondary workers: the machine types their flexibility policy lists,
        # else the primary workers' machine; no attached GPUs.
        s = self.r.within({})
        shared = None
        if not secondary_machines:
            flexible = get_path(secondary, "instanceFlexibilityPolicy")
            shared = _accelerated(s, {"instanceFlexibilityPolicy": flexible}, attached=False)
            if not shared:
                shared = _accelerated(s, workers, attached=False)
        found = [
            self.part(get_path(config, "masterConfig"), "master", _MASTERS),
            self.part(workers, "workers", _WORKERS, role="workerConfig", default_least=_WORKERS),
            self.part(
                secondary,
                "secondary-workers",
                0.0,
                market=_market(get_path(secondary, "preemptibility"), "spot"),
                machines=shared,
                role="secondaryWorkerConfig",
            ),
        ]
        for index, group in enumerate(as_list(get_path(config, "auxiliaryNodeGroups"))):
            for inner, node_group in enumerate(as_list(get_path(group, "nodeGroups"))):
                named = get_path(node_group, "name")
                name = named if isinstance(named, str) and named else f"nodeGroups[{inner}]"
                found.append(
                    self.part(
                        get_path(node_group, "nodeGroupConfig"),
                        f"auxiliaryNodeGroups[{index}].{name}",
                        None,
                    )
                )
        return found

    def gke_pools(self, virtual: Any) -> list[GpuFootprint | None]:
        """The node pools a Dataproc-on-GKE cluster creates: their machine types' built-in GPUs
        (the provider attaches none) times their autoscaling's max in each location."""
        path = ("kubernetesClusterConfig", "gkeClusterConfig", "nodePoolTargets")
        found: list[GpuFootprint | None] = []
        for index, target in enumerate(as_list(get_path(virtual, *path))):
            p = self.r.within(get_path(target, "nodePoolConfig"))
            named = get_path(target, "nodePool")
            name = resource_name(named) or f"nodePoolTargets[{index}]"
            machine = gce_machine(p, p.get("config", "machineType"))
            if machine is None and not p.undetermined:
                continue
            zones = float(len(as_list(p.get("locations"))) or 1)
            least = p.number(p.get("autoscaling", "minNodeCount"), f"{name} minNodeCount", 0.0)
            most = p.number(p.get("autoscaling", "maxNodeCount"), f"{name} maxNodeCount", None)
            if machine is not None and most is None and p.get("autoscaling") is None:
                p.undetermined.append(
                    f"its node pool {name} sets no autoscaling: its size is GKE's"
                )
            spot = p.get("config", "spot") is True or p.get("config", "preemptible") is True
            found.append(
                p.footprint(
                    cloud="gcp",
                    kind=self.kind,
                    is_template=False,
                    machines=[machine],
                    expected_units=None if least is None else least * zones,
                    max_units=None if most is None else most * zones,
                    scales_itself=True,
                    market="spot" if spot else "on_demand",
                    region=self.region,
                    notes=(_NOTE,),
                    part=name,
                )
            )
        return found


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


def _unread_whole(r: Reading, kind: str, what: str) -> tuple[GpuFootprint, ...] | None:
    r.unknown_value(f"{what} is")
    unread = r.footprint(cloud="gcp", kind=kind, is_template=False, region=gcp_region(r))
    return (unread,) if unread is not None else None


@reads(types.DATAPROC_CLUSTER)
def dataproc_cluster(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """A Dataproc cluster: a part per role (master, workers, secondary workers, node groups, GKE
    node pools), each its instances of its machine and accelerators, raised by its autoscaling
    policy's max."""
    kind = _KIND[types.DATAPROC_CLUSTER]
    config, virtual = r.get("clusterConfig"), r.get("virtualClusterConfig")
    if is_unknown(config) or is_unknown(virtual):
        return _unread_whole(
            r, kind, "clusterConfig" if is_unknown(config) else "virtualClusterConfig"
        )
    cluster = _Cluster(r, config, get_path(config, "autoscalingConfig", "policyUri"), kind)
    parts = [*cluster.parts(secondary_machines=False), *cluster.gke_pools(virtual)]
    return tuple(p for p in parts if p is not None) or None


# A proto duration as the API takes it: seconds, with a fraction.
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


@reads(types.DATAPROC_WORKFLOW_TEMPLATE)
def dataproc_workflow_template(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """The managed cluster a run of the template creates, as capacity a run starts outside
    the stack; a template that runs on existing clusters (a cluster selector) holds none."""
    kind = _KIND[types.DATAPROC_WORKFLOW_TEMPLATE]
    managed = r.get("placement", "managedCluster")
    if is_unknown(managed) or is_unknown(get_path(managed, "config")):
        return _unread_whole(r, kind, "placement.managedCluster")
    if managed is None:
        return None
    config = get_path(managed, "config")
    policy = get_path(config, "autoscalingConfig", "policy")
    cluster = _Cluster(r, config, policy, kind)
    timeout = r.get("dagTimeout")
    seconds = _DURATION.match(timeout) if isinstance(timeout, str) else None
    hours = float(seconds[1]) / 3600.0 if seconds else None
    note = () if hours is not None else ("a run's length is not bounded (no dagTimeout)",)
    parts = [
        replace(p, outside_stack=True, run_hours=hours, notes=(*p.notes, *note))
        for p in cluster.parts(secondary_machines=True)
        if p is not None
    ]
    return tuple(parts) or None
