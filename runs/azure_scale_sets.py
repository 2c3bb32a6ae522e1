"""A run on an Azure scale set (``azure:SpotScaleSet``) and its autoscale setting.

The stack builds the set (capacity ignored by ``pulumi up``) and an Azure Monitor autoscale
setting from 0 to the set's size: disabled for work on request, enabled with recurring weekly
profiles for work on a schedule. A run leaves its guard first: the setting enabled with a
fixed-date profile (``RUN_PROFILE``, UTC, from now to the run's end, capacity N), which Azure
prefers to recurring and default profiles while it lasts; for work on request the default
profile's bounds become 0 to 0 (a profile without rules leaves a count within its bounds as
it is, so 0 to the set's size would keep N after the run), until ``--to 0`` or the next run.
Then it sets the set's capacity to N, so the run starts now rather than at autoscale's next
evaluation. ``--to 0`` removes the profile; for work on request it restores the default
profile's bounds, disables the setting and sets the capacity to 0 (a set on a schedule
follows its profiles again).

The set is found by the workload's tags (the one that scales carries the plan's expected
use), the setting by its target. The set's tags keep the month's ledger (``usage_ledger``),
written with the capacity. The command returns once Azure accepted the capacity: new
VMs come up in the background.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from azure.mgmt.compute import models as compute_models
from azure.mgmt.monitor import models as monitor_models

from gpufleet.components.scaling import AZURE_MAX_PROFILES
from gpufleet.runs.azure_access import AzureAccess, azure_access, azure_errors
from gpufleet.runs.cloud_error import CloudError, ambiguous, not_deployed
from gpufleet.runs.part_change import PartChange
from gpufleet.runs.run_duration import RunWindow
from gpufleet.runs.run_parts import PartRun
from gpufleet.runs.stack_target import StackTarget, azure_scope
from gpufleet.runs.workload_tags import carries, scales, tags_text, workload_tags

RUN_PROFILE = "gpufleet-run"
_SET_WRITE = "Microsoft.Compute/virtualMachineScaleSets/write"
_SETTING_WRITE = "Microsoft.Insights/autoscalesettings/write"


@dataclass(frozen=True)
class AzureScaleSet:
    """The workload's scale set that scales and its autoscale setting, as found; the set's
    tags keep the month's ledger."""

    access: AzureAccess
    group: str  # the resource group
    scale_set: compute_models.VirtualMachineScaleSet
    setting: monitor_models.AutoscaleSettingResource

    @property
    def ledger_tags(self) -> dict[str, str]:
        return dict(self.scale_set.tags or {})


def find_scale_set(run: PartRun, target: StackTarget) -> AzureScaleSet:
    subscription, region = azure_scope(target, run.workload)  # check_site made sure
    group = region.resource_group_name
    access = azure_access(subscription)
    scope = f"/subscriptions/{subscription}/resourceGroups/{group}"
    scale_set = _scaling_set(access, group, scope, workload_tags(target.settings, run.workload))
    return AzureScaleSet(access, group, scale_set, _setting_of(access, group, scope, scale_set))


def scale_scale_set(
    run: PartRun, window: RunWindow, found: AzureScaleSet, ledger: dict[str, str]
) -> PartChange:
    access, group, scale_set, setting = found.access, found.group, found.scale_set, found.setting
    on_request = run.part.scaling == "on_request"
    setting_name, set_name = str(setting.name), str(scale_set.name)
    profiles = [p for p in setting.profiles if p.name != RUN_PROFILE]
    if window.until is not None:
        if len(profiles) >= AZURE_MAX_PROFILES:
            raise CloudError(
                "azure",
                f"autoscale setting {setting_name} has {len(profiles)} profiles, Azure's "
                "most: no room for the run's",
            )
        for profile in _defaults(profiles) if on_request else []:
            profile.capacity = _capacity(0, 0)
        profiles.append(run_profile(run.instances, window))
        setting.enabled = True
    else:
        for profile in _defaults(profiles) if on_request else []:
            profile.capacity = _capacity(0, run.part.instances)
        setting.enabled = not on_request
    setting.profiles = profiles
    capacity = run.instances if window.until is not None else 0
    if window.until is None:
        # Capacity first, then the run's profile: a set that cannot be emptied keeps the
        # profile that ends the run.
        if on_request:
            _set_capacity(access, group, scale_set, 0, ledger)
        else:
            _set_tags(access, group, scale_set, ledger)
        try:
            _write_setting(access, group, setting)
        except CloudError as exc:
            raise exc.after(
                f"{set_name} is at 0 but its autoscale setting still holds the run's profile "
                f"{RUN_PROFILE}, which may bring its VMs back until the run's end"
            ) from None
    else:
        _write_setting(access, group, setting)  # the guard, before the capacity
        try:
            # The ledger with the capacity: booked as the run starts.
            _set_capacity(access, group, scale_set, capacity, ledger)
        except CloudError as exc:
            end = window.until.strftime("%Y-%m-%d %H:%M UTC")
            raise exc.after(
                f"the run's autoscale profile is set: autoscale brings {set_name} to "
                f"{capacity} VM(s) at its next evaluation, until {end} (--to 0 cancels)"
            ) from None
    names = (set_name, setting_name)
    if window.until is None:
        state = "enabled" if setting.enabled else "disabled"
        guard = f"autoscale profile {RUN_PROFILE} removed; autoscale setting {state}"
        return PartChange(run.part.component, capacity, names, guard)
    end = window.until.strftime("%Y-%m-%d %H:%M UTC")
    after = "the default profile's 0" if on_request else "the schedule's profiles"
    guard = f"autoscale profile {RUN_PROFILE} holds {capacity} VM(s) until {end}, then {after}"
    return PartChange(run.part.component, capacity, names, guard)


