"""GPU footprints of GCP resources: instance templates (machines, no count), VM instances (in a
reservation or not), managed instance groups (target size; machines from their template) and
reservations; VMs from templates or machine images; GKE node pools and clusters (a part per
pool, and what node auto-provisioning may add), Vertex AI deployment and persistent resource
pools and Model Garden endpoints, Workbench instances; what autoscalers and resize requests make
of a group's size. Machine types may be names or URLs; GPUs come with accelerator-optimized
machine types or as guest accelerators (``planner.gcp_machines``). Dataproc is ``gcp_dataproc``."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint, GroupVersion, Machine
from gpufleet.capacity.footprints.reading import (
    MAX_COUNT,
    Reading,
    Scaler,
    looks_like_gpu,
    reads,
    shown,
    sizes,
)
from gpufleet.capacity.footprints.weekly_use import MAX_CHANGES, Window, cron_windows
from gpufleet.capacity.property_values import as_list, get_path, is_unknown, resource_name
from gpufleet.planner.gcp_machines import GPU_OF_ACCELERATOR, built_in_gpus
from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.planner.schedules import ScheduleError
from gpufleet.pricing_models import Market
from gpufleet.tag_keys import EXPECTED_MINUTES, expected_minutes, tags_in_description


def gcp_region(r: Reading) -> str | None:
    """A resource's region: its own ``region`` or ``zone``'s, else its provider's."""
    for key in ("region", "zone"):
        value = r.get(key)
        if isinstance(value, str) and value and not is_unknown(value):
            value = value.rsplit("/", 1)[-1]
            return value if key == "region" else value.rsplit("-", 1)[0]
    value = r.provider.get("region")
    return value if isinstance(value, str) and not is_unknown(value) else None


def _zone(r: Reading) -> str | None:
    zone = r.get("zone")
    if isinstance(zone, str) and zone and not is_unknown(zone):
        return zone.rsplit("/", 1)[-1]
    # A regional group held to one zone by its distribution policy.
    listed = as_list(r.get("distributionPolicyZones"))
    if len(listed) == 1 and isinstance(listed[0], str) and not is_unknown(listed[0]):
        return listed[0].rsplit("/", 1)[-1]
    return None


def gce_machine(r: Reading, machine_type: Any) -> Machine | None:
    """The GPU machine a GCE machine type (a name or URL) and the reading's
    ``guestAccelerators`` make; None for a machine without GPUs (or, recorded, unreadable)."""
    name = r.machine_name("gcp", machine_type, "machineType")
    if name is None:
        return None
    guest = r.get("guestAccelerators")
    if is_unknown(guest):
        r.unknown_value("guestAccelerators are")
        return None
    accelerators = [a for a in as_list(guest) if isinstance(a, dict)]
    if accelerators:
        attached = _attached(r, accelerators)
        if attached is None:
            return None
        gpu, count = attached
        if count == 0:
            # No GPU attached; a machine with built-in GPUs (a3, a2, g2) has them anyway: the
            # provider drops accelerators of count 0.
            if built_in_gpus(name) is None:
                return None
            return r.machine("gcp", name, "machineType")
        # The accelerators say what the machine carries, whether or not the catalog prices
        # this pairing (unpriced pairings show up in the budget instead).
        known = r.catalog.machine("gcp", name, (gpu, count))
        return known or Machine("gcp", name, gpu, count)
    if built_in_gpus(name) is None and not looks_like_gpu("gcp", name):
        return None
    return r.machine("gcp", name, "machineType")


