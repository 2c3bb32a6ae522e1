"""The ``reservation-end-date`` rule through the servicer the pack serves: resources that must pass
and resources that must fail, as users write them."""

from __future__ import annotations

import pytest

from gpufleet.policies.testing import PolicyHarness
from tests.helpers import ROOT
from tests.policies.inputs import TAGS


@pytest.mark.parametrize(
    ("type_", "props", "fails"),
    [
        ("aws:ec2/capacityReservation:CapacityReservation", {"instanceType": "g5.xlarge"}, True),
        (
            "aws:ec2/capacityReservation:CapacityReservation",
            {
                "instanceType": "g5.xlarge",
                "endDateType": "limited",
                "endDate": "2027-01-01T00:00:00Z",
            },
            False,
        ),
        ("gcp:compute/reservation:Reservation", {"zone": "us-east4-a"}, True),
        ("gcp:compute/reservation:Reservation", {"deleteAtTime": "2027-01-01T00:00:00Z"}, False),
        (
            "azure-native:compute:CapacityReservation",
            {"sku": {"name": "Standard_NC4as_T4_v3"}},
            True,
        ),
    ],
)
def test_reservation_end_date(dev: PolicyHarness, type_: str, props: dict, fails: bool) -> None:
    found = [
        v for v in dev.analyze(type_, {**props, "tags": TAGS}) if v.policy == "reservation-end-date"
    ]
    assert bool(found) is fails


def test_reservation_end_date_disabled_in_prod() -> None:
    import json

    prod = PolicyHarness(config=json.loads((ROOT / "policies/config/prod.json").read_text()))
    props = {"instanceType": "g5.xlarge", "tags": TAGS}
    found = prod.analyze("aws:ec2/capacityReservation:CapacityReservation", props)
    assert [v for v in found if v.policy == "reservation-end-date"] == []
