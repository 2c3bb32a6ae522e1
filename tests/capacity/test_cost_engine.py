"""The cost engine on resources as users write them with the provider SDKs (no gpufleet
component), captured offline: every pricing model, weighted capacity, expected and maximum
figures, rates outside their region, unknown types, workloads, and what is not priced. Prices
are checked against the catalog's rows through the rate card, never against the engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_azure_native as azure
import pulumi_gcp as gcp
import pytest

from gpufleet.capacity.commitments import HeldCommitment
from gpufleet.capacity.cost_engine import (
    UNKNOWN_USE,
    ResourceCost,
    StackCost,
    Usage,
    price_stack,
    resource_settings,
)
from gpufleet.capacity.stack_capacity import StackCapacity
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.capacity.zone_names import site_zone_names
from gpufleet.components.aws.sagemaker_spot_training import (
    SageMakerSpotTraining,
    SageMakerSpotTrainingArgs,
)
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.capture import capture_program
from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.pricing import DEFAULT_COMMITMENT_DISCOUNTS
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.pricing_models import HOURS_PER_MONTH, PRICING_OF_TERM
from tests.components.component_checks import TAGS as REQUIRED

TAGS = {"project": "p", "owner": "o", "cost-center": "c", "environment": "dev"}
CONFIG = {"aws:region": "us-east-1", "gcp:project": "acme", "gcp:region": "us-central1"}


def price(program: Callable[[], Any], *, preview: bool = False, **kw: Any) -> StackCost:
    captured = capture_program(program, config=CONFIG, preview=preview).capture
    return price_stack(stack_resources(from_capture(captured)), shipped_rate_card(), **kw)


def line(cost: StackCost, name: str) -> ResourceCost:
    (found,) = [r for r in cost.resources if r.name == name]
    return found


def catalog_rows(cloud: str, instance_type: str, region: str) -> list[Any]:
    return [
        o
        for o in load_catalog().offers
        if (o.cloud, o.instance_type, o.region) == (cloud, instance_type, region)
    ]


def on_demand(cloud: str, instance_type: str, region: str) -> float:
    return catalog_rows(cloud, instance_type, region)[0].on_demand_hourly


def spot(cloud: str, instance_type: str, region: str) -> float:
    prices = [o.spot_hourly for o in catalog_rows(cloud, instance_type, region) if o.spot_hourly]
    return sum(prices) / len(prices)


# --- AWS -------------------------------------------------------------------------------------


def test_an_on_demand_instance_is_rate_times_730_hours() -> None:
    cost = price(
        lambda: aws.ec2.Instance("trainer", instance_type="p5.48xlarge", ami="ami-1", tags=TAGS)
    )
    trainer = line(cost, "trainer")
    rate = on_demand("aws", "p5.48xlarge", "us-east-1")
    assert (trainer.pricing, trainer.rate_usd, trainer.region) == ("on_demand", rate, "us-east-1")
    assert trainer.expected.monthly_usd == pytest.approx(rate * HOURS_PER_MONTH)
    assert trainer.expected == trainer.maximum
    assert cost.total("expected") == pytest.approx(rate * HOURS_PER_MONTH)


def spot_group(subnets: list[str], *, subnet_zone: str | None = None) -> Callable[[], None]:
    """A spot group of one p4d.24xlarge in ``subnets``; ``subnet_zone``: a subnet resource of
    the stack, ``subnet-in-stack``, in that AZ id."""

    def program() -> None:
        if subnet_zone is not None:
            aws.ec2.Subnet(
                "mine", vpc_id="vpc-1", cidr_block="10.0.0.0/24", availability_zone_id=subnet_zone
            )
        template = aws.ec2.LaunchTemplate(
            "workers",
            image_id="ami-1",
            instance_type="p4d.24xlarge",
            instance_market_options={"market_type": "spot"},
            tags=TAGS,
        )
        aws.autoscaling.Group(
            "evals",
            desired_capacity=1,
            min_size=1,
            max_size=1,
            vpc_zone_identifiers=subnets,
            launch_template={"id": template.id},
            tags=[{"key": "workload", "value": "evals", "propagate_at_launch": True}],
        )

    return program


def test_a_group_in_one_subnet_pays_its_zones_spot_price() -> None:
    """AWS prices spot per zone: a group in one subnet pays that subnet's zone's price, which
    the site settings (``site:aws``) say; over several subnets, the mean of the zones with
    an offer; in one subnet nothing maps, the dearest zone's, marked estimated."""
    rows = [o for o in catalog_rows("aws", "p4d.24xlarge", "us-east-1") if o.spot_hourly]
    assert len({o.spot_hourly for o in rows}) > 1, "needs zones priced apart"
    cheapest = min(rows, key=lambda o: o.spot_hourly or 0.0)
    site = site_zone_names(
        {"regions": {"us-east-1": {"subnets": [{"id": "subnet-9", "zoneId": cheapest.zone}]}}}
    )
    pinned = line(price(spot_group(["subnet-9"]), zones=site), "evals")
    assert (pinned.pricing, pinned.rate_usd, pinned.estimated) == (
        "spot",
        cheapest.spot_hourly,
        (),
    )
    spanning = line(price(spot_group(["subnet-9", "subnet-8"]), zones=site), "evals")
    assert spanning.rate_usd == pytest.approx(spot("aws", "p4d.24xlarge", "us-east-1"))
    unknown = line(price(spot_group(["subnet-7"]), zones=site), "evals")
    assert unknown.rate_usd == max(o.spot_hourly or 0.0 for o in rows)
    assert unknown.estimated and "which its settings do not name" in unknown.estimated[0]


def test_a_subnet_of_the_stack_says_its_zone_and_a_zone_without_spot_is_estimated() -> None:
    """The stack's own subnet resource maps its id to its zone (an export's ids are known; in
    a preview the id is not, so the zone is not either); a zone that offers the machine but
    not on spot is priced at the dearest zone, marked so."""
    offered = catalog_rows("aws", "p4d.24xlarge", "us-east-1")
    with_spot = [o for o in offered if o.spot_hourly]
    mapped = site_zone_names(
        {"regions": {"r": {"subnets": [{"id": "subnet-1", "zoneId": "use1-az99"}]}}}
    )
    odd = line(price(spot_group(["subnet-1"]), zones=mapped), "evals")
    assert odd.rate_usd == max(o.spot_hourly or 0.0 for o in with_spot)
    assert odd.estimated and "zone use1-az99 is not in the catalog" in odd.estimated[0]
    # The offline engine gives a subnet an id; the stack's own subnet maps it to its zone.
    cheapest = min(with_spot, key=lambda o: o.spot_hourly or 0.0)
    captured = capture_program(
        spot_group(["placeholder"], subnet_zone=cheapest.zone), config=CONFIG
    ).capture
    resources = stack_resources(from_capture(captured))
    (subnet,) = [r for r in resources if r.type == "aws:ec2/subnet:Subnet"]
    subnet_id = subnet.props.get("id")
    assert isinstance(subnet_id, str)
    for r in resources:
        if r.type == "aws:autoscaling/group:Group":
            r.props["vpcZoneIdentifiers"] = [subnet_id]
    found = line(price_stack(resources, shipped_rate_card()), "evals")
    assert (found.rate_usd, found.estimated) == (cheapest.spot_hourly, ())