def _attached(r: Reading, accelerators: list[dict[str, Any]]) -> tuple[str, int] | None:
    """(GPU, count) of a machine's guest accelerators: entries of one kind add up; None,
    recorded, when they cannot be read or name several kinds."""
    kinds: dict[str, int] = {}
    for index, accelerator in enumerate(accelerators):
        where = f"guestAccelerators[{index}]"
        kind = get_path(accelerator, "type")
        if r.unreadable(kind, f"{where}.type"):
            return None
        if not isinstance(kind, str) or not kind.strip():
            r.undetermined.append(f"{where}.type {shown(kind)} is not an accelerator type")
            return None
        kind = kind.strip().rsplit("/", 1)[-1].lower()
        name = GPU_OF_ACCELERATOR.get(kind) or normalize_gpu_name(kind)
        if name is None:
            r.undetermined.append(f"{where}.type {kind!r} is not a known GPU")
            return None
        count = r.number(
            get_path(accelerator, "count"), f"{where}.count", None, whole=True, most=16
        )
        if count is None:
            if get_path(accelerator, "count") is None:
                r.undetermined.append(f"{where}.count is not set")
            return None
        kinds[name] = kinds.get(name, 0) + int(count)
    if len(kinds) > 1:
        r.undetermined.append(f"guestAccelerators name several GPU kinds: {', '.join(kinds)}")
        return None
    ((gpu, count),) = kinds.items()
    return gpu, count


def _scheduling_market(r: Reading) -> Market:
    model = r.get("scheduling", "provisioningModel")
    preemptible = r.get("scheduling", "preemptible")
    return "spot" if model == "SPOT" or preemptible is True else "on_demand"


_AFFINITY = "reservationAffinity"


def _reservation_fields(r: Reading) -> dict[str, Any]:
    """The market fields of a VM or template: in the reservation it names, if any (not priced
    twice when the stack holds it: ``stack_capacity.resolve_reservation``)."""
    outside = _scheduling_market(r)
    if r.get(_AFFINITY, "type") != "SPECIFIC_RESERVATION":
        return {"market": outside}
    names = as_list(r.get(_AFFINITY, "specificReservation", "values"))
    return {
        "market": "in_reservation",
        "reservation_names": tuple(filter(None, map(resource_name, names))),
        "market_outside_reservation": outside,
        "reservation_properties": (_AFFINITY,),
    }


@reads(*types.GCP_INSTANCE_TEMPLATES)
def instance_template(r: Reading) -> GpuFootprint | None:
    """A GCE instance template: its machine type and attached accelerators, spot or standard, its
    reservation affinity; no count."""
    machine = gce_machine(r, r.get("machineType"))
    return r.footprint(
        cloud="gcp",
        kind="instance template",
        is_template=True,
        machines=[machine],
        region=gcp_region(r),
        **_reservation_fields(r),
    )


_STOPPED = ("TERMINATED", "SUSPENDED")


@reads(types.GCP_INSTANCE, *types.GCP_INSTANCES_FROM)
def instance(r: Reading) -> GpuFootprint | None:
    """A VM; one created from an instance template takes the template's machine unless it
    sets its own, and one created from a machine image takes the image's, which gpufleet
    cannot see offline."""
    machine = gce_machine(r, r.get("machineType"))
    from_template = r.get("machineType") is None and r.get("sourceInstanceTemplate") is not None
    if r.get("machineType") is None and r.get("sourceMachineImage") is not None:
        r.undetermined.append("its machine type comes from its machine image")
    # A stopped VM bills no GPU time until it is started (by a run, or its schedule).
    stopped = r.get("desiredStatus") in _STOPPED
    limit = None if stopped else _run_limit_minutes(r)
    return r.footprint(
        cloud="gcp",
        kind="VM instance",
        is_template=False,
        machines=[machine],
        # Running with a max run duration: it stops (or is deleted) when that is up, one run
        # from its start; later starts are runs, which declare their use.
        expected_units=0.0 if stopped or limit else 1.0,
        declared_minutes=limit,
        notes=(f"its max run duration ends it {limit / 60:g} h after it starts",) if limit else (),
        max_units=1.0,
        template_properties=("sourceInstanceTemplate",) if from_template else (),
        region=gcp_region(r),
        zone=_zone(r),
        one_zone=True,
        **_reservation_fields(r),
    )


def _run_limit_minutes(r: Reading) -> int | None:
    """A VM's max run duration (``scheduling.maxRunDuration``), in whole minutes; None
    without one (one that is not a positive number of seconds is recorded as undetermined)."""
    seconds = r.get("scheduling", "maxRunDuration", "seconds")
    if seconds is None:
        return None
    found = r.number(
        seconds, "scheduling.maxRunDuration.seconds", None, positive=True, most=_MAX_RUN_SECONDS
    )
    return None if not found else math.ceil(found / 60)


# GCP's longest max run duration: 120 days.
_MAX_RUN_SECONDS = 120 * 24 * 3600


