"""A reservation of two g2-standard-4 and the 3-year commitment declared beside it that buys
exactly their GPUs, vCPUs and memory, the reservation attached: the commitment pays for the
reservation and nothing of it is left unpriced."""

import pulumi_gcp as gcp

NAME = __name__.replace("_", "-")  # every resource of the case is NAME or NAME-...
EXPECT = set()

reservation = gcp.compute.Reservation(
    NAME,
    zone="europe-west4-a",
    description="workload=serving commitment=3y",
    specific_reservation_required=True,
    delete_at_time="2029-12-01T00:00:00Z",  # with the commitment's term
    specific_reservation={"count": 2, "instance_properties": {"machine_type": "g2-standard-4"}},
)
gcp.compute.RegionCommitment(
    f"{NAME}-commitment",
    region="europe-west4",
    plan="THIRTY_SIX_MONTH",
    type="GRAPHICS_OPTIMIZED",
    resources=[
        {"type": "VCPU", "amount": "8"},
        {"type": "MEMORY", "amount": "32768"},
        {"type": "ACCELERATOR", "accelerator_type": "nvidia-l4", "amount": "2"},
    ],
    existing_reservations=reservation.id,
)