def weighted_group(desired: int, most: int, **distribution: Any) -> Callable[[], None]:
    def program() -> None:
        template = aws.ec2.LaunchTemplate("workers", image_id="ami-1", tags=TAGS)
        aws.autoscaling.Group(
            "evals",
            desired_capacity_type="units",
            desired_capacity=desired,
            min_size=0,
            max_size=most,
            # Two subnets: it may run in either zone, so spot is the region's mean.
            vpc_zone_identifiers=["subnet-1", "subnet-2"],
            mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
                instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
                    **distribution
                ),
                launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
                    launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                        launch_template_id=template.id
                    ),
                    overrides=[
                        aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                            instance_type="p4d.24xlarge", weighted_capacity="8"
                        )
                    ],
                ),
            ),
            tags=[
                aws.autoscaling.GroupTagArgs(
                    key="workload", value="evals", propagate_at_launch=True
                )
            ],
        )

    return program


def test_a_group_counted_in_gpus_runs_gpus_over_weight_instances() -> None:
    """The issue's case: 16 GPUs of p4d.24xlarge (8 GPUs each) are two instances, not 16."""
    spot_only = {"on_demand_percentage_above_base_capacity": 0}
    evals = line(price(weighted_group(16, 16, **spot_only)), "evals")
    rate = spot("aws", "p4d.24xlarge", "us-east-1")
    assert (evals.expected.instances, evals.maximum.instances) == (2, 2)
    assert evals.pricing == "spot" and evals.rate_usd == pytest.approx(rate)
    assert evals.expected.monthly_usd == pytest.approx(2 * rate * HOURS_PER_MONTH)
    # Desired 10 GPUs: the second machine overshoots, and is paid for; max 24 GPUs: three.
    uneven = line(price(weighted_group(10, 24, **spot_only)), "evals")
    assert (uneven.expected.instances, uneven.maximum.instances) == (2, 3)


def test_a_mixed_group_pays_its_on_demand_base_and_percentage() -> None:
    """Base 8 GPUs on-demand, then half of the rest: of 32 GPUs, 20 on-demand, 12 spot."""
    mixed = line(
        price(
            weighted_group(
                32,
                32,
                on_demand_base_capacity=8,
                on_demand_percentage_above_base_capacity=50,
            )
        ),
        "evals",
    )
    od, sp = on_demand("aws", "p4d.24xlarge", "us-east-1"), spot("aws", "p4d.24xlarge", "us-east-1")
    # 20 units on-demand = 3 machines (rounded up), the rest of the 4: 1 spot machine.
    assert mixed.pricing == "mixed" and mixed.rate_usd is None
    assert mixed.expected.hourly_usd == pytest.approx(3 * od + 1 * sp)


def sagemaker_job(keep_alive_seconds: int) -> Callable[[], None]:
    def program() -> None:
        aws.sagemaker.TrainingJob(
            "ranker",
            training_job_name="ranker",
            role_arn="arn:aws:iam::123456789012:role/sm",
            enable_managed_spot_training=True,
            algorithm_specification={"training_image": "img", "training_input_mode": "File"},
            resource_config=aws.sagemaker.TrainingJobResourceConfigArgs(
                instance_type="ml.g5.12xlarge",
                instance_count=2,
                volume_size_in_gb=50,
                keep_alive_period_in_seconds=keep_alive_seconds,
            ),
            stopping_condition={
                "max_runtime_in_seconds": 36_000,
                "max_wait_time_in_seconds": 72_000,
            },
            output_data_config={"s3_output_path": "s3://b/out"},
            tags=TAGS,
        )

    return program


def test_a_sagemaker_jobs_warm_pool_bills_its_keep_alive_after_the_run() -> None:
    ranker = line(price(sagemaker_job(1800)), "ranker")
    rate = spot("aws", "g5.12xlarge", "us-east-1") * 1.40  # SageMaker's g5 markup
    assert ranker.expected.monthly_usd == pytest.approx(2 * rate * 10.5)  # 10 h, then 30 min
    assert "kept 30 min after it" in ranker.basis


@pytest.mark.parametrize("use_spot", [True, False])
def test_a_sagemaker_job_template_is_priced_at_the_market_it_says(use_spot: bool) -> None:
    """gpufleet's job template runs on spot or, for a job that must not be interrupted,
    on-demand: its own setting decides the rate, never its name."""
    args = SageMakerSpotTrainingArgs(
        tags=REQUIRED,
        instance_type="ml.g5.12xlarge",
        image_uri="123456789012.dkr.ecr.us-east-1.amazonaws.com/ranker:1",
        expected_hours=10,
        spot=use_spot,
    )
    (job,) = price(lambda: SageMakerSpotTraining("ranker", args)).resources
    market = spot if use_spot else on_demand
    rate = market("aws", "g5.12xlarge", "us-east-1") * 1.40  # SageMaker's g5 markup
    assert job.expected.monthly_usd == pytest.approx(rate * 10)
    assert job.pricing == ("spot" if use_spot else "on_demand")


def test_a_sagemaker_job_is_one_run_at_the_sagemaker_rate() -> None:
    cost = price(
        lambda: aws.sagemaker.TrainingJob(
            "ranker",
            training_job_name="ranker",
            role_arn="arn:aws:iam::123456789012:role/sm",
            enable_managed_spot_training=True,
            algorithm_specification={"training_image": "img", "training_input_mode": "File"},
            resource_config={
                "instance_type": "ml.g5.12xlarge",
                "instance_count": 2,
                "volume_size_in_gb": 50,
            },
            stopping_condition={
                "max_runtime_in_seconds": 36_000,
                "max_wait_time_in_seconds": 72_000,
            },
            output_data_config={"s3_output_path": "s3://b/out"},
            tags=TAGS,
        )
    )
    ranker = line(cost, "ranker")
    rate = spot("aws", "g5.12xlarge", "us-east-1") * 1.40  # SageMaker's g5 markup
    assert ranker.per_run and ranker.pricing == "spot per run"
    assert ranker.rate_usd == pytest.approx(rate)
    assert ranker.expected.monthly_usd == pytest.approx(2 * rate * 10)  # one 10-hour run
    assert cost.total("expected") == pytest.approx(2 * rate * 10)


