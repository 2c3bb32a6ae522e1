"""Rule ``gpu-size-undetermined`` (advisory by default; an environment's policy config can make
it mandatory): GPU resources whose machine or count cannot be determined — unknown during a
preview, from an invoke, a GPU-looking type the catalog does not know, or a type gpufleet
knows can hold GPUs but reads no size of — are listed, never silently passed."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from gpufleet.capacity.stack_resource import StackResource
from gpufleet.policies.policy_builders import Findings, Settings, stack_policy
from gpufleet.policies.shared_reads import stack_footprints
from gpufleet.policy_tags import COST


def check_undetermined(resources: list[StackResource], settings: Settings) -> Findings:
    findings = Findings()
    for item in stack_footprints(resources):
        footprint = item.footprint
        if footprint.undetermined:
            findings.violate(
                f"{footprint.kind} {item.name}: GPU size not determined: "
                f"{'; '.join(footprint.undetermined)}",
                item.resource.urn,
            )
    return findings


POLICY = stack_policy(
    "gpu-size-undetermined",
    "GPU resources whose size cannot be determined are reported, not ignored.",
    check_undetermined,
    config={},
    display_name="GPU resources of unknown size",
    tags=[COST],
    enforcement_level=EnforcementLevel.ADVISORY,
)
