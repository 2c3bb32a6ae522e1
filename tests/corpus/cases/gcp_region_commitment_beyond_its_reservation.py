"""A 1-year commitment for four L4 GPUs declared beside a reservation of one g2-standard-4:
three of its GPUs pay for nothing in the stack and bill all the same. They are not $0: the
commitment is unpriced, which the budget cannot pass."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = {"gpu-budget"}

reservation = gcp.compute.Reservation(
    NAME,
    zone="us-west1-a",
    description="workload=serving commitment=1y",
    specific_reservation_required=True,
    delete_at_time="2027-12-01T00:00:00Z",  # with the commitment's term
    specific_reservation={"count": 1, "instance_properties": {"machine_type": "g2-standard-4"}},
)
gcp.compute.RegionCommitment(
    f"{NAME}-commitment",
    region="us-west1",
    plan="TWELVE_MONTH",
    type="GRAPHICS_OPTIMIZED",
    resources=[
        {"type": "VCPU", "amount": "16"},
        {"type": "MEMORY", "amount": "65536"},
        {"type": "ACCELERATOR", "accelerator_type": "nvidia-l4", "amount": "4"},
    ],
    existing_reservations=reservation.id,
)