def test_a_reservation_without_a_held_commitment_bills_on_demand_and_says_so() -> None:
    """A commitment tag is the plan's forecast, not a purchase: on-demand until one is held
    (tests/capacity/test_commitment_pricing.py prices the held ones)."""

    def program(commitment: str | None) -> Callable[[], object]:
        tags = {**TAGS, "commitment": commitment} if commitment else TAGS
        return lambda: aws.ec2.CapacityReservation(
            "serving",
            instance_type="g6.xlarge",
            instance_count=2,
            instance_platform="Linux/UNIX",
            availability_zone="us-east-1a",
            tags=tags,
        )

    od = on_demand("aws", "g6.xlarge", "us-east-1")
    bare = line(price(program(None)), "serving")
    assert bare.pricing == "reserved (on-demand rate)" and bare.commitment is None
    assert bare.expected.hourly_usd == pytest.approx(2 * od)
    assert "no held commitment pays for it" in bare.notes[0]
    assert bare.uncommitted_usd == 0  # nothing forecast: nothing above a forecast
    # And what buying one would save, at the catalog's commitment discounts.
    cuts = DEFAULT_COMMITMENT_DISCOUNTS["aws"]
    saved = {
        term: 2 * od * HOURS_PER_MONTH * cuts[PRICING_OF_TERM[term]] for term in PRICING_OF_TERM
    }
    assert bare.notes[0].endswith(
        f"a 1y commitment would save ${saved['1y']:,.2f}/month, "
        f"a 3y commitment would save ${saved['3y']:,.2f}/month"
    )
    three = line(price(program("3y")), "serving")
    assert (three.pricing, three.commitment, three.planned_commitment) == (
        "reserved (on-demand rate)",
        None,
        "3y",
    )
    assert three.expected.hourly_usd == pytest.approx(2 * od)
    assert three.uncommitted_usd == pytest.approx(saved["3y"])
    assert three.notes[0].startswith("its plan assumes a 3y commitment; no held commitment")
    odd = line(price(program("5y")), "serving")
    assert odd.planned_commitment is None and "is not 1y or 3y" in odd.notes[0]


def test_an_instance_outside_its_regions_catalog_is_estimated_at_its_highest_rate() -> None:
    """p5.48xlarge has no catalog price in sa-east-1: its highest catalog rate, marked."""
    cost = price(
        lambda: aws.ec2.Instance(
            "far",
            instance_type="p5.48xlarge",
            ami="ami-1",
            availability_zone="sa-east-1a",
            tags=TAGS,
        )
    )
    far = line(cost, "far")
    highest = max(
        o.on_demand_hourly for o in load_catalog().offers if o.instance_type == "p5.48xlarge"
    )
    assert far.rate_usd == highest and far.unpriced is None
    assert len(far.estimated) == 1 and "no catalog price in sa-east-1" in far.estimated[0]


def test_an_unknown_gpu_type_is_unpriced_not_zero() -> None:
    cost = price(
        lambda: aws.ec2.Instance("mystery", instance_type="p9.96xlarge", ami="ami-1", tags=TAGS)
    )
    mystery = line(cost, "mystery")
    assert mystery.expected.monthly_usd is None and mystery.maximum.monthly_usd is None
    assert mystery.unpriced == "instanceType p9.96xlarge is not in the GPU catalog (GPUs unknown)"
    assert cost.unpriced == [mystery] and cost.total("expected") == 0.0


def test_a_size_unknown_in_a_preview_is_unpriced() -> None:
    def program() -> None:
        sizes = aws.ec2.LaunchTemplate("sizes", image_id="ami-1", tags=TAGS)
        aws.ec2.Instance(
            "box", instance_type=sizes.id.apply(lambda _: "p5.48xlarge"), ami="ami-1", tags=TAGS
        )

    box = line(price(program, preview=True), "box")
    assert box.unpriced == "instanceType is unknown during preview"


def test_cpu_machines_and_other_resources_are_named_as_not_priced() -> None:
    def program() -> None:
        aws.ec2.Instance("web", instance_type="m7i.large", ami="ami-1", tags=TAGS)
        aws.s3.Bucket("ckpt", tags=TAGS)
        aws.ec2.Instance("gpu", instance_type="g6.xlarge", ami="ami-1", tags=TAGS)

    cost = price(program)
    assert [r.name for r in cost.resources] == ["gpu"]
    others = [n for n in cost.not_priced if "other resources" in n.what]
    assert len(others) == 1
    assert (
        "aws:ec2/instance:Instance" in others[0].what and "aws:s3/bucket:Bucket" in others[0].what
    )
    assert any("disks, volumes and network" in n.what for n in cost.not_priced)


# --- GCP -------------------------------------------------------------------------------------


def test_gcp_spot_instance_and_a_vm_inside_a_reservation() -> None:
    def program() -> None:
        gcp.compute.Reservation(
            "r",
            zone="us-central1-a",
            specific_reservation={
                "count": 1,
                "instance_properties": {"machine_type": "a2-highgpu-1g"},
            },
        )
        gcp.compute.Instance(
            "spot-vm",
            machine_type="a2-highgpu-1g",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
            scheduling={
                "provisioning_model": "SPOT",
                "preemptible": True,
                "automatic_restart": False,
            },
            labels={"workload": "evals"},
        )
        gcp.compute.Instance(
            "reserved-vm",
            machine_type="a2-highgpu-1g",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
            reservation_affinity={
                "type": "SPECIFIC_RESERVATION",
                "specific_reservation": {
                    "key": "compute.googleapis.com/reservation-name",
                    "values": ["r"],
                },
            },
            labels={"workload": "serving"},
        )

    cost = price(program)
    vm = line(cost, "spot-vm")
    assert vm.rate_usd == pytest.approx(spot("gcp", "a2-highgpu-1g", "us-central1"))
    assert vm.workload == "evals"
    inside = line(cost, "reserved-vm")
    assert inside.pricing == "in_reservation" and inside.expected.monthly_usd == 0.0


@pytest.mark.parametrize(
    ("reservation_machine", "why"),
    [(None, "not in this stack"), ("a2-highgpu-2g", "not in this stack for its machine")],
)
def test_gcp_vm_naming_a_reservation_the_stack_does_not_hold_pays_its_own_rate(
    reservation_machine: str | None, why: str
) -> None:
    def program() -> None:
        if reservation_machine:
            gcp.compute.Reservation(
                "r",
                zone="us-central1-a",
                specific_reservation={
                    "count": 1,
                    "instance_properties": {"machine_type": reservation_machine},
                },
            )
        gcp.compute.Instance(
            "vm",
            machine_type="a2-highgpu-1g",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
            reservation_affinity={
                "type": "SPECIFIC_RESERVATION",
                "specific_reservation": {
                    "key": "compute.googleapis.com/reservation-name",
                    "values": ["r"],
                },
            },
            labels={"workload": "serving"},
        )

    vm = line(price(program), "vm")
    assert vm.pricing == "on_demand"
    rate = on_demand("gcp", "a2-highgpu-1g", "us-central1")
    assert vm.rate_usd == pytest.approx(rate)
    assert vm.expected.monthly_usd == pytest.approx(rate * HOURS_PER_MONTH)
    assert any("runs in r" in n and why in n for n in vm.notes)