@reads(*types.GCP_INSTANCE_GROUP_MANAGERS)
def instance_group_manager(r: Reading) -> GpuFootprint | None:
    """A managed instance group: its target size of its templates' machines (a version of fixed
    size priced apart) or its flexibility policy's machine types."""
    size = r.count("targetSize", where="targetSize")
    # An instance flexibility policy launches the machine types it lists, whatever the
    # template says: each is an option (its template's pricing is not read: on-demand).
    sub = r.within({})  # no guest accelerators: the flexible types carry their own GPUs
    flexible = [
        gce_machine(sub, name)
        for selection in _selections(r.get("instanceFlexibilityPolicy", "instanceSelections"))
        for name in as_list(get_path(selection, "machineTypes"))
    ]
    flexible = [m for m in flexible if m is not None]
    r.absorb(sub)
    return r.footprint(
        cloud="gcp",
        kind="managed instance group",
        is_template=False,
        machines=flexible,
        market="on_demand" if flexible else None,
        expected_units=size,
        max_units=size,
        template_properties=() if flexible else ("versions", "instanceTemplate"),
        region=gcp_region(r),
        zone=_zone(r),
        one_zone=_one_zone(r),
        versions=_versions(r),
    )


def _one_zone(r: Reading) -> bool:
    """A zonal group, or a regional one distributed over one zone (known or not)."""
    if r.get("zone") is not None:
        return True
    return len(as_list(r.get("distributionPolicyZones"))) == 1


def _selections(value: Any) -> list[Any]:
    """Instance selections, as a list or a map of them by name."""
    if isinstance(value, dict):
        return list(value.values())
    return as_list(value)


def _versions(r: Reading) -> tuple[GroupVersion, ...]:
    """A group's versions when it has several: which template each launches and how many of
    the group's VMs it gets (a fixed number, a percentage, or the rest)."""
    entries = [v for v in as_list(r.get("versions")) if isinstance(v, dict)]
    if len(entries) < 2:
        return ()
    found = []
    for entry in entries:
        template = entry.get("instanceTemplate")
        size = entry.get("targetSize")
        fixed = size.get("fixed") if isinstance(size, dict) else None
        # Numbers cross the engine as floats: 2.0 is a size, 2.5 or a bool is not.
        if (
            isinstance(fixed, bool)
            or not isinstance(fixed, int | float)
            or not 0 <= fixed <= MAX_COUNT
            or not float(fixed).is_integer()
        ):
            fixed = None
        found.append(
            GroupVersion(
                template=template
                if isinstance(template, str) and template and not is_unknown(template)
                else None,
                fixed=None if fixed is None else float(fixed),
                takes_rest=not isinstance(size, dict) or not size,
            )
        )
    return tuple(found)


@reads(types.GCP_RESERVATION)
def reservation(r: Reading) -> GpuFootprint | None:
    """A GCE reservation: its count of its machine and accelerators, billed whether used or not."""
    properties = r.get("specificReservation", "instanceProperties")
    machine_type = get_path(properties, "machineType")
    # A reservation names its accelerators' fields acceleratorType / acceleratorCount, where
    # instances and templates say type / count.
    accelerators = [
        {"type": a.get("acceleratorType"), "count": a.get("acceleratorCount")}
        for a in as_list(get_path(properties, "guestAccelerators"))
        if isinstance(a, dict)
    ]
    sub = Reading(
        {"guestAccelerators": accelerators} if accelerators else {}, r.provider, r.catalog
    )
    machine = gce_machine(sub, machine_type)
    r.absorb(sub)
    count = r.count("specificReservation", "count", where="specificReservation.count")
    return r.footprint(
        cloud="gcp",
        kind="reservation",
        is_template=False,
        machines=[machine],
        expected_units=count,
        max_units=count,
        market="reserved",
        region=gcp_region(r),
        zone=_zone(r),
        one_zone=True,
    )


