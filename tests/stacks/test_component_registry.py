"""Every registered component, end to end, with no test of its own needed here: built by the
stack program from a stack config, its GPUs seen by the policies, its exported ids resolved.

A component added to the registry is picked up by these tests as it is; one whose GPUs sit in
a resource type the policies do not read, or whose outputs the offline engine does not
answer, fails them.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace

import pulumi
import pytest

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.capacity.cost_engine import price_stack
from gpufleet.capacity.stack_capacity import stack_capacity
from gpufleet.capacity.stack_resource import StackResource, stack_resources
from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.capture import capture_program, resolve
from gpufleet.planner.capabilities import CAPABILITIES, PLACEMENT_KINDS, component_for
from gpufleet.planner.catalog import Offer, load_catalog
from gpufleet.planner.gcp_machines import ACCELERATOR_TYPES, takes_attached_gpus
from gpufleet.planner.gpus import GPUS
from gpufleet.planner.interconnect import supports_multi_node
from gpufleet.planner.managed_services import MANAGED_SERVICES
from gpufleet.planner.pricing import sagemaker_markup
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.pricing_models import (
    HOURS_PER_MONTH,
    LOW_PRIORITY,
    PRICING_ORDER,
    TERM_OF_PRICING,
    Pricing,
    is_commitment,
)
from gpufleet.stacks.component_registry import COMPONENTS, UNBUILT, ComponentEntry
from gpufleet.stacks.program import build_stack
from gpufleet.stacks.stack_config import (
    Limits,
    Part,
    ProviderSetting,
    Site,
    StackConfigError,
    StackSettings,
    WorkloadPlacement,
)
from tests.helpers import ROOT
from tests.stacks.probe_site import probe_site

INSTANCES = 2


def test_every_capability_has_a_builder_and_a_component_class() -> None:
    """What a component can realize and how it is built are two registries, joined by name:
    one without the other is named here."""
    assert not UNBUILT, f"capabilities without a builder, or builders without one: {UNBUILT}"
    for name, capability in CAPABILITIES.items():
        module = importlib.import_module(capability.module)
        component = getattr(module, name.split(":", 1)[1], None)
        assert component is not None, f"{capability.module} defines no {name.split(':')[1]}"
        assert issubclass(component, pulumi.ComponentResource), name


def test_every_component_has_its_row_in_the_docs() -> None:
    """Each cloud's table in docs/components.md lists every component of that cloud (and
    no other): what it builds, its main arguments, its outputs."""
    page = (ROOT / "docs" / "components.md").read_text(encoding="utf-8")
    for cloud in CLOUDS:
        section = page.split(f"(`components/{cloud}/`)", 1)[1].split("\n#", 1)[0]
        listed = re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)
        expected = [n.split(":", 1)[1] for n, c in CAPABILITIES.items() if c.cloud == cloud]
        assert sorted(listed) == sorted(expected), (cloud, listed, expected)


def test_every_placement_is_built_on_every_cloud_and_every_service_at_home() -> None:
    """Each kind of placement, with each pricing some cloud builds it with, has a component on
    every cloud (the planner places on any); a managed service's capacity has one on its own
    cloud, with spot and on-demand (the spec may say it must not be interrupted)."""
    for kind in PLACEMENT_KINDS:
        pricings: set[Pricing] = {
            p for c in CAPABILITIES.values() if kind in c.realizes for p in c.pricings
        }
        assert pricings, f"no component realizes {kind}"
        for cloud in CLOUDS:
            for pricing in pricings:
                component_for(cloud, kind, pricing)  # LookupError names what is missing
    for name, service in MANAGED_SERVICES.items():
        market: list[Pricing] = [p for p in PRICING_ORDER if not is_commitment(p)]
        for pricing in market:
            assert component_for(service.cloud, name, pricing).managed == name


def test_an_unknown_component_name_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="unknown component 'aws:Nope'; gpufleet has: aws:"):
        Part(component="aws:Nope", instances=1, pricing="spot")


def _offer_for(entry: ComponentEntry, attached: bool = False) -> Offer:
    """A catalog offer the component can build, for its first role; with ``attached``, one
    whose GPUs are attached to the machine (GCP N1)."""
    capability = entry.capability

    def fits(offer: Offer) -> bool:
        if offer.cloud != entry.capability.cloud or not GPUS[offer.gpu_name].auto:
            return False
        if takes_attached_gpus(offer.instance_type) != attached:
            return False
        if capability.realizes == {"multi_node"}:
            return supports_multi_node(offer.cloud, offer.instance_type)
        if capability.managed == "sagemaker":
            return sagemaker_markup(offer.instance_type) is not None
        return True

    offers = sorted(
        (o for o in load_catalog().offers if fits(o)),
        key=lambda o: (o.gpu_count, o.instance_type, o.region, o.zone),
    )
    assert offers, (
        f"no catalog offer on {entry.capability.cloud} that {entry.capability.name} can build"
        f"{' with attached GPUs' if attached else ''}: add one to the catalog, or say in "
        "planner/capabilities.py what it realizes"
    )
    return offers[0]


def _site(offer: Offer, entry: ComponentEntry) -> Site:
    """Site settings for the offer's region, of only the clouds whose settings the entry says
    its component needs: a build that reads more fails, so the entry's site keys stay true."""
    needed = {key.split(".", 1)[0].removeprefix("site:") for key in entry.capability.site_keys}
    return probe_site(offer, [c for c in CLOUDS if c in needed])