def test_gcp_group_takes_its_price_from_its_template() -> None:
    def program() -> None:
        template = gcp.compute.InstanceTemplate(
            "tpl",
            machine_type="g2-standard-4",
            disks=[{"source_image": "debian", "boot": True}],
            network_interfaces=[{"network": "default"}],
            scheduling={
                "provisioning_model": "SPOT",
                "preemptible": True,
                "automatic_restart": False,
            },
            labels={"workload": "burst"},
        )
        gcp.compute.RegionInstanceGroupManager(
            "group",
            region="us-east4",
            base_instance_name="b",
            target_size=3,
            versions=[{"instance_template": template.self_link_unique}],
        )

    cost = price(program, preview=True)
    group = line(cost, "group")
    assert group.workload == "burst"  # from its template's labels (a group takes none)
    assert group.expected.hourly_usd == pytest.approx(3 * spot("gcp", "g2-standard-4", "us-east4"))


@pytest.mark.parametrize(
    ("mode", "least", "expected_hours"),
    [
        ("OFF", 0, 4 * 150),  # on request: the size a run sets; the tag's hours at max
        ("ON", 1, 1 * HOURS_PER_MONTH + 3 * 150),  # its minimum all month, then the tag's
    ],
)
def test_a_gcp_group_takes_its_size_from_its_autoscaler(
    mode: str, least: int, expected_hours: float
) -> None:
    def program() -> None:
        template = gcp.compute.InstanceTemplate(
            "tpl",
            machine_type="g2-standard-4",
            disks=[{"source_image": "debian", "boot": True}],
            network_interfaces=[{"network": "default"}],
            labels={"workload": "evals", "expected-minutes": "9000"},
        )
        group = gcp.compute.RegionInstanceGroupManager(
            "group",
            region="us-east4",
            base_instance_name="b",
            target_size=0,
            versions=[{"instance_template": template.self_link_unique}],
        )
        gcp.compute.RegionAutoscaler(
            "scaler",
            region="us-east4",
            target=group.id,
            autoscaling_policy={"min_replicas": least, "max_replicas": 4, "mode": mode},
        )

    group = line(price(program), "group")
    rate = on_demand("gcp", "g2-standard-4", "us-east4")
    assert group.maximum.monthly_usd == pytest.approx(4 * rate * HOURS_PER_MONTH)
    assert group.expected.monthly_usd == pytest.approx(rate * expected_hours)


@pytest.mark.parametrize(
    ("description", "expected"),
    [("gpufleet expected-minutes=9000", "priced"), (None, "unpriced")],
)
def test_a_gcp_group_scaled_from_zero_needs_a_declared_use(
    description: str | None, expected: str
) -> None:
    """What an autoscaler from zero runs depends on load: its declared use prices it (on the
    autoscaler, where it can change without replacing VMs); without one it is unpriced."""

    def program() -> None:
        template = gcp.compute.InstanceTemplate(
            "tpl",
            machine_type="g2-standard-4",
            disks=[{"source_image": "debian", "boot": True}],
            network_interfaces=[{"network": "default"}],
            labels={"workload": "evals"},
        )
        group = gcp.compute.RegionInstanceGroupManager(
            "group",
            region="us-east4",
            base_instance_name="b",
            versions=[{"instance_template": template.self_link_unique}],
        )
        gcp.compute.RegionAutoscaler(
            "scaler",
            region="us-east4",
            target=group.id,
            description=description,
            autoscaling_policy={"min_replicas": 0, "max_replicas": 4},
        )

    group = line(price(program), "group")
    if expected == "priced":
        rate = on_demand("gcp", "g2-standard-4", "us-east4")
        assert group.expected.monthly_usd == pytest.approx(4 * rate * 150)
    else:
        assert group.expected.monthly_usd is None
        assert group.unpriced is not None and "declares no expected use" in group.unpriced


def test_a_stopped_vm_costs_only_the_runs_it_expects() -> None:
    def program(status: str | None) -> Callable[[], object]:
        return lambda: gcp.compute.Instance(
            "node",
            machine_type="a2-highgpu-1g",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
            desired_status=status,
            labels={"workload": "train", "expected-minutes": "6000"},
        )

    rate = on_demand("gcp", "a2-highgpu-1g", "us-central1")
    stopped = line(price(program("TERMINATED")), "node")
    assert stopped.expected.monthly_usd == pytest.approx(rate * 100)
    assert stopped.maximum.monthly_usd == pytest.approx(rate * HOURS_PER_MONTH)
    running = line(price(program(None)), "node")
    assert running.expected.monthly_usd == pytest.approx(rate * HOURS_PER_MONTH)


def test_a3_where_the_catalog_has_no_price_is_estimated_not_free() -> None:
    """The issue's case: one a3-highgpu-8g in us-central1-a passed a $6,000 budget at $0."""
    cost = price(
        lambda: gcp.compute.Instance(
            "a3",
            machine_type="a3-highgpu-8g",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
        )
    )
    a3 = line(cost, "a3")
    assert a3.expected.monthly_usd is not None and a3.expected.monthly_usd > 6000
    assert a3.estimated and "no catalog price in us-central1" in a3.estimated[0]
    assert a3.workload == "(no workload tag)"


def test_a_gcp_reservation_reads_its_forecast_commitment_from_its_description() -> None:
    def program() -> None:
        gcp.compute.Reservation(
            "pool",
            zone="us-east4-a",
            description="serving pool workload=chat commitment=1y",
            specific_reservation={
                "count": 2,
                "instance_properties": {"machine_type": "g2-standard-4"},
            },
        )

    od = on_demand("gcp", "g2-standard-4", "us-east4")
    pool = line(price(program), "pool")
    assert (pool.workload, pool.planned_commitment, pool.commitment) == ("chat", "1y", None)
    assert pool.expected.hourly_usd == pytest.approx(2 * od)
    # A committed-use discount for its GPUs, vCPUs and memory in its region pays for it.
    held = HeldCommitment(
        "gcp",
        "cud-1",
        "1y",
        "resources",
        "us-east4",
        accelerators={"nvidia-l4": 2},
        vcpus=8,
        memory_gib=32,
    )
    pool = line(price(program, commitments=[held]), "pool")
    assert (pool.commitment, pool.pricing, pool.commitments) == ("1y", "reserved_1y", ("cud-1",))
    assert pool.expected.hourly_usd == pytest.approx(2 * od * (1 - 0.37))


# --- Azure -----------------------------------------------------------------------------------


def test_azure_ml_cluster_expects_its_min_nodes_and_may_reach_its_max() -> None:
    cost = price(
        lambda: azure.machinelearningservices.Compute(
            "batch",
            resource_group_name="rg",
            workspace_name="ws",
            location="eastus",
            properties={
                "compute_type": "AmlCompute",
                "properties": {
                    "vm_size": "Standard_NC24ads_A100_v4",
                    "vm_priority": "LowPriority",
                    "scale_settings": {"max_node_count": 4, "min_node_count": 1},
                },
            },
            tags=TAGS,
        )
    )
    batch = line(cost, "batch")
    rate = spot("azure", "Standard_NC24ads_A100_v4", "eastus")
    assert batch.pricing == "low-priority" and batch.rate_usd == pytest.approx(rate)
    assert (batch.expected.instances, batch.maximum.instances) == (1, 4)
    assert batch.maximum.monthly_usd == pytest.approx(4 * rate * HOURS_PER_MONTH)


