"""Rule ``aml-scale-to-zero``: Azure ML compute clusters scale to zero nodes when idle (outside
prod); a cluster that keeps nodes bills for them while nothing runs."""

from __future__ import annotations

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import camel_keys, get_path, is_unknown
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policy_tags import COST


def check_aml_scale_to_zero(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    props = camel_keys(resource.props)  # its properties are a union: dict keys untranslated
    if get_path(props, "properties", "computeType") != "AmlCompute":
        return findings
    minimum = get_path(props, "properties", "properties", "scaleSettings", "minNodeCount")
    if is_unknown(minimum):
        findings.unknown = (["properties", "properties", "scaleSettings", "minNodeCount"], minimum)
    elif minimum is not None and float(minimum) > 0:
        findings.violate(
            f"Azure ML cluster keeps {minimum:g} nodes when idle; set scaleSettings.minNodeCount "
            "to 0 outside prod"
        )
    return findings


POLICY = resource_policy(
    "aml-scale-to-zero",
    "Azure ML compute clusters scale to zero when idle.",
    check_aml_scale_to_zero,
    config={},
    display_name="Azure ML clusters scale to zero",
    tags=[COST],
    applies_to={types.AZURE_ML_COMPUTE},
)
