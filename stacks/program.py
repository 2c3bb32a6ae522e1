"""The gpufleet Pulumi program: stack config in, one component per planned part out.

``build_stack(settings, site)`` creates one explicit provider per cloud and region the plan
uses (the stack config turns the default providers off for those clouds, so nothing can land
in an account or region by accident), then per workload the components its parts name, built
by their registry entries (``component_registry``), parented to nothing but scoped to their
provider. It returns, per workload, what was built and its key ids; ``__main__`` exports that.

Missing site settings (a VPC for a region the plan chose, a GCP image) are errors naming the
config key to set, raised before any resource of that workload registers.
"""

from __future__ import annotations

from typing import Any

import pulumi

from gpufleet.components.replica_slots import slots_tag
from gpufleet.components.tagging import RequiredTags
from gpufleet.stacks.component_registry import COMPONENTS, BuildContext, slot_layout
from gpufleet.stacks.stack_config import (
    ProviderSetting,
    Site,
    StackConfigError,
    StackSettings,
)


def build_stack(settings: StackSettings, site: Site) -> dict[str, Any]:
    providers = {p.name: _provider(p, site) for p in settings.providers}
    built: dict[str, Any] = {}
    for workload in settings.workloads:
        if workload.provider not in providers:
            raise StackConfigError(
                f"gpufleet:workloads: {workload.name} uses provider {workload.provider!r}, "
                "which gpufleet:providers does not define; run gpufleet generate again"
            )
        layout = slot_layout(workload)
        tags = RequiredTags(
            project=settings.project,
            owner=settings.owner,
            cost_center=settings.cost_center,
            environment=settings.environment,
            workload=workload.name,
            workload_kind=workload.kind,
            replica_slots=None if layout is None else slots_tag(layout),
            extra=workload.tags,
        )
        opts = pulumi.ResourceOptions(providers=[providers[workload.provider]])
        parts: list[dict[str, Any]] = []
        for index, part in enumerate(workload.parts):
            name = workload.name if index == 0 else f"{workload.name}-burst"
            # The stack config's models made sure the part is on the workload's cloud.
            entry = COMPONENTS[part.component]
            base_ids = parts[0] if parts else {}
            ids = entry.build(BuildContext(name, workload, part, tags, site, opts, base_ids))
            # A part another part's component builds (a GCP burst, in its base's group) names
            # that component.
            parts.append({"component": part.component, "name": name, **ids})
        built[workload.name] = {
            "cloud": workload.cloud,
            "region": workload.region,
            "instanceType": workload.instance_type,
            "parts": parts,
        }
    return built


def _provider(setting: ProviderSetting, site: Site) -> pulumi.ProviderResource:
    if setting.cloud == "aws":
        import pulumi_aws as aws

        return aws.Provider(setting.name, region=setting.region)
    if setting.cloud == "gcp":
        import pulumi_gcp as gcp

        return gcp.Provider(setting.name, project=site.gcp().project, region=setting.region)
    import pulumi_azure_native as azure

    subscription = site.azure_site.subscription_id if site.azure_site else None
    return azure.Provider(setting.name, location=setting.region, subscription_id=subscription)