@sizes(*types.GCP_AUTOSCALERS)
def autoscaler(r: Reading) -> Scaler | None:
    """A GCE autoscaler: its group between min and max replicas, and what its scaling schedules
    run; off, the group keeps its size."""
    policy = ("autoscalingPolicy",)
    least = r.count(*policy, "minReplicas", where="minReplicas")
    most = r.count(*policy, "maxReplicas", where="maxReplicas")
    if least is None and r.get(*policy, "minReplicas") is None:
        least = 0.0
    r.at_most(least, "minReplicas", most, "maxReplicas")
    mode = r.get(*policy, "mode")
    description = r.get("description")
    words = tags_in_description(description) if isinstance(description, str) else {}
    entries = as_list(r.get(*policy, "scalingSchedules"))
    windows, unread = _scaling_schedules(r, entries)
    zones = {
        zone if isinstance(zone := get_path(entry, "timeZone"), str) and zone else "UTC"
        for entry in entries
        if isinstance(entry, dict) and entry.get("disabled") is not True
    }
    never_in = _never_scales_in(r, mode)
    return Scaler(
        "target",
        least,
        most,
        active=mode not in ("OFF",),
        undetermined=tuple(r.undetermined),
        declared_minutes=expected_minutes(words.get(EXPECTED_MINUTES)),
        windows=tuple(windows),
        schedule_unread=unread,
        time_zones=frozenset(zones),
        scales_out=True,
        scales_in=never_in is None,
        direction_unread=never_in,
        sets_size=bool(zones),  # its enabled scaling schedules hold sizes
    )


def _never_scales_in(r: Reading, mode: Any) -> str | None:
    """Why an autoscaler never removes VMs it added, if it does not: a mode that only scales
    out (``ONLY_SCALE_OUT``, formerly ``ONLY_UP``), or scale-in controls that allow none."""
    if mode in ("ONLY_SCALE_OUT", "ONLY_UP"):
        return f"its autoscaler's mode is {mode}: it never removes VMs"
    control = ("autoscalingPolicy", "scaleInControl", "maxScaledInReplicas")
    for key in ("fixed", "percent"):
        if r.get(*control, key) == 0:
            return f"its autoscaler's scaleInControl.maxScaledInReplicas.{key} is 0"
    return None


def _scaling_schedules(r: Reading, entries: list[Any]) -> tuple[list[Window], str | None]:
    """The windows an autoscaler's scaling schedules hold (disabled ones left out), or why
    they cannot be read."""
    windows: list[Window] = []
    for index, entry in enumerate(entries):
        where = f"scalingSchedules[{index}]"
        sub = Reading(entry if isinstance(entry, dict) else {}, r.provider, r.catalog)
        if sub.get("disabled") is True:
            continue
        cron = sub.get("schedule")
        seconds = sub.number(sub.get("durationSec"), f"{where}.durationSec", None, whole=True)
        size = sub.number(
            sub.get("minRequiredReplicas"), f"{where}.minRequiredReplicas", None, whole=True
        )
        if is_unknown(cron):
            return [], f"{where}.schedule is unknown during preview"
        if sub.undetermined or not isinstance(cron, str) or seconds is None or size is None:
            return [], "; ".join(sub.undetermined) or f"{where} is not a whole schedule"
        try:
            windows += cron_windows(cron, seconds, size)
        except ScheduleError as exc:
            return [], f"{where}: {exc}"
        if len(windows) > MAX_CHANGES:
            return [], f"more than {MAX_CHANGES:,} scheduled windows a week"
    return windows, None


@sizes(*types.GCP_RESIZE_REQUESTS)
def resize_request(r: Reading) -> Scaler | None:
    """A resize request adds ``resizeBy`` VMs to the managed instance group it names, all at
    once when capacity is found, for up to its requested run duration: the group holds that
    many more, expected and at most."""
    adds = r.count("resizeBy", where="resizeBy")
    if adds is None and r.get("resizeBy") is None:
        r.undetermined.append("its resizeBy is not set")
    return Scaler(
        "instanceGroupManager",
        None,
        None,
        active=False,
        undetermined=tuple(r.undetermined),
        bounds=False,
        must_link=True,
        adds=adds or 0.0,
    )


# GKE's defaults: a node's machine type, and the zones of a regional cluster.
GKE_DEFAULT_MACHINE = "e2-medium"
GKE_REGIONAL_ZONES = 3