def test_azure_spot_scale_set() -> None:
    cost = price(
        lambda: azure.compute.VirtualMachineScaleSet(
            "vmss",
            resource_group_name="rg",
            location="eastus",
            sku={"name": "Standard_NC24ads_A100_v4", "capacity": 3},
            virtual_machine_profile={"priority": "Spot", "eviction_policy": "Delete"},
            tags=TAGS,
        )
    )
    vmss = line(cost, "vmss")
    rate = spot("azure", "Standard_NC24ads_A100_v4", "eastus")
    assert vmss.expected.hourly_usd == pytest.approx(3 * rate)


# --- the usage model -------------------------------------------------------------------------


def test_hours_are_an_input_of_the_engine() -> None:
    """A usage model (schedules, autoscaling) changes the expected figure, never the maximum."""

    def weekly(item: StackCapacity, tags: Mapping[str, str]) -> Usage:
        return Usage(item.footprint.expected_units, 40.0, "40 h a month")

    program = lambda: aws.ec2.Instance(  # noqa: E731
        "trainer", instance_type="g6.xlarge", ami="ami-1", tags=TAGS
    )
    default = line(price(program, usage=resource_settings), "trainer")
    scheduled = line(price(program, usage=weekly), "trainer")
    assert scheduled.expected.monthly_usd == pytest.approx(default.rate_usd * 40)  # type: ignore[operator]
    assert (scheduled.basis, scheduled.maximum) == ("40 h a month", default.maximum)