def _settings(entry: ComponentEntry, offer: Offer, pricing: Pricing | None = None) -> StackSettings:
    capability = entry.capability
    sagemaker = capability.managed == "sagemaker"
    workload = WorkloadPlacement(
        name="probe",
        kind="inference" if capability.realizes & {"reserved", "fleet"} else "training",
        cloud=entry.capability.cloud,
        region=offer.region,
        zone=offer.zone,
        instance_type=f"ml.{offer.instance_type}" if sagemaker else offer.instance_type,
        gpu=offer.gpu_name,
        gpus_per_instance=offer.gpu_count,
        provider="probe-provider",
        parts=[
            Part(
                component=entry.capability.name,
                instances=INSTANCES,
                pricing=pricing or min(capability.pricings, key=PRICING_ORDER.index),
            )
        ],
        monthly_usd=0.0,
    )
    return StackSettings(
        environment="prod",
        project="probe",
        owner="team@example.com",
        cost_center="cc-1",
        catalog_as_of="2026-01-01",
        limits=Limits(allow_on_demand=True, max_commitment="3y"),
        providers=[
            ProviderSetting(
                name="probe-provider", cloud=entry.capability.cloud, region=offer.region
            )
        ],
        workloads=[workload],
    )


# Every component, and again with attached GPUs where a cloud has them (GCP N1 hosts) and the
# component's placement can use them (multi-node jobs need cluster networking, which N1 lacks).
CASES = [(name, False) for name in COMPONENTS] + [
    (name, True)
    for name, entry in COMPONENTS.items()
    if entry.capability.cloud == "gcp" and "multi_node" not in entry.capability.realizes
]


@pytest.mark.parametrize(("name", "attached"), CASES)
def test_component_built_from_a_stack_config_is_seen_by_the_policies(
    name: str, attached: bool
) -> None:
    assert_built_and_seen(COMPONENTS[name], attached)


def test_a_component_no_placement_chooses_is_built_and_seen_like_the_rest() -> None:
    """Used directly from a program, realizing no placement of the planner's: legal, and held
    to the same checks (built from a config naming it, its GPUs seen)."""
    entry = COMPONENTS["gcp:SpotGroup"]
    direct = ComponentEntry(replace(entry.capability, realizes=frozenset()), entry.build)
    assert_built_and_seen(direct, attached=False)


def assert_built_and_seen(entry: ComponentEntry, attached: bool) -> None:
    name = entry.capability.name
    component_class = getattr(importlib.import_module(entry.capability.module), name.split(":")[1])
    assert issubclass(component_class, pulumi.ComponentResource)
    offer = _offer_for(entry, attached)
    settings = _settings(entry, offer)
    result = capture_program(lambda: build_stack(settings, _site(offer, entry)))
    capture = result.capture
    assert [r.name for r in capture.registrations if r.type == entry.capability.type_token] == [
        "probe"
    ]
    # Every id the stack exports is a real value under the offline engine.
    (part,) = result.value["probe"]["parts"]
    assert part["component"] == name
    for key, value in part.items():
        assert resolve(value) not in (None, ""), key
    # The policies see at least the GPUs the part asked for, and nothing undetermined.
    resources = [
        StackResource(
            r.type,
            r.name,
            r.urn,
            r.state,
            r.provider.properties if r.provider else {},
            r.parent,
            r.property_dependencies,
        )
        for r in from_capture(capture)
    ]
    capacity = [c.footprint for c in stack_capacity(resources)]
    assert capacity, f"{name}: no GPU capacity seen"
    assert all(not f.undetermined for f in capacity), [f.undetermined for f in capacity]
    # A component whose runs start outside the stack (a job template) is seen, as such.
    assert all(f.outside_stack is not entry.capability.holds_gpus for f in capacity)
    seen = sum(f.max_gpus or 0 for f in capacity if f.market != "in_reservation")
    assert seen >= INSTANCES * offer.gpu_count