def _zones(r: Reading, node_locations: Any, location: Any) -> tuple[float, str | None]:
    """How many zones a node pool's per-zone counts apply to, and a note when assumed."""
    if is_unknown(node_locations):
        r.unknown_value("nodeLocations are")
        return 1.0, None
    listed = [z for z in as_list(node_locations) if z]
    if listed:
        # A zonal cluster's node locations are its other zones: its own zone has nodes too.
        own = location if isinstance(location, str) and location.count("-") >= 2 else None
        return float(len(set(listed) | ({own} if own else set()))), None
    if isinstance(location, str) and location.count("-") >= 2:
        return 1.0, None  # a zonal cluster (its location is a zone)
    return (
        float(GKE_REGIONAL_ZONES),
        f"node counts are per zone: {GKE_REGIONAL_ZONES} zones assumed (a regional "
        "cluster's default; set nodeLocations to say)",
    )


def gke_pool(
    r: Reading, pool: Any, cluster_locations: Any, location: Any, part: str | None
) -> GpuFootprint | None:
    """One GKE node pool (a resource, or one of a cluster's): GPUs from its node config's
    machine type and guest accelerators, times its nodes in every zone."""
    p = r.within(pool)
    config = p.get("nodeConfig")
    if is_unknown(config):
        p.unknown_value("nodeConfig is")
        config = {}
    c = p.within(config)
    machine = gce_machine(c, c.get("machineType") or GKE_DEFAULT_MACHINE)
    p.absorb(c)
    locations = p.get("nodeLocations")
    zones, assumed = _zones(p, locations if locations is not None else cluster_locations, location)
    autoscaling = p.get("autoscaling")
    scales = isinstance(autoscaling, dict) and bool(autoscaling)
    if scales:
        total_most = p.count("autoscaling", "totalMaxNodeCount", where="totalMaxNodeCount")
        most = total_most
        if most is None:
            per_zone = p.count("autoscaling", "maxNodeCount", where="maxNodeCount")
            most = None if per_zone is None else per_zone * zones
        least = p.count("autoscaling", "totalMinNodeCount", where="totalMinNodeCount")
        if least is None:
            per_zone = p.count("autoscaling", "minNodeCount", where="minNodeCount")
            least = (per_zone or 0.0) * zones
        p.at_most(least, "min node count", most, "max node count")
        if total_most is None and p.get("autoscaling", "maxNodeCount") is None:
            p.undetermined.append("its autoscaling sets no max node count")
    else:
        per_zone = p.count("nodeCount", where="nodeCount")
        if per_zone is None and p.get("nodeCount") is None:
            per_zone = p.count("initialNodeCount", where="initialNodeCount")
            if per_zone is None and p.get("initialNodeCount") is None:
                per_zone = 1.0  # GKE's default
        least = most = None if per_zone is None else per_zone * zones
    spot = c.get("spot") is True or c.get("preemptible") is True
    return p.footprint(
        cloud="gcp",
        kind="GKE node pool",
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        scales_itself=scales,
        market="spot" if spot else "on_demand",
        region=_location_region(location) or gcp_region(r),
        notes=(assumed,) if assumed and machine is not None else (),
        part=part,
    )


def _location_region(location: Any) -> str | None:
    """The region of a GKE or Workbench ``location`` (a region, or a zone in one)."""
    name = _str(location)
    if name is None:
        return None
    return name.rsplit("-", 1)[0] if name.count("-") >= 2 else name


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


@reads(types.GKE_NODE_POOL, tags="nodeConfig.resourceLabels")
def gke_node_pool(r: Reading) -> GpuFootprint | None:
    """A GKE node pool: its node count or autoscaling max per zone x its zones, of its machine and
    accelerators, spot or standard."""
    return gke_pool(r, r.props, None, r.get("location"), None)


