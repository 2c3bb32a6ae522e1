"""Amazon EMR: clusters (a part each for the master and core nodes), instance groups and
instance fleets added to a cluster (task nodes), and the managed scaling policy that sizes a
cluster's core and task nodes.

An instance group is ``instanceCount`` instances of one type, spot when it bids a price; its
automatic scaling policy (JSON text) runs it between its ``Constraints``' ``MinCapacity`` and
``MaxCapacity``. An instance fleet holds ``targetOnDemandCapacity`` + ``targetSpotCapacity``
units of its instance type configs, each instance counting for its ``weightedCapacity``
(1 unless set), on-demand for the first and spot for the rest. A managed scaling policy runs
the core and task nodes from ``minimumCapacityUnits`` up to ``maximumCapacityUnits`` in its
unit (instances, fleet units or vCPUs): the core nodes within those bounds, each task group
or fleet up to the max too (counted for each: a gate errs high). EMR's own charge per
instance-hour is not in the catalog: priced at EC2 rates, said in a note.
"""

from __future__ import annotations

import json
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.aws import _fleet_market, _region
from gpufleet.capacity.footprints.model import VCPU_UNITS, GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, Scaler, reads, shown, sizes
from gpufleet.capacity.property_values import as_list, get_path, is_unknown

EMR_RATE_NOTE = "priced at EC2 rates: EMR's own charge per instance-hour is not in the catalog"
# An automatic scaling policy longer than any written by hand is not parsed (a hostile one
# costs no time).
_MAX_POLICY_CHARS = 1_000_000


def _scaling_policy(r: Reading, text: Any, where: str) -> tuple[float | None, float | None]:
    """(MinCapacity, MaxCapacity) of an automatic scaling policy's ``Constraints``; both None
    when it has none. What cannot be read is recorded."""
    if text is None or r.unreadable(text, where):
        return None, None
    policy: Any = text
    if isinstance(text, str):
        if not text.strip():
            return None, None
        try:
            if len(text) > _MAX_POLICY_CHARS:
                raise ValueError
            policy = json.loads(text)
        except (ValueError, RecursionError):
            r.undetermined.append(f"{where} {shown(text)} is not a JSON policy")
            return None, None
    constraints = get_path(policy, "Constraints") if isinstance(policy, dict) else None
    if not isinstance(constraints, dict):
        r.undetermined.append(f"{where} has no Constraints: its capacity is not bounded")
        return None, None
    least = r.number(constraints.get("MinCapacity"), f"{where} MinCapacity", None, whole=True)
    most = r.number(constraints.get("MaxCapacity"), f"{where} MaxCapacity", None, whole=True)
    if least is None or most is None:
        if not r.undetermined:
            r.undetermined.append(f"{where} sets no MinCapacity and MaxCapacity")
        return None, None
    r.at_most(least, "MinCapacity", most, "MaxCapacity")
    return least, most


def _group(
    r: Reading, kind: str, default_count: float, part: str | None, region: str | None
) -> GpuFootprint | None:
    """An instance group: ``instanceCount`` instances of its type (``default_count`` when it
    sets none), between its automatic scaling policy's bounds when it has one."""
    machine = r.machine("aws", r.get("instanceType"), "instanceType")
    count = r.number(r.get("instanceCount"), "instanceCount", default_count, whole=True)
    least, most = _scaling_policy(r, r.get("autoscalingPolicy"), "autoscalingPolicy")
    scaled = least is not None and most is not None
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=[machine],
        expected_units=least if scaled else count,
        max_units=most if scaled else count,
        scales_itself=scaled,
        # A group that bids a price is a spot group.
        market="spot" if r.get("bidPrice") not in (None, "") else "on_demand",
        region=region,
        notes=(EMR_RATE_NOTE,),
        part=part,
    )