def test_component_for_names_what_is_missing() -> None:
    with pytest.raises(LookupError, match="no component builds sagemaker capacity on gcp"):
        component_for("gcp", "sagemaker", "spot")
    with pytest.raises(LookupError, match="no component builds reserved capacity on aws priced"):
        component_for("aws", "reserved", "spot")
    with pytest.raises(LookupError, match="aws:SpotFleet does not build reserved capacity"):
        component_for("aws", "reserved", "reserved_1y", chosen="aws:SpotFleet")


def test_a_spot_fleet_in_one_zone_is_refused() -> None:
    """The plan prices a spot fleet over the region's zones: subnets all in one zone would
    pay that zone's price, or find no spot there; the builder says so instead."""
    entry = COMPONENTS["aws:SpotFleet"]
    offer = _offer_for(entry)
    site = _site(offer, entry)
    aws = site.aws()
    region = aws.regions[offer.region]
    one_zone = region.model_copy(update={"subnets": region.subnets[:1]})
    narrowed = replace(site, aws_site=aws.model_copy(update={"regions": {offer.region: one_zone}}))
    settings = _settings(entry, offer, "spot")
    with pytest.raises(StackConfigError, match="needs subnets in at least two of them"):
        capture_program(lambda: build_stack(settings, narrowed))
    # On-demand costs the same in every zone: one is enough.
    capture_program(lambda: build_stack(_settings(entry, offer, "on_demand"), narrowed))


def _held(cloud: Cloud, offer: Offer, machine: str, pricing: Pricing) -> list[HeldCommitment]:
    """A commitment that pays for all of a reserved probe (none for other pricings): a
    reservation is at its committed rate only when one is held."""
    if not is_commitment(pricing):
        return []
    term = TERM_OF_PRICING[pricing]
    if cloud == "gcp":
        gpus = {ACCELERATOR_TYPES[offer.gpu_name]: 1000.0}
        return [
            HeldCommitment(
                cloud,
                "cud",
                term,
                "resources",
                offer.region,
                accelerators=gpus,
                vcpus=1e6,
                memory_gib=1e7,
            )
        ]
    return [
        HeldCommitment(
            cloud, "held", term, "instances", offer.region, instance_type=machine, count=1000
        )
    ]


@pytest.mark.parametrize(
    ("name", "pricing"),
    [(name, p) for name, entry in COMPONENTS.items() for p in sorted(entry.capability.pricings)],
)
def test_every_component_is_priced_under_every_pricing_model_it_builds(
    name: str, pricing: Pricing
) -> None:
    """The cost engine reads each component's capacity at the rate the plan's pricing model
    gives it (``planner.rates``), at its full size, for 730 h or one run."""
    entry = COMPONENTS[name]
    offer = _offer_for(entry)
    settings = _settings(entry, offer, pricing)
    capture = capture_program(lambda: build_stack(settings, _site(offer, entry))).capture
    held = _held(entry.capability.cloud, offer, settings.workloads[0].instance_type, pricing)
    cost = price_stack(
        stack_resources(from_capture(capture)), shipped_rate_card(), commitments=held
    )
    lines = [r for r in cost.resources if r.pricing != "in_reservation"]
    assert lines, (
        f"{name}: nothing priced: the policies read no GPUs of {entry.capability.type_token} "
        "or of what it builds (CONTRIBUTING, Add a resource type: capacity/footprints/<cloud>.py)"
    )
    (workload,) = cost.workloads
    assert workload.name == "probe"
    machine = settings.workloads[0].instance_type
    attached = (offer.gpu_name, offer.gpu_count) if entry.capability.cloud == "gcp" else None
    rate = shipped_rate_card().rate(
        entry.capability.cloud, machine, offer.region, pricing, attached
    )
    assert rate is not None and rate.estimated is None
    for line in lines:
        assert line.unpriced is None and line.rate_usd == pytest.approx(rate.hourly), line
        assert line.pricing.split()[0] in (pricing, LOW_PRIORITY), line.pricing
        most = line.maximum
        assert line.per_run or most.hours == HOURS_PER_MONTH
        assert most.monthly_usd == pytest.approx((most.instances or 0) * rate.hourly * most.hours)
    # All its instances (a cluster's nodes may be separate VMs), and no more.
    assert sum(line.maximum.instances or 0 for line in lines) == INSTANCES