@reads(types.GKE_CLUSTER, tags="resourceLabels")
def gke_cluster(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """A GKE cluster's node pools (its default pool unless removed, or the pools it lists),
    one part each, and the GPUs node auto-provisioning may add (its resource limits)."""
    location, locations = r.get("location"), r.get("nodeLocations")
    parts = []
    pools = r.get("nodePools")
    if is_unknown(pools):
        r.unknown_value("nodePools are")
    listed = [p for p in as_list(pools) if isinstance(p, dict)]
    for index, pool in enumerate(listed):
        name = pool.get("name")
        part = name if isinstance(name, str) and name else f"nodePools[{index}]"
        parts.append(gke_pool(r, pool, locations, location, part))
    if not listed and r.get("removeDefaultNodePool") is not True:
        default = {"nodeConfig": r.get("nodeConfig"), "initialNodeCount": r.get("initialNodeCount")}
        parts.append(gke_pool(r, default, locations, location, "default-pool"))
    parts.append(_auto_provisioned(r, location))
    found = tuple(p for p in parts if p is not None)
    if not found and r.undetermined:
        unread = r.footprint(cloud="gcp", kind="GKE cluster", is_template=False)
        return (unread,) if unread is not None else None
    return found or None


def _auto_provisioned(r: Reading, location: Any) -> GpuFootprint | None:
    """GPUs node auto-provisioning may create: up to each GPU resource limit's maximum.
    Which machines it picks is GKE's choice: counted, not priced."""
    if r.get("clusterAutoscaling", "enabled") is not True:
        return None
    a = r.within({})
    machines, total = [], 0.0
    for index, limit in enumerate(as_list(r.get("clusterAutoscaling", "resourceLimits"))):
        kind = get_path(limit, "resourceType")
        if a.unreadable(kind, f"resourceLimits[{index}].resourceType"):
            continue
        gpu = GPU_OF_ACCELERATOR.get(str(kind).lower())
        if gpu is None and str(kind).lower() in ("cpu", "memory"):
            continue
        most = a.number(get_path(limit, "maximum"), f"resourceLimits[{index}].maximum", None)
        if gpu is None:
            gpu = normalize_gpu_name(str(kind))
            if gpu is None:
                a.undetermined.append(f"resourceLimits[{index}] {kind!r} is not a known GPU")
                continue
        if most:
            machines.append(Machine("gcp", f"auto-provisioned {kind}", gpu, 1))
            total += most
    if machines:
        a.undetermined.append("node auto-provisioning picks its GPU machines: not priced")
    found = a.footprint(
        cloud="gcp",
        kind="GKE node auto-provisioning",
        is_template=False,
        machines=machines,
        expected_units=0.0,
        max_units=total if machines else None,
        scales_itself=True,
        market="on_demand",
        region=_location_region(location),
        part="auto-provisioning",
    )
    return found


def _spec_machine(r: Reading, spec: Any, where: str) -> Machine | None:
    """A Vertex AI / Colab machine spec: a machine type with its accelerators, as Vertex
    spells them (``NVIDIA_TESLA_T4`` x ``acceleratorCount``)."""
    if r.unreadable(spec, where):
        return None
    kind, count = get_path(spec, "acceleratorType"), get_path(spec, "acceleratorCount")
    attached = []
    if kind not in (None, "", "ACCELERATOR_TYPE_UNSPECIFIED"):
        name = kind.lower().replace("_", "-") if isinstance(kind, str) else kind
        attached = [{"type": name, "count": 1 if count is None else count}]
    sub = r.within({"guestAccelerators": attached} if attached else {})
    machine = gce_machine(sub, get_path(spec, "machineType"))
    r.absorb(sub)
    return machine


_VERTEX_NOTE = "priced at Compute Engine rates: Vertex AI bills its own, higher"


def _replicas(r: Reading, machine: Machine | None, part: str | None, **where: Any) -> Any:
    least = r.number(where["least"], "minReplicaCount", 1.0, whole=True)
    most = r.number(where["most"], "maxReplicaCount", least, whole=True)
    r.at_most(least, "min replica count", most, "max replica count")
    return r.footprint(
        cloud="gcp",
        kind=where["kind"],
        is_template=False,
        machines=[machine],
        expected_units=least,
        max_units=most,
        scales_itself=most is not None and least is not None and most > least,
        market="on_demand",
        region=gcp_region(r),
        notes=(_VERTEX_NOTE,),
        part=part,
    )


@reads(types.VERTEX_DEPLOYMENT_RESOURCE_POOL)
def vertex_deployment_pool(r: Reading) -> GpuFootprint | None:
    """A Vertex AI deployment resource pool: min / max replicas of its machine spec (priced at
    Compute Engine rates)."""
    dedicated = ("dedicatedResources",)
    machine = _spec_machine(r, r.get(*dedicated, "machineSpec"), "machineSpec")
    return _replicas(
        r,
        machine,
        None,
        kind="Vertex AI deployment resource pool",
        least=r.get(*dedicated, "minReplicaCount"),
        most=r.get(*dedicated, "maxReplicaCount"),
    )


@reads(types.VERTEX_MODEL_GARDEN_ENDPOINT)
def vertex_model_garden_endpoint(r: Reading) -> GpuFootprint | None:
    """An endpoint with a Model Garden model deployed on dedicated resources: replicas of its
    machine spec (several hosts each for a multi-host GPU deployment), on Spot if asked. With
    no dedicated resources, Model Garden deploys on the model's default machines, which the
    model's card says and gpufleet does not know."""
    dedicated = ("deployConfig", "dedicatedResources")
    resources = r.get(*dedicated)
    if resources is None or r.unreadable(resources, "deployConfig.dedicatedResources"):
        if resources is None:
            r.undetermined.append(
                "it sets no deployConfig.dedicatedResources: Model Garden deploys the model on "
                "its default machines, which gpufleet does not know (set the machine spec)"
            )
        return r.footprint(cloud="gcp", kind="Vertex AI Model Garden endpoint", is_template=False)
    spec = ("deployConfig", "dedicatedResources", "machineSpec")
    machine = _spec_machine(r, r.get(*spec), "machineSpec")
    hosts = r.number(
        r.get(*spec, "multihostGpuNodeCount"), "multihostGpuNodeCount", 1.0, whole=True
    )
    found = _replicas(
        r,
        machine,
        None,
        kind="Vertex AI Model Garden endpoint",
        least=r.get(*dedicated, "minReplicaCount"),
        most=r.get(*dedicated, "maxReplicaCount"),
    )
    if found is None:
        return None
    per_replica = hosts or 1.0
    return replace(
        found,
        expected_units=None if found.expected_units is None else found.expected_units * per_replica,
        max_units=None if found.max_units is None else found.max_units * per_replica,
        market="spot" if r.get(*dedicated, "spot") is True else "on_demand",
    )


@reads(types.VERTEX_PERSISTENT_RESOURCE)
def vertex_persistent_resource(r: Reading) -> tuple[GpuFootprint, ...] | None:
    """A Vertex AI persistent resource: each pool's replicas (or autoscaling max) of its machine
    spec, a part per pool."""
    parts = []
    for index, pool in enumerate(as_list(r.get("resourcePools"))):
        p = r.within(pool)
        machine = _spec_machine(p, p.get("machineSpec"), f"resourcePools[{index}].machineSpec")
        count = p.get("replicaCount")
        scaling = p.get("autoscalingSpec")
        name = p.get("id")
        found = _replicas(
            p,
            machine,
            name if isinstance(name, str) and name else f"resourcePools[{index}]",
            kind="Vertex AI persistent resource pool",
            least=get_path(scaling, "minReplicaCount") if scaling else count,
            most=get_path(scaling, "maxReplicaCount") if scaling else count,
        )
        if found is not None:
            parts.append(found)
    return tuple(parts) or None


@reads(types.WORKBENCH_INSTANCE)
def workbench_instance(r: Reading) -> GpuFootprint | None:
    """A Vertex AI Workbench instance: one machine with its accelerators unless stopped."""
    setup = r.get("gceSetup")
    accelerators = [
        {"type": str(a.get("type", "")).lower().replace("_", "-"), "count": a.get("coreCount")}
        for a in as_list(get_path(setup, "acceleratorConfigs"))
        if isinstance(a, dict)
    ]
    sub = r.within({"guestAccelerators": accelerators} if accelerators else {})
    machine = gce_machine(sub, get_path(setup, "machineType") or "e2-standard-4")
    r.absorb(sub)
    stopped = r.get("desiredState") in ("STOPPED", "SUSPENDED")
    return r.footprint(
        cloud="gcp",
        kind="Workbench instance",
        is_template=False,
        machines=[machine],
        expected_units=0.0 if stopped else 1.0,
        max_units=1.0,
        market="on_demand",
        region=_location_region(r.get("location")) or gcp_region(r),
    )