def _fleet(r: Reading, kind: str, part: str | None, region: str | None) -> GpuFootprint | None:
    """An instance fleet: its on-demand and spot targets in units of its instance type
    configs' weighted capacity."""
    configs = r.get("instanceTypeConfigs")
    if is_unknown(configs):
        r.unknown_value("instanceTypeConfigs are")
    machines: list[Machine | None] = []
    weights: list[float] = []
    for index, config in enumerate(as_list(configs)):
        if not isinstance(config, dict):
            continue
        where = f"instanceTypeConfigs[{index}]"
        machine = r.machine("aws", config.get("instanceType"), f"{where}.instanceType")
        weight = r.number(
            config.get("weightedCapacity"), f"{where}.weightedCapacity", 1.0, whole=True
        )
        if machine is not None:
            machines.append(machine)
            weights.append(weight or 1.0)
    on_demand, spot = (
        r.number(r.get(key), key, 0.0, whole=True)
        for key in ("targetOnDemandCapacity", "targetSpotCapacity")
    )
    total = None if on_demand is None or spot is None else on_demand + spot
    bought, base, percent = _fleet_market(total, on_demand, spot, "spot")
    notes = [EMR_RATE_NOTE]
    timeout = get_path(r.get("launchSpecifications"), "spotSpecifications", 0, "timeoutAction")
    if isinstance(timeout, str) and timeout.upper() == "SWITCH_TO_ON_DEMAND" and spot:
        notes.append("its spot target may be filled on-demand when spot is short")
    return r.footprint(
        cloud="aws",
        kind=kind,
        is_template=False,
        machines=machines,
        weights=tuple(weights) if len(weights) == len(machines) else (),
        expected_units=total,
        max_units=total,
        market=bought,
        on_demand_base=base,
        on_demand_percent=percent,
        region=region,
        notes=tuple(notes),
        part=part,
    )


@reads(types.AWS_EMR_CLUSTER)
def cluster(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """A cluster's master and core nodes, a part each (task nodes are instance groups or
    fleets of their own)."""
    parts: list[GpuFootprint] = []
    for role in ("master", "core"):
        group, fleet_ = r.get(f"{role}InstanceGroup"), r.get(f"{role}InstanceFleet")
        for key, value in ((f"{role}InstanceGroup", group), (f"{role}InstanceFleet", fleet_)):
            if value is None or (not is_unknown(value) and not isinstance(value, dict)):
                continue
            within = r.within(value)
            if is_unknown(value):
                within.unknown_value(f"{key} is")
            if key.endswith("Group"):
                # EMR's defaults: one master node, one core node.
                found = _group(within, f"EMR {role} instance group", 1.0, role, _region(r))
            else:
                found = _fleet(within, f"EMR {role} instance fleet", role, _region(r))
            if found is not None:
                parts.append(found)
    return tuple(parts) or None


@reads(types.AWS_EMR_INSTANCE_GROUP)
def instance_group(r: Reading) -> GpuFootprint | None:
    """An EMR instance group added to a cluster: its instance count, bounded by its autoscaling
    policy, spot with a bid price."""
    # An instance group added to a cluster: task nodes, none unless it says how many.
    return _group(r, "EMR instance group", 0.0, None, _region(r))


@reads(types.AWS_EMR_INSTANCE_FLEET)
def instance_fleet(r: Reading) -> GpuFootprint | None:
    """An EMR instance fleet: its on-demand and spot target units of its instance type configs
    (weights)."""
    return _fleet(r, "EMR instance fleet", None, _region(r))


_UNITS = {"instances": None, "instancefleetunits": None, "vcpu": VCPU_UNITS}


@sizes(types.AWS_EMR_MANAGED_SCALING_POLICY)
def managed_scaling_policy(r: Reading) -> Scaler | None:
    """A cluster's managed scaling: its core nodes run within the policy's bounds, its task
    groups and fleets (resources naming the cluster by ``clusterId``) up to its max."""
    limits = r.get("computeLimits")
    if is_unknown(limits):
        r.unknown_value("computeLimits are")
    limit = r.within(as_list(limits)[0] if as_list(limits) else {})
    unit = limit.get("unitType")
    capacity_unit = None
    if not limit.unreadable(unit, "unitType"):
        if not isinstance(unit, str) or unit.strip().lower() not in _UNITS:
            limit.undetermined.append(
                f"unitType {shown(unit)} is not Instances, InstanceFleetUnits or VCPU"
            )
        else:
            capacity_unit = _UNITS[unit.strip().lower()]
    least = limit.count("minimumCapacityUnits", where="minimumCapacityUnits")
    most = limit.count("maximumCapacityUnits", where="maximumCapacityUnits")
    limit.at_most(least, "minimum capacity", most, "maximum capacity")
    r.absorb(limit)
    bounds = not r.undetermined and least is not None and most is not None
    return Scaler(
        "clusterId",
        least if bounds else None,
        most,
        active=True,
        undetermined=tuple(r.undetermined),
        bounds=bounds,
        part="core",
        members=("clusterId",),
        capacity_unit=capacity_unit,
        must_link=True,
    )
