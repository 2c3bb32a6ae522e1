"""Commitments a stack buys itself (``gcp.compute.RegionCommitment``): held from the deployment
on, spent on the stack's reservations like any other; what they buy beyond those reservations,
and one that cannot be read, is an unpriced line of its own, never $0."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pulumi
import pulumi_gcp as gcp
import pytest

from gpufleet.capacity.commitments import HeldCommitment, ReservedNeed, cover
from gpufleet.capacity.cost_engine import ResourceCost, StackCost, price_stack
from gpufleet.capacity.footprints.model import shipped_machine_catalog
from gpufleet.capacity.stack_resource import StackResource, stack_resources
from gpufleet.components.gcp.reservation_pool import ReservationPool, ReservationPoolArgs
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.capture import capture_program
from gpufleet.planner.rates import shipped_rate_card
from gpufleet.pricing_models import HOURS_PER_MONTH
from tests.capacity.test_commitment_pricing import TODAY
from tests.capacity.test_cost_engine import CONFIG
from tests.components.component_checks import TAGS

COMMITMENT = "gcp:compute/regionCommitment:RegionCommitment"


def rate(pricing: str, machine: str = "g2-standard-4", region: str = "us-east4") -> float:
    found = shipped_rate_card().rate("gcp", machine, region, pricing)  # type: ignore[arg-type]
    assert found is not None
    return found.hourly


def resources_of(program: Callable[[], Any], *, preview: bool = False) -> list[StackResource]:
    captured = capture_program(program, config=CONFIG, preview=preview).capture
    return stack_resources(from_capture(captured))


def price(
    program: Callable[[], Any] | list[StackResource],
    *,
    preview: bool = False,
    held: list[HeldCommitment] | None = None,
) -> StackCost:
    resources = program if isinstance(program, list) else resources_of(program, preview=preview)
    return price_stack(resources, shipped_rate_card(), commitments=held or [], today=TODAY)


def pool(count: int = 2, *, purchase: bool = True, term: str = "3y") -> None:
    ReservationPool(
        "chat",
        ReservationPoolArgs(
            tags=TAGS,
            machine_type="g2-standard-4",
            zone="us-east4-a",
            count=count,
            commitment=term,  # type: ignore[arg-type]
            purchase_commitment=purchase,
        ),
    )


def reservation_line(cost: StackCost) -> ResourceCost:
    (found,) = [r for r in cost.resources if r.kind != "commitment"]
    return found


def commitment_lines(cost: StackCost) -> list[ResourceCost]:
    return [r for r in cost.resources if r.type == COMMITMENT]


def by_hand(
    gpus: Any = "2",
    plan: Any = "THIRTY_SIX_MONTH",
    *,
    machines: int | None = None,
    name: str = "bought",
    **more: Any,
) -> None:
    """A commitment written by hand for L4s: with the vCPUs and memory of ``machines``
    g2-standard-4 (4 vCPUs, 16 GiB), by default as many as its GPUs."""
    count = machines if machines is not None else int(gpus) if isinstance(gpus, str) else 2
    more.setdefault("type", "GRAPHICS_OPTIMIZED")
    gcp.compute.RegionCommitment(
        name,
        region="us-east4",
        plan=plan,
        resources=[
            {"type": "VCPU", "amount": str(4 * count)},
            {"type": "MEMORY", "amount": str(16 * 1024 * count)},
            {"type": "ACCELERATOR", "accelerator_type": "nvidia-l4", "amount": gpus},
        ],
        **more,
    )


@pytest.mark.parametrize("term", ["1y", "3y"])
def test_a_commitment_the_stack_buys_pays_for_its_reservation(term: str) -> None:
    cost = price(lambda: pool(2, term=term))
    serving = reservation_line(cost)
    assert serving.covered_instances == 2 and serving.commitment == term
    assert serving.uncommitted_usd == 0
    committed = rate(f"reserved_{term}")
    assert serving.expected.monthly_usd == pytest.approx(2 * committed * HOURS_PER_MONTH)
    assert "bought by the stack" in " ".join(serving.notes)
    # Spent whole on it: no line of its own, and not listed as something left unpriced.
    assert commitment_lines(cost) == []
    assert not any(COMMITMENT in n.what for n in cost.not_priced)


def test_without_it_the_reservation_bills_on_demand() -> None:
    serving = reservation_line(price(lambda: pool(2, purchase=False)))
    assert serving.covered_instances == 0
    assert serving.expected.monthly_usd == pytest.approx(2 * rate("on_demand") * HOURS_PER_MONTH)
    assert serving.uncommitted_usd > 0


def test_what_a_commitment_buys_beyond_the_reservations_is_unpriced_not_free() -> None:
    def program() -> None:
        pool(1, purchase=False)
        by_hand(gpus="3")

    cost = price(program)
    serving = reservation_line(cost)
    assert serving.covered_instances == 1
    (extra,) = commitment_lines(cost)
    assert extra.unpriced is not None
    assert "it buys 2 L4 GPU(s), 32 GiB of memory, 8 vCPUs that no reservation" in extra.unpriced
    assert extra in cost.unpriceable  # the budget cannot pass it


def test_vcpus_and_memory_bought_beyond_the_machines_are_a_line_too() -> None:
    def program() -> None:
        pool(1, purchase=False)
        by_hand(gpus="1", machines=3)

    cost = price(program)
    assert reservation_line(cost).covered_instances == 1
    (extra,) = commitment_lines(cost)
    assert extra.unpriced is not None and "32 GiB of memory, 8 vCPUs" in extra.unpriced
    assert "GPU" not in extra.unpriced.split("that no")[0]


def test_a_commitment_short_of_the_reservation_pays_for_what_it_holds() -> None:
    def program() -> None:
        pool(3, purchase=False)
        by_hand(gpus="2")

    cost = price(program)
    serving = reservation_line(cost)
    assert serving.covered_instances == 2
    od, committed = rate("on_demand"), rate("reserved_3y")
    assert serving.expected.monthly_usd == pytest.approx((2 * committed + od) * HOURS_PER_MONTH)
    assert commitment_lines(cost) == []


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        ({"plan": "SIXTY_MONTH"}, "plan 'SIXTY_MONTH' is not one of"),
        ({"gpus": "two"}, "resources[2].amount 'two' is not a number"),
        ({"gpus": "-1"}, "resources[2].amount '-1' is not a number"),
        ({"gpus": "1.5"}, "resources[2].amount '1.5' is not a whole number"),
        ({"gpus": "1e308"}, "resources[2].amount '1e308' is not a number"),
        ({"gpus": str(10**400)}, "resources[2].amount"),
        ({"category": "MACHINES"}, "category 'MACHINES' is not MACHINE or LICENSE"),
        ({"type": 7}, "type 7.0 is not a commitment type"),  # numbers cross the wire as floats
    ],
)
def test_a_commitment_that_cannot_be_read_pays_for_nothing_and_is_unpriced(
    declared: dict[str, Any], why: str
) -> None:
    def program() -> None:
        pool(1, purchase=False)
        by_hand(**declared, machines=1)

    cost = price(program)
    assert reservation_line(cost).covered_instances == 0
    (line,) = commitment_lines(cost)
    assert line.unpriced is not None and why in line.unpriced, line.unpriced
    assert not line.unknown and line in cost.unpriceable


def test_a_secret_amount_is_read_offline_as_any_other() -> None:
    def program() -> None:
        pool(1, purchase=False)
        by_hand(gpus=pulumi.Output.secret("1"), machines=1)

    cost = price(program)
    assert reservation_line(cost).covered_instances == 1
    assert commitment_lines(cost) == []


def test_a_commitment_unknown_in_a_preview_pays_for_nothing_until_known() -> None:
    def program() -> None:
        pool(1, purchase=False)
        amount = gcp.compute.Reservation.get("other", "projects/p/zones/z/reservations/r").id
        by_hand(gpus=amount.apply(lambda _: "1"), machines=1)

    cost = price(program, preview=True)
    assert reservation_line(cost).covered_instances == 0
    (line,) = commitment_lines(cost)
    assert line.unknown and line not in cost.unpriceable


def test_a_license_commitment_or_one_without_gpus_is_not_gpu_capacity() -> None:
    def program() -> None:
        pool(1, purchase=False)
        gcp.compute.RegionCommitment(
            "licenses",
            region="us-east4",
            plan="TWELVE_MONTH",
            category="LICENSE",
            license_resource={"license": "projects/x/global/licenses/y", "amount": "1"},
        )
        gcp.compute.RegionCommitment(
            "cpus",
            region="us-east4",
            plan="TWELVE_MONTH",
            resources=[{"type": "VCPU", "amount": "8"}, {"type": "MEMORY", "amount": "8192"}],
        )

    cost = price(program)
    assert commitment_lines(cost) == []
    assert reservation_line(cost).covered_instances == 0


@pytest.mark.parametrize("first", ["g2-standard-4", "g2-standard-8"])
def test_resource_commitments_of_a_region_pay_together_whatever_the_machine_shapes(
    first: str,
) -> None:
    """Two commitments, each exactly one reservation's GPUs, vCPUs and memory, of machines
    whose shapes are not in proportion: spent one by one, the first reservation would take
    half of the wrong one and leave fragments; GCP applies them in aggregate, and so does
    ``cover``, in whichever order the reservations come."""
    catalog = shipped_machine_catalog()
    shapes = {t: catalog.machine("gcp", t) for t in ("g2-standard-4", "g2-standard-8")}
    second = next(t for t in shapes if t != first)
    needs = [
        ReservedNeed(f"{n} {t}", "gcp", "us-east4", "us-east4-a", shapes[t], 1)  # type: ignore[arg-type]
        for n, t in enumerate((first, second))
    ]
    held = [
        HeldCommitment(
            "gcp",
            f"for-{t}",
            "3y",
            "resources",
            "us-east4",
            accelerators={"nvidia-l4": 1},
            vcpus=m.vcpus,  # type: ignore[union-attr]
            memory_gib=m.memory_gib,  # type: ignore[union-attr]
        )
        for t, m in shapes.items()
    ]
    found = cover(needs, held, shipped_rate_card(), TODAY)
    assert [found.of(n.key).covered for n in needs] == [1, 1]
    assert found.unspent(0) == found.unspent(1) == {}


def account_l4s(name: str, gpus: int, **kw: Any) -> HeldCommitment:
    """An account's commitment for L4s of G2 machines in us-east4 (``site:commitments``)."""
    return HeldCommitment(
        "gcp",
        name,
        kw.pop("term", "3y"),
        "resources",
        "us-east4",
        family="GRAPHICS_OPTIMIZED",
        accelerators={"nvidia-l4": gpus},
        vcpus=4 * gpus,
        memory_gib=16 * gpus,
    )


