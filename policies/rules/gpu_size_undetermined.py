"""Rule ``gpu-size-undetermined`` (mandatory by default): GPU capacity whose machine or count
gpufleet cannot determine blocks, naming the resource and what would let gpufleet size it —
a type it reads no size of, a GPU-looking machine the catalog does not know, a value read
from an invoke or a secret an export does not decrypt, a scaler it does not read changing the
resource's size, GPUs asked for through a Kubernetes or another provider's request.

Fail closed: what cannot be sized could be any size. A value that is only unknown during a
preview (known once deployed, as Pulumi treats it) is reported as advisory. A reviewed class
of resources is made advisory in the policy config (``advisory: [{type | resource, reason}]``)
or one resource acknowledged with a suppression; both show in every report.
"""

from __future__ import annotations

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
                f"{'; '.join(footprint.undetermined)}"
                + ("" if footprint.unknown else f"; {_WHAT_DECIDES}"),
                item.resource.urn,
                advisory=footprint.unknown,
            )
    return findings


# What lets gpufleet decide, said once per finding that blocks.
_WHAT_DECIDES = (
    "size it with a type gpufleet reads (docs/gpu-coverage.md), or acknowledge it: "
    "a suppression with its reason, or 'advisory' for its type in the policy config"
)


POLICY = stack_policy(
    "gpu-size-undetermined",
    "GPU capacity whose size cannot be determined blocks until it can be, or is acknowledged.",
    check_undetermined,
    config={},
    display_name="GPU resources of unknown size",
    tags=[COST],
    remediation_steps="Use a resource type gpufleet sizes, give the machine type and counts "
    "as plain values, or acknowledge the resource: a suppression with its reason, or "
    "'advisory' for its type or URN in the environment's policy config.",
)
