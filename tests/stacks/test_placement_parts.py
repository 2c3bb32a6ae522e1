"""Which components build a placement: by the capacity its base needs (managed service,
multi-node job, reserved base, anything else) and a fleet for its burst, each the preferred
component that realizes it with the placement's pricing; docs/stacks.md's table says the same."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.capabilities import CAPABILITIES, PlacementKind, component_for
from gpufleet.planner.managed_services import MANAGED_SERVICES, Managed
from gpufleet.planner.plan import Burst, Placement
from gpufleet.pricing_models import Pricing
from gpufleet.stacks.placement_parts import placement_parts
from gpufleet.workload_kinds import Kind
from tests.helpers import ROOT, make_offer


def placement(
    cloud: Cloud,
    *,
    kind: Kind = "batch",
    instances: int = 1,
    pricing: Pricing = "spot",
    managed: Managed | None = None,
    burst: int = 0,
) -> Placement:
    return Placement(
        name="w",
        kind=kind,
        managed=managed,
        offer=make_offer(cloud=cloud),
        instance_type="x",
        instances=instances,
        pricing=pricing,
        hourly_usd=1.0,
        hours_per_month=730,
        monthly_usd=730.0,
        baseline_monthly_usd=730.0,
        burst=Burst(burst, "spot", 1.0, 100, 100.0) if burst else None,
    )


def parts(p: Placement) -> list[tuple[str, int, str]]:
    return [(part.component, part.instances, part.pricing) for part in placement_parts(p)]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_each_placement_on_each_cloud(cloud: Cloud) -> None:
    fleet = component_for(cloud, "fleet", "spot").name
    assert parts(placement(cloud)) == [(fleet, 1, "spot")]
    assert parts(placement(cloud, kind="training", instances=4)) == [
        (component_for(cloud, "multi_node", "spot").name, 4, "spot")
    ]
    assert parts(
        placement(cloud, kind="inference", instances=2, pricing="reserved_1y", burst=3)
    ) == [
        (component_for(cloud, "reserved", "reserved_1y").name, 2, "reserved_1y"),
        (fleet, 3, "spot"),
    ]
    # Inference replicas are not a multi-node job, however many.
    assert parts(placement(cloud, kind="inference", instances=4, pricing="on_demand")) == [
        (component_for(cloud, "fleet", "on_demand").name, 4, "on_demand")
    ]


@pytest.mark.parametrize("service", list(MANAGED_SERVICES))
def test_a_managed_service_builds_its_own_capacity(service: Managed) -> None:
    cloud = MANAGED_SERVICES[service].cloud
    managed = placement(cloud, kind="training", instances=2, managed=service)
    assert parts(managed) == [(component_for(cloud, service, "spot").name, 2, "spot")]


ROLES_IN_DOCS: dict[str, PlacementKind | None] = {
    "managed service": None,
    "multi-node job": "multi_node",
    "reserved (always-on base)": "reserved",
    "anything else, and the burst above an always-on base": "fleet",
}


def test_the_docs_placement_table_is_the_registry() -> None:
    page = (ROOT / "docs" / "stacks.md").read_text()
    table = page.split("| placement | AWS | GCP | Azure |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1:-1] for line in table.strip().splitlines()[1:]]
    assert [cells[0].strip() for cells in rows] == list(ROLES_IN_DOCS)
    for cells in rows:
        role = ROLES_IN_DOCS[cells[0].strip()]
        for cloud, cell in zip(CLOUDS, cells[1:], strict=True):
            named = re.findall(r"`(\w+)`", cell)
            if role is None:
                services: list[Managed] = [
                    s for s, m in MANAGED_SERVICES.items() if m.cloud == cloud
                ]
                expected = [component_for(cloud, s, "spot").name.split(":")[1] for s in services]
            else:
                pricing: Pricing = "reserved_1y" if role == "reserved" else "spot"
                expected = [component_for(cloud, role, pricing).name.split(":")[1]]
            assert named == expected, (cells[0], cloud)


def test_several_components_may_serve_a_placement_the_preferred_one_builds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two components realize a fleet on GCP: the lower preference builds it, unless the
    workload names the other (``runs_on``); one that realizes no placement is never chosen."""
    spot_group = CAPABILITIES["gcp:SpotGroup"]
    monkeypatch.setitem(
        CAPABILITIES, "gcp:OtherGroup", replace(spot_group, name="gcp:OtherGroup", preference=-1)
    )
    monkeypatch.setitem(
        CAPABILITIES,
        "gcp:DirectOnly",
        replace(spot_group, name="gcp:DirectOnly", realizes=frozenset(), preference=-2),
    )
    assert parts(placement("gcp")) == [("gcp:OtherGroup", 1, "spot")]
    chosen = replace(placement("gcp"), runs_on="gcp:SpotGroup")
    assert parts(chosen) == [("gcp:SpotGroup", 1, "spot")]
    with pytest.raises(LookupError, match="gcp:DirectOnly does not build fleet capacity"):
        placement_parts(replace(placement("gcp"), runs_on="gcp:DirectOnly"))


def test_the_spec_example_names_every_managed_service() -> None:
    """docs/spec.md's ``managed:`` line lists each service with the kinds it runs."""
    page = (ROOT / "docs" / "spec.md").read_text()
    (line,) = [x for x in page.splitlines() if x.strip().startswith("managed: sagemaker")]
    for name, service in MANAGED_SERVICES.items():
        said = re.search(rf"\b{name} \(([^)]*)\)", line)
        assert said is not None, f"the spec reference's managed: line does not name {name}"
        assert set(said[1].split(", ")) == set(service.kinds), (name, said[1])