@pytest.mark.parametrize(
    ("state", "covered"),
    [
        ({"status": "EXPIRED"}, 0),
        ({"status": "CANCELLED"}, 0),
        ({"status": "ACTIVE", "endTimestamp": "2026-11-01T00:00:00.000-07:00"}, 0),
        ({"status": "NOT_YET_ACTIVE", "startTimestamp": "2027-01-01T00:00:00.000-08:00"}, 0),
        ({"status": "ACTIVE", "endTimestamp": "2029-11-01T00:00:00.000-07:00"}, 1),
    ],
)
def test_what_a_deployed_commitments_state_says_of_its_term_decides(
    state: dict[str, str], covered: int
) -> None:
    """Kept in the state for good (protected, retained), a commitment that has ended, or not
    begun, pays for nothing and bills nothing: no line of its own either."""

    def program() -> None:
        pool(1, purchase=False)
        by_hand(gpus="1")

    resources = [
        replace(r, props={**r.props, **state}) if r.type == COMMITMENT else r
        for r in resources_of(program)
    ]
    cost = price(resources)
    assert reservation_line(cost).covered_instances == covered
    assert commitment_lines(cost) == []


def test_a_commitment_for_another_machine_series_pays_for_nothing() -> None:
    def program() -> None:
        pool(1, purchase=False)
        by_hand(gpus="1", type="ACCELERATOR_OPTIMIZED")

    cost = price(program)
    assert reservation_line(cost).covered_instances == 0
    (line,) = commitment_lines(cost)
    assert line.unpriced is not None and "1 L4 GPU(s)" in line.unpriced