@pytest.mark.parametrize(
    ("least", "most", "minutes", "instance_hours"),
    [
        (0, 2, "9000", 2 * 150),  # at zero until a run asks: 2 instances for 150 h
        (2, 6, "7200", 2 * HOURS_PER_MONTH + 4 * 120),  # a base, and a burst of 4 for 120 h
        (2, 2, "7200", 2 * HOURS_PER_MONTH),  # nothing to burst into
        (0, 2, "many", None),  # not whole minutes: unpriced, never $0
    ],
)
def test_expected_use_above_the_minimum_follows_its_tag(
    least: int, most: int, minutes: str, instance_hours: float | None
) -> None:
    def program() -> None:
        template = aws.ec2.LaunchTemplate(
            "lt", image_id="ami-1", instance_type="g6.xlarge", tags=TAGS
        )
        aws.autoscaling.Group(
            "group",
            min_size=least,
            max_size=most,
            desired_capacity=least,
            availability_zones=["us-east-1a"],
            launch_template={"id": template.id},
            tags=[
                {"key": "expected-minutes", "value": minutes, "propagate_at_launch": False},
                {"key": "workload", "value": "evals", "propagate_at_launch": True},
            ],
        )

    group = line(price(program), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    if instance_hours is None:
        assert group.expected.monthly_usd is None
        assert group.unpriced == "its expected-minutes tag 'many' is not whole minutes"
        return
    assert group.expected.monthly_usd == pytest.approx(rate * instance_hours)
    assert group.maximum.monthly_usd == pytest.approx(rate * most * HOURS_PER_MONTH)
    if least < most and minutes.isdigit():
        assert group.expected.instances == most and "expected use" in group.basis


def test_resources_of_an_untagged_component_go_under_its_name() -> None:
    class Trainer(pulumi.ComponentResource):
        def __init__(self, name: str) -> None:
            super().__init__("acme:ml:Trainer", name)
            aws.ec2.Instance(
                f"{name}-node",
                instance_type="g6.xlarge",
                ami="ami-1",
                opts=pulumi.ResourceOptions(parent=self),
            )

    cost = price(lambda: Trainer("llama"))
    assert [w.name for w in cost.workloads] == ["llama"]


def test_an_n1_host_with_a_gpu_count_the_catalog_does_not_pair_is_unpriced_and_says_so() -> None:
    def program() -> None:
        gcp.compute.Instance(
            "n1",
            machine_type="n1-standard-8",
            zone="us-central1-a",
            boot_disk={"initialize_params": {"image": "debian"}},
            network_interfaces=[{"network": "default"}],
            guest_accelerators=[{"type": "nvidia-tesla-t4", "count": 3}],
            scheduling={"on_host_maintenance": "TERMINATE"},
            labels={"workload": "evals"},
        )

    vm = line(price(program), "n1")
    assert vm.expected.monthly_usd is None
    assert vm.unpriced == "n1-standard-8 with 3 x T4 has no catalog price"


# --- schedules: what a group's own schedule runs is its expected cost -------------------------

WEEKDAYS_8_TO_20 = 5 * 12 / (7 * 24) * HOURS_PER_MONTH  # hours a month at full size


def group_at_zero(tags: dict[str, str]) -> aws.autoscaling.Group:
    """An Auto Scaling group of up to three g6.xlarge, at zero until something sizes it."""
    template = aws.ec2.LaunchTemplate("lt", image_id="ami-1", instance_type="g6.xlarge", tags=TAGS)
    return aws.autoscaling.Group(
        "group",
        min_size=0,
        max_size=3,
        desired_capacity=0,
        availability_zones=["us-east-1a"],
        launch_template={"id": template.id},
        tags=[{"key": k, "value": v, "propagate_at_launch": False} for k, v in tags.items()],
    )


def action(group: aws.autoscaling.Group, name: str, **sizes: Any) -> aws.autoscaling.Schedule:
    """A scheduled action of ``group``: what ``sizes`` sets (recurrence, start time, time
    zone, desired / min / max size), the sizes it does not set left alone (-1)."""
    left_alone = {"desired_capacity": -1, "min_size": -1, "max_size": -1}
    return aws.autoscaling.Schedule(
        name,
        scheduled_action_name=name,
        autoscaling_group_name=group.name,
        **{**left_alone, **sizes},
    )


def aws_scheduled_group(recurrences: tuple[str, str], tags: dict[str, str]) -> Callable[[], None]:
    def program() -> None:
        group = group_at_zero(tags)
        for edge, recurrence, desired in (("start", recurrences[0], 3), ("end", recurrences[1], 0)):
            action(
                group,
                edge,
                recurrence=recurrence,
                time_zone="Europe/Berlin",
                desired_capacity=desired,
            )

    return program


def test_an_aws_group_is_priced_by_its_scheduled_actions_even_without_a_declared_use() -> None:
    cost = price(aws_scheduled_group(("0 8 * * 1-5", "0 20 * * 1-5"), {"workload": "office"}))
    group = line(cost, "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    assert group.unpriced is None and "its schedule" in group.basis
    assert group.expected.monthly_usd == pytest.approx(3 * rate * WEEKDAYS_8_TO_20)
    assert group.maximum.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)


def test_a_schedule_outranks_a_declared_use_that_disagrees_with_it() -> None:
    """The schedule is what runs; a stale or wrong tag does not make the bill."""
    tags = {"workload": "office", "expected-minutes": "60"}
    cost = price(aws_scheduled_group(("0 8 * * 1-5", "0 20 * * 1-5"), tags))
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    assert line(cost, "group").expected.monthly_usd == pytest.approx(3 * rate * WEEKDAYS_8_TO_20)


def test_a_schedule_that_does_not_repeat_weekly_is_not_read_and_says_so() -> None:
    """What it sets, and for how long, is not known: it may hold the group up all month, so
    it is priced so (fail closed), not at the declared use; the note says why."""
    tags = {"workload": "office", "expected-minutes": "6000"}
    cost = price(aws_scheduled_group(("0 8 1 * *", "0 20 1 * *"), tags))
    group = line(cost, "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    assert group.expected.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)
    assert "its schedule sets its size and is not read" in group.basis
    assert any("its schedule is not read" in note for note in group.notes)


def gcp_scheduled_group(mode: str, description: str | None = None) -> Callable[[], None]:
    def program() -> None:
        template = gcp.compute.InstanceTemplate(
            "tpl",
            machine_type="g2-standard-4",
            disks=[{"source_image": "debian", "boot": True}],
            network_interfaces=[{"network": "default"}],
            labels={"workload": "office"},
        )
        group = gcp.compute.RegionInstanceGroupManager(
            "group",
            region="us-east4",
            base_instance_name="b",
            target_size=0,
            versions=[{"instance_template": template.self_link_unique}],
        )
        gcp.compute.RegionAutoscaler(
            "scaler",
            region="us-east4",
            target=group.id,
            description=description,
            autoscaling_policy={
                "min_replicas": 0,
                "max_replicas": 3,
                "mode": mode,
                "scaling_schedules": [
                    {
                        "name": "weekdays",
                        "schedule": "0 8 * * 1-5",
                        "duration_sec": 12 * 3600,
                        "min_required_replicas": 3,
                        "time_zone": "Europe/Berlin",
                    },
                    {  # disabled: holds nothing
                        "name": "weekends",
                        "schedule": "0 8 * * 6,0",
                        "duration_sec": 12 * 3600,
                        "min_required_replicas": 3,
                        "disabled": True,
                    },
                ],
            },
        )

    return program


def test_a_gcp_group_is_priced_by_its_autoscalers_scaling_schedules() -> None:
    group = line(price(gcp_scheduled_group("ON")), "group")
    rate = on_demand("gcp", "g2-standard-4", "us-east4")
    assert group.expected.monthly_usd == pytest.approx(3 * rate * WEEKDAYS_8_TO_20)


def test_an_autoscaler_that_is_off_runs_no_schedule() -> None:
    """Off, the autoscaler holds nothing: the group is what a run makes it, as declared."""
    off = gcp_scheduled_group("OFF", description="gpufleet expected-minutes=6000")
    group = line(price(off), "group")
    rate = on_demand("gcp", "g2-standard-4", "us-east4")
    assert group.expected.monthly_usd == pytest.approx(3 * rate * 100)


def azure_scheduled_set(enabled: bool) -> Callable[[], None]:
    def program() -> None:
        scale_set = azure.compute.VirtualMachineScaleSet(
            "vmss",
            resource_group_name="rg",
            location="eastus",
            sku={"name": "Standard_NC24ads_A100_v4", "capacity": 0},
            tags={"workload": "office", "expected-minutes": "6000"},
        )

        def profile(name: str, size: int, hour: int) -> azure.monitor.AutoscaleProfileArgs:
            weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
            return azure.monitor.AutoscaleProfileArgs(
                name=name,
                capacity=azure.monitor.ScaleCapacityArgs(
                    minimum=str(size), maximum=str(size), default=str(size)
                ),
                rules=[],
                recurrence=azure.monitor.RecurrenceArgs(
                    frequency=azure.monitor.RecurrenceFrequency.WEEK,
                    schedule=azure.monitor.RecurrentScheduleArgs(
                        time_zone="W. Europe Standard Time",
                        days=weekdays,
                        hours=[hour],
                        minutes=[0],
                    ),
                ),
            )

        azure.monitor.AutoscaleSetting(
            "autoscale",
            resource_group_name="rg",
            location="eastus",
            target_resource_uri=scale_set.id,
            enabled=enabled,
            profiles=[profile("run", 2, 8), profile("idle", 0, 20)],
        )

    return program


def test_an_azure_set_is_priced_by_its_recurring_profiles() -> None:
    rate = on_demand("azure", "Standard_NC24ads_A100_v4", "eastus")
    enabled = line(price(azure_scheduled_set(True)), "vmss")
    assert enabled.expected.monthly_usd == pytest.approx(2 * rate * WEEKDAYS_8_TO_20)
    # Disabled, its profiles run nothing: the declared use prices the set.
    disabled = line(price(azure_scheduled_set(False)), "vmss")
    assert disabled.expected.monthly_usd == pytest.approx(2 * rate * 100)


def raised_min(tags: dict[str, str], evening_min: int) -> Callable[[], None]:
    """Mornings raise the group's min (and max) size to 3; evenings set its desired size to
    0, and its min size to ``evening_min`` (-1: left alone)."""

    def program() -> None:
        group = group_at_zero(tags)
        action(group, "up", recurrence="0 8 * * 1-5", min_size=3, max_size=3)
        action(group, "down", recurrence="0 20 * * 1-5", min_size=evening_min, desired_capacity=0)

    return program


@pytest.mark.parametrize("how", ["its min size", "a one-off action"])
def test_a_min_size_above_the_desired_size_runs_whatever_the_group_declares(how: str) -> None:
    """A group on request (desired 0, expected-minutes) whose min size is raised to its max,
    by hand or by a one-off scheduled action, runs at its max all month: the settings win
    over the tag, and the basis and notes say so."""
    tags = {"workload": "evals", "expected-minutes": "6000"}

    def program() -> None:
        if how == "its min size":
            template = aws.ec2.LaunchTemplate(
                "lt", image_id="ami-1", instance_type="g6.xlarge", tags=TAGS
            )
            aws.autoscaling.Group(
                "group",
                min_size=3,
                max_size=3,
                desired_capacity=0,
                availability_zones=["us-east-1a"],
                launch_template={"id": template.id},
                tags=[
                    {"key": k, "value": v, "propagate_at_launch": False} for k, v in tags.items()
                ],
            )
            return
        group = group_at_zero(tags)
        action(group, "once", start_time="2026-12-01T00:00:00Z", min_size=3)

    group = line(price(program), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    assert group.expected.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)
    assert "the settings win" in group.basis
    assert any("min size" in note for note in group.notes)


def test_an_action_that_raises_the_min_size_holds_until_one_lowers_it() -> None:
    """AWS raises the desired size with the min; a min never lowered holds all week (the
    evening's desired 0 cannot go below it), whatever the group declares; lowered in the
    evening, the group runs 12 hours each weekday."""
    tags = {"workload": "office", "expected-minutes": "6000"}
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    held = line(price(raised_min(tags, -1)), "group")
    assert held.expected.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)
    lowered = line(price(raised_min(tags, 0)), "group")
    weekly = 5 * 12 / (7 * 24) * HOURS_PER_MONTH
    assert lowered.expected.monthly_usd == pytest.approx(3 * rate * weekly)


def scheduled_in_zones(start_zone: str, end_zone: str) -> Callable[[], None]:
    tags = {"workload": "office", "expected-minutes": "6000"}

    def program() -> None:
        group = group_at_zero(tags)
        action(group, "start", recurrence="0 9 * * 1-5", time_zone=start_zone, desired_capacity=3)
        action(group, "end", recurrence="0 17 * * 1-5", time_zone=end_zone, desired_capacity=0)

    return program


def test_a_schedule_over_several_time_zones_is_read_in_utc() -> None:
    """09:00 New York to 17:00 UTC is 3 hours (New York is 5 hours behind UTC in winter;
    daylight-saving shifts aside, as in the planner), not 8."""
    group = line(price(scheduled_in_zones("America/New_York", "UTC")), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    weekly = 5 * 3 / (7 * 24) * HOURS_PER_MONTH
    assert group.expected.monthly_usd == pytest.approx(3 * rate * weekly)


def test_a_schedule_in_a_zone_that_is_not_one_is_not_read() -> None:
    group = line(price(scheduled_in_zones("Mars/Olympus", "UTC")), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    # Not read, so not known to let the group down: its max size all month, said so.
    assert group.expected.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)
    assert any("'Mars/Olympus' is not an IANA time zone" in note for note in group.notes)


def scaling_on_load(tags: dict[str, str], *, scale_in: bool) -> Callable[[], None]:
    """A group at zero with a step policy adding an instance on load and, ``scale_in``, one
    removing an instance when idle (as the serving burst has)."""

    def program() -> None:
        group = group_at_zero(tags)
        for edge, change, bound in (("busy", 1, "lower"), ("idle", -1, "upper")):
            if change < 0 and not scale_in:
                continue
            step = aws.autoscaling.PolicyStepAdjustmentArgs(
                scaling_adjustment=change,
                metric_interval_lower_bound="0" if bound == "lower" else None,
                metric_interval_upper_bound="0" if bound == "upper" else None,
            )
            aws.autoscaling.Policy(
                edge,
                autoscaling_group_name=group.name,
                policy_type="StepScaling",
                adjustment_type="ChangeInCapacity",
                step_adjustments=[step],
            )

    return program


def test_a_group_that_scales_on_a_policy_without_a_declared_use_is_unpriced_not_zero() -> None:
    group = line(price(scaling_on_load({"workload": "burst"}, scale_in=True)), "group")
    assert group.expected.monthly_usd is None and group.unpriced == UNKNOWN_USE


@pytest.mark.parametrize("tags", [{"workload": "burst"}, {"expected-minutes": "6000"}])
def test_a_group_nothing_scales_in_runs_at_its_max_whatever_it_declares(
    tags: dict[str, str],
) -> None:
    """Its scale-in policy removed, what load adds stays: its max size all month, whether it
    declares a use (the settings win, and the basis says so) or not."""
    group = line(price(scaling_on_load(tags, scale_in=False)), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    assert group.expected.monthly_usd == pytest.approx(3 * rate * HOURS_PER_MONTH)
    assert group.unpriced is None and "nothing scales it in" in group.basis
    assert ("the settings win" in group.basis) == ("expected-minutes" in tags)


def two_version_group(
    *, base_size: int = 2, reserved: bool = True, versions: str = "known", scheduled: bool = False
) -> Callable[[], None]:
    """A group of a base version of fixed size (standard, in a reservation of the stack when
    ``reserved``) and a Spot version taking the rest, its autoscaler from the base up to 6
    with the burst's declared use (as ``SpotGroup`` builds a serving burst)."""

    def program() -> None:
        common: dict[str, Any] = {
            "machine_type": "g2-standard-4",
            "disks": [{"source_image": "debian", "boot": True}],
            "network_interfaces": [{"network": "default"}],
            "labels": {"workload": "chat"},
        }
        if reserved:
            gcp.compute.Reservation(
                "res",
                name="chat-res",
                zone="us-east4-a",
                specific_reservation={
                    "count": 2,
                    "instance_properties": {"machine_type": "g2-standard-4"},
                },
            )
        base = gcp.compute.InstanceTemplate(
            "base",
            scheduling={"provisioning_model": "STANDARD"},
            reservation_affinity={
                "type": "SPECIFIC_RESERVATION",
                "specific_reservation": {"key": "k", "values": ["chat-res"]},
            }
            if reserved
            else None,
            **common,
        )
        burst = gcp.compute.InstanceTemplate(
            "burst", scheduling={"provisioning_model": "SPOT", "preemptible": True}, **common
        )
        first, second = base.self_link_unique, burst.self_link_unique
        if versions == "unmatched":
            first = pulumi.Output.concat(first, "-elsewhere")
        group = gcp.compute.RegionInstanceGroupManager(
            "group",
            region="us-east4",
            base_instance_name="b",
            target_size=base_size,
            versions=[
                {"name": "base", "instance_template": first, "target_size": {"fixed": base_size}},
                {"name": "burst", "instance_template": second},
            ],
        )
        # Scheduled: 6 VMs Mondays from 08:00 for 10 hours (UTC).
        peak = gcp.compute.RegionAutoscalerAutoscalingPolicyScalingScheduleArgs(
            name="peak",
            schedule="0 8 * * 1",
            duration_sec=36_000,
            min_required_replicas=6,
            time_zone="UTC",
        )
        gcp.compute.RegionAutoscaler(
            "scaler",
            region="us-east4",
            target=group.id,
            description=None if scheduled else "gpufleet expected-minutes=6000",
            autoscaling_policy=gcp.compute.RegionAutoscalerAutoscalingPolicyArgs(
                min_replicas=base_size,
                max_replicas=6,
                mode="ON",
                scaling_schedules=[peak] if scheduled else None,
            ),
        )

    return program


def test_a_groups_base_version_runs_in_its_reservation_and_its_burst_version_at_spot() -> None:
    cost = price(two_version_group())
    group = line(cost, "group")
    rate = spot("gcp", "g2-standard-4", "us-east4")
    # The base's 2 VMs are the reservation's (priced there); the burst's 4 run 100 h at spot.
    assert group.expected.monthly_usd == pytest.approx(4 * rate * 100)
    assert group.maximum.monthly_usd == pytest.approx(4 * rate * HOURS_PER_MONTH)
    assert group.pricing == "in_reservation + spot" and group.unpriced is None
    assert line(cost, "res").expected.monthly_usd == pytest.approx(
        2 * on_demand("gcp", "g2-standard-4", "us-east4") * HOURS_PER_MONTH
    )


def test_a_base_version_outside_a_reservation_pays_its_own_rate_all_month() -> None:
    group = line(price(two_version_group(reserved=False)), "group")
    base, burst = (
        on_demand("gcp", "g2-standard-4", "us-east4"),
        spot("gcp", "g2-standard-4", "us-east4"),
    )
    assert group.expected.monthly_usd == pytest.approx(2 * base * HOURS_PER_MONTH + 4 * burst * 100)
    assert group.maximum.monthly_usd == pytest.approx((2 * base + 4 * burst) * HOURS_PER_MONTH)
    assert group.pricing == "on_demand + spot"


def test_versions_whose_templates_cannot_be_told_apart_are_priced_at_the_dearest() -> None:
    group = line(price(two_version_group(reserved=False, versions="unmatched")), "group")
    rate = on_demand("gcp", "g2-standard-4", "us-east4")
    assert group.maximum.monthly_usd == pytest.approx(6 * rate * HOURS_PER_MONTH)
    assert any("differ in pricing" in note for note in group.notes)


def test_a_scheduled_two_version_group_prices_each_version_for_what_it_runs() -> None:
    """Fixed 2 on-demand, the rest Spot, 2 to 6 with a schedule holding 6 ten hours a week:
    the fixed version all month at its rate, 4 more for the schedule's hours at Spot."""
    group = line(price(two_version_group(reserved=False, scheduled=True)), "group")
    base = on_demand("gcp", "g2-standard-4", "us-east4")
    burst = spot("gcp", "g2-standard-4", "us-east4")
    weekly_hours = 10 * HOURS_PER_MONTH / (7 * 24)
    assert group.expected.monthly_usd == pytest.approx(
        2 * base * HOURS_PER_MONTH + 4 * burst * weekly_hours
    )


def test_a_fixed_version_that_does_not_fit_its_reservation_says_so() -> None:
    """A reservation of 2 under a fixed version of 3: two run in it (the reservation pays),
    the third at its own rate, the note says why, and both templates count as read (not
    listed as other resources). The reserved two are never paid twice."""
    cost = price(two_version_group(base_size=3))
    group = line(cost, "group")
    assert any(
        note.startswith("its fixed version runs in chat-res, which holds 2 of its 3")
        for note in group.notes
    )
    rate, burst = (
        on_demand("gcp", "g2-standard-4", "us-east4"),
        spot("gcp", "g2-standard-4", "us-east4"),
    )
    assert group.expected.monthly_usd == pytest.approx(1 * rate * HOURS_PER_MONTH + 3 * burst * 100)
    assert not any("instanceTemplate" in entry.what for entry in cost.not_priced)


# --- resources of several parts, and types read by name ---------------------------------------


def test_a_cluster_is_priced_per_node_pool_and_a_type_read_by_name_is_unpriced() -> None:
    def program() -> None:
        gcp.container.Cluster(
            "gke",
            location="us-central1-a",
            node_pools=[
                {"name": "cpu", "node_count": 3, "node_config": {"machine_type": "e2-standard-4"}},
                {"name": "a100", "node_count": 2, "node_config": {"machine_type": "a2-highgpu-1g"}},
                {
                    "name": "l4",
                    "node_count": 1,
                    "node_config": {"machine_type": "g2-standard-8", "spot": True},
                },
            ],
        )
        aws.ec2.DedicatedHost("host", availability_zone="us-east-1a", instance_type="p3.8xlarge")

    cost = price(program)
    a100, l4 = line(cost, "gke/a100"), line(cost, "gke/l4")
    assert {r.name for r in cost.resources} == {"gke/a100", "gke/l4", "host"}  # no CPU pool
    assert (a100.part, a100.urn) == ("a100", l4.urn)
    rate = on_demand("gcp", "a2-highgpu-1g", "us-central1")
    assert a100.expected.monthly_usd == pytest.approx(2 * rate * HOURS_PER_MONTH)
    assert l4.pricing == "spot"
    host = line(cost, "host")
    assert host.unpriced is not None and "reads no size" in host.unpriced
    assert host.expected.monthly_usd is None  # unpriced, never $0


@pytest.mark.parametrize(
    ("limit_hours", "labels", "hours"),
    [
        (3, {}, 3.0),
        (3, {"expected-minutes": "600"}, 10.0),
        (3, {"expected-minutes": "0"}, 3.0),  # a tag cannot take away the run it starts with
        (24 * 60, {}, 730.0),  # 60 days (GCP allows 120): all month
    ],
)
def test_a_running_vm_with_a_max_run_duration_runs_until_it_then_its_declared_use(
    limit_hours: int, labels: dict[str, str], hours: float
) -> None:
    """Started (running) with a max run duration: it stops when that is up, one run from its
    start; later starts are runs, priced at what it declares."""
    vm = line(
        price(
            lambda: gcp.compute.Instance(
                "vm",
                machine_type="g2-standard-4",
                zone="us-east4-a",
                boot_disk={"initialize_params": {"image": "debian"}},
                network_interfaces=[{"network": "default"}],
                scheduling={
                    "max_run_duration": {"seconds": limit_hours * 3600},
                    "instance_termination_action": "STOP",
                    "provisioning_model": "STANDARD",
                },
                labels={"workload": "vm", **labels},
            )
        ),
        "vm",
    )
    rate = on_demand("gcp", "g2-standard-4", "us-east4")
    assert vm.expected.monthly_usd == pytest.approx(rate * hours)
    assert vm.maximum.monthly_usd == pytest.approx(rate * HOURS_PER_MONTH)
    assert any(f"max run duration ends it {limit_hours:g} h after it starts" in n for n in vm.notes)


@pytest.mark.parametrize(("suspended", "hours"), [([], None), (["ScheduledActions"], 730.0)])
def test_suspended_scheduled_actions_take_nothing_down(
    suspended: list[str], hours: float | None
) -> None:
    """A group whose policies only add capacity is taken down only by its schedule's desired
    sizes: suspended, they take nothing down, and it runs at its max all month."""

    def program() -> None:
        template = aws.ec2.LaunchTemplate(
            "lt", image_id="ami-1", instance_type="g6.xlarge", tags=TAGS
        )
        group = aws.autoscaling.Group(
            "group",
            min_size=0,
            max_size=3,
            desired_capacity=0,
            availability_zones=["us-east-1a"],
            launch_template={"id": template.id},
            suspended_processes=suspended,
            tags=[{"key": "expected-minutes", "value": "600", "propagate_at_launch": False}],
        )
        aws.autoscaling.Policy(
            "busy",
            autoscaling_group_name=group.name,
            policy_type="StepScaling",
            adjustment_type="ChangeInCapacity",
            step_adjustments=[
                aws.autoscaling.PolicyStepAdjustmentArgs(
                    scaling_adjustment=1, metric_interval_lower_bound="0"
                )
            ],
        )
        action(group, "up", recurrence="0 8 * * *", desired_capacity=3)
        action(group, "down", recurrence="0 20 * * *", desired_capacity=0)

    found = line(price(program), "group")
    rate = on_demand("aws", "g6.xlarge", "us-east-1")
    if hours is None:
        # Its schedule's 12 h a day, and above it the declared 10 h of load.
        assert "above it for 10 h (declared use)" in found.basis
    else:
        assert found.expected.monthly_usd == pytest.approx(3 * rate * hours)
        assert "nothing scales it in" in found.basis
