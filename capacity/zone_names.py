"""Which catalog zone a resource's capacity runs in, from what the stack says of its zones.

The catalog names AWS zones by AZ id (``use1-az4``: the same physical zone in every account).
AWS resources name AZ names (``us-east-1a``, mapped to ids per account) or subnets (ids, whose
zone the subnet knows). The stack maps them: its own subnet resources (each one's
``availabilityZoneId``), and the ``site:aws`` settings a generated stack is built from (each
subnet's ``id``, ``zoneId`` and ``zone``). GCP resources name catalog zones themselves; Azure
prices per region. A zone nothing maps is not known: pinned spot capacity there is priced at
the region's dearest zone, marked estimated (``planner.rates``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpufleet.capacity.footprints.model import GpuFootprint
from gpufleet.capacity.property_values import as_list, is_unknown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.resource_types import AWS_SUBNETS


@dataclass(frozen=True)
class ZoneNames:
    subnet_zones: Mapping[str, str] = field(default_factory=dict)  # subnet id -> AZ id
    zone_ids: Mapping[str, str] = field(default_factory=dict)  # AZ name -> AZ id

    def catalog_zone(self, footprint: GpuFootprint) -> str | None:
        """The catalog zone ``footprint`` runs in, when its settings say and the stack maps
        them; None otherwise."""
        zone = footprint.zone
        if footprint.cloud != "aws":
            return zone
        if zone is not None:
            return zone if is_zone_id(zone) else self.zone_ids.get(zone)
        found = {self.subnet_zones.get(s) for s in footprint.subnets}
        return found.pop() if len(found) == 1 else None

    def merged(self, other: ZoneNames) -> ZoneNames:
        """Both maps, ``self``'s first."""
        return ZoneNames(
            {**other.subnet_zones, **self.subnet_zones}, {**other.zone_ids, **self.zone_ids}
        )


NO_ZONE_NAMES = ZoneNames()


def is_zone_id(zone: str) -> bool:
    """An AWS AZ id (``use1-az4``, ``usw2-lax1-az1``) rather than a name (``us-east-1a``)."""
    return zone[-1:].isdigit() and "-az" in zone


def site_zone_names(site_aws: Any) -> ZoneNames:
    """The subnets of the ``site:aws`` settings (parsed JSON): ``regions.<r>.subnets[]`` with
    ``id``, ``zoneId`` and ``zone``. Entries that are not that shape are left out (the stack
    config's own validation names them)."""
    subnets: dict[str, str] = {}
    names: dict[str, str] = {}
    regions = site_aws.get("regions") if isinstance(site_aws, dict) else None
    for region in regions.values() if isinstance(regions, dict) else ():
        for subnet in as_list(region.get("subnets")) if isinstance(region, dict) else ():
            if not isinstance(subnet, dict):
                continue
            zone_id, sid, name = subnet.get("zoneId"), subnet.get("id"), subnet.get("zone")
            if not isinstance(zone_id, str) or not zone_id:
                continue
            if isinstance(sid, str) and sid:
                subnets[sid] = zone_id
            if isinstance(name, str) and name:
                names[name] = zone_id
    return ZoneNames(subnets, names)


def stack_zone_names(resources: Iterable[StackResource]) -> ZoneNames:
    """The subnets the stack holds as resources, with the zone ids they report."""
    subnets: dict[str, str] = {}
    names: dict[str, str] = {}
    for r in resources:
        if r.type not in AWS_SUBNETS:
            continue
        zone_id, sid, name = (
            r.props.get(k) for k in ("availabilityZoneId", "id", "availabilityZone")
        )
        if not isinstance(zone_id, str) or not zone_id or is_unknown(zone_id):
            continue
        if isinstance(sid, str) and sid and not is_unknown(sid):
            subnets[sid] = zone_id
        if isinstance(name, str) and name and not is_unknown(name):
            names[name] = zone_id
    return ZoneNames(subnets, names)