def test_the_stacks_own_commitment_is_spent_before_the_accounts_of_its_pool() -> None:
    """Pooled with an account's commitment of the same series and term, the stack's own one
    pays first: what is left over is the account's, outside the totals, not a line here."""
    cost = price(lambda: pool(2), held=[account_l4s("a-larger-one", 4)])
    serving = reservation_line(cost)
    assert serving.covered_instances == 2
    assert commitment_lines(cost) == []
    assert all("bought by the stack" in c for c in serving.commitments), serving.commitments


def test_a_commitment_listed_again_is_the_same_commitment() -> None:
    """Declared in the stack and listed in site:commitments (as gpufleet commitments reads
    it once bought): counted once."""

    def program() -> None:
        pool(4, purchase=False)
        by_hand(gpus="2", name="cud-a")

    resources = resources_of(program)
    # Its name in the cloud (Pulumi's auto-name), as the account lists it.
    (named,) = [r.props["name"] for r in resources if r.type == COMMITMENT]
    assert reservation_line(price(resources, held=[account_l4s(named, 2)])).covered_instances == 2
    # Another commitment of the account pays for the rest.
    other = [account_l4s(named, 2), account_l4s("cud-b", 2)]
    assert reservation_line(price(resources, held=other)).covered_instances == 4


def test_a_commitment_of_more_entries_than_one_has_is_not_read() -> None:
    def program() -> None:
        pool(1, purchase=False)
        gcp.compute.RegionCommitment(
            "many",
            region="us-east4",
            plan="TWELVE_MONTH",
            resources=[
                {"type": "ACCELERATOR", "accelerator_type": f"nvidia-x{i}", "amount": "1"}
                for i in range(100)
            ],
        )

    (line,) = commitment_lines(price(program))
    assert line.unpriced is not None and "resources lists 100; at most 64" in line.unpriced