def _set_tags(
    access: AzureAccess,
    group: str,
    scale_set: compute_models.VirtualMachineScaleSet,
    ledger: dict[str, str],
) -> None:
    update = compute_models.VirtualMachineScaleSetUpdate(tags={**(scale_set.tags or {}), **ledger})
    with azure_errors(_SET_WRITE, scale_set.id or str(scale_set.name)):
        access.compute.virtual_machine_scale_sets.begin_update(
            group, str(scale_set.name), update, polling=False
        )


def _write_setting(
    access: AzureAccess, group: str, setting: monitor_models.AutoscaleSettingResource
) -> None:
    with azure_errors(_SETTING_WRITE, setting.id or str(setting.name)):
        access.monitor.autoscale_settings.create_or_update(group, str(setting.name), setting)


def run_profile(instances: int, window: RunWindow) -> monitor_models.AutoscaleProfile:
    assert window.until is not None
    return monitor_models.AutoscaleProfile(
        name=RUN_PROFILE,
        capacity=_capacity(instances, instances),
        rules=[],
        fixed_date=monitor_models.TimeWindow(time_zone="UTC", start=window.start, end=window.until),
    )


def _capacity(least: int, most: int) -> monitor_models.ScaleCapacity:
    return monitor_models.ScaleCapacity(minimum=str(least), maximum=str(most), default=str(least))


def _defaults(
    profiles: list[monitor_models.AutoscaleProfile],
) -> list[monitor_models.AutoscaleProfile]:
    """The profiles in force when no other is: neither recurring nor on a date."""
    return [p for p in profiles if p.recurrence is None and p.fixed_date is None]


def _scaling_set(
    access: AzureAccess, group: str, scope: str, tags: dict[str, str]
) -> compute_models.VirtualMachineScaleSet:
    with azure_errors("Microsoft.Compute/virtualMachineScaleSets/read", scope):
        found = [
            scale_set
            for scale_set in access.compute.virtual_machine_scale_sets.list(group)
            if carries(scale_set.tags, tags) and scales(scale_set.tags)
        ]
    if not found:
        raise not_deployed("azure", f"scale set that scales, tagged {tags_text(tags)}", scope)
    if len(found) > 1:
        raise ambiguous("azure", "scale sets", [str(s.name) for s in found])
    return found[0]


def _setting_of(
    access: AzureAccess, group: str, scope: str, scale_set: compute_models.VirtualMachineScaleSet
) -> monitor_models.AutoscaleSettingResource:
    with azure_errors("Microsoft.Insights/autoscalesettings/read", scope):
        settings = list(access.monitor.autoscale_settings.list_by_resource_group(group))
    target = (scale_set.id or "").lower()
    for setting in settings:
        if (setting.target_resource_uri or "").lower() == target:
            return setting
    raise not_deployed("azure", f"autoscale setting targeting {scale_set.name}", scope)


def _set_capacity(
    access: AzureAccess,
    group: str,
    scale_set: compute_models.VirtualMachineScaleSet,
    count: int,
    ledger: dict[str, str],
) -> None:
    sku: Any = scale_set.sku
    update = compute_models.VirtualMachineScaleSetUpdate(
        sku=compute_models.Sku(name=sku.name, tier=sku.tier, capacity=count),
        # A PATCH's tags replace the set's: all of them, the ledger's updated.
        tags={**(scale_set.tags or {}), **ledger},
    )
    with azure_errors(_SET_WRITE, scale_set.id or str(scale_set.name)):
        # Accepted is enough: the VMs come up (or go) in the background.
        access.compute.virtual_machine_scale_sets.begin_update(
            group, str(scale_set.name), update, polling=False
        )
