"""Pricing assumptions the optimizer applies on top of catalog list prices.

Every number here is an assumption a reviewer should be able to see and a spec can override
(``defaults.interruption_overhead``, ``defaults.commitment_discounts``); ``gpufleet plan --format
json`` prints the values it used.

Spot interruption overhead
    Spot is priced as an expected cost: spot price x (1 + overhead x nodes). The overhead is the
    extra compute an interruption costs (work since the last checkpoint, restart, re-queue). It
    scales with nodes because a tightly coupled job stops when any one of its nodes is reclaimed.
    Defaults follow the warning each cloud gives before reclaiming: AWS gives 2 minutes plus
    rebalance recommendations, enough to checkpoint, so 10%; GCP Spot VMs and Azure Spot VMs give
    30 seconds, usually too short to checkpoint a large model, so 15%.

Commitment discounts
    Reserved / committed-use price = on-demand x (1 - discount). The headline "up to 72%" figures
    (AWS Savings Plans, Azure reservations) are 3-year all-upfront on general-purpose sizes; GPU
    sizes on no-upfront terms get less. Defaults: AWS EC2 Instance Savings Plans, no upfront,
    GPU families 35% (1y) / 55% (3y); GCP resource-based committed use discounts for GPUs 37% /
    55% (cloud.google.com/compute/docs/instances/committed-use-discounts-overview); Azure reserved
    VM instances for NC/ND sizes about 40% / 60%.

Managed services
    SageMaker bills ml.* instances above the EC2 rate. SAGEMAKER_MARKUP is the ratio of SageMaker
    training to EC2 on-demand prices per family in us-east-1 (aws.amazon.com/sagemaker/pricing vs
    aws.amazon.com/ec2/pricing/on-demand), applied to on-demand and to managed-spot prices;
    families not listed are not offered for SageMaker training here. Azure ML bills compute at the
    VM rate; its low-priority VMs are priced at the Azure spot rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpufleet.clouds import Cloud
from gpufleet.pricing_models import COMMITMENT_TERMS, Pricing

DEFAULT_INTERRUPTION_OVERHEAD: dict[Cloud, float] = {"aws": 0.10, "gcp": 0.15, "azure": 0.15}

DEFAULT_COMMITMENT_DISCOUNTS: dict[Cloud, dict[Pricing, float]] = {
    "aws": {"reserved_1y": 0.35, "reserved_3y": 0.55},
    "gcp": {"reserved_1y": 0.37, "reserved_3y": 0.55},
    "azure": {"reserved_1y": 0.40, "reserved_3y": 0.60},
}

SAGEMAKER_MARKUP: dict[str, float] = {
    "p3": 1.25,
    "p3dn": 1.25,
    "p4d": 1.15,
    "p4de": 1.15,
    "p5": 1.15,
    "p5e": 1.15,
    "p5en": 1.15,
    "g4dn": 1.40,
    "g5": 1.40,
    "g6": 1.39,
    "g6e": 1.22,
    "trn1": 1.15,
    "trn1n": 1.15,
}


def sagemaker_markup(instance_type: str) -> float | None:
    """The SageMaker-over-EC2 price ratio for an EC2 instance type, or None if not offered."""
    return SAGEMAKER_MARKUP.get(instance_type.split(".", 1)[0])


@dataclass(frozen=True)
class PricingAssumptions:
    interruption_overhead: dict[Cloud, float]
    commitment_discounts: dict[Cloud, dict[Pricing, float]]

    def spot_multiplier(self, cloud: Cloud, nodes: int) -> float:
        return 1.0 + self.interruption_overhead[cloud] * nodes

    def commitment_multiplier(self, cloud: Cloud, pricing: Pricing) -> float:
        return 1.0 - self.commitment_discounts[cloud][pricing]

    def as_dict(self) -> dict[str, object]:
        return {
            "interruption_overhead": dict(self.interruption_overhead),
            "commitment_discounts": {k: dict(v) for k, v in self.commitment_discounts.items()},
        }


def resolve_assumptions(
    interruption_overhead: float | Mapping[Cloud, float] | None,
    commitment_overrides: Mapping[Cloud, Mapping[str, float | None]],
) -> PricingAssumptions:
    """Spec overrides on top of the defaults above."""
    overhead = dict(DEFAULT_INTERRUPTION_OVERHEAD)
    if isinstance(interruption_overhead, int | float):
        overhead = dict.fromkeys(overhead, float(interruption_overhead))
    elif interruption_overhead:
        overhead.update(interruption_overhead)
    discounts: dict[Cloud, dict[Pricing, float]] = {
        cloud: dict(terms) for cloud, terms in DEFAULT_COMMITMENT_DISCOUNTS.items()
    }
    for cloud, terms in commitment_overrides.items():
        for term in COMMITMENT_TERMS:
            value = terms.get(term)
            if value is not None:
                discounts[cloud][term] = value
    return PricingAssumptions(overhead, discounts)
