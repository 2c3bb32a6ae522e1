"""``gpufleet scale`` on an Azure scale set, against a local HTTPS server speaking the Azure
Resource Manager API (tests/runs/azure_arm_server.py), reached through gpufleet's endpoint
setting with a managed identity token from the same test (App Service style, plain HTTP on
127.0.0.1): the autoscale setting enabled with a fixed-date profile (the guard) and the
default profile held at 0, the capacity, ``--to 0``, a set on a schedule keeping its
profiles, a missing permission and no credential as one line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gpufleet import tag_keys
from gpufleet.runs.azure_scale_sets import RUN_PROFILE
from tests.runs.azure_arm_server import ArmApi
from tests.runs.conftest import Scale
from tests.runs.stack_files import (
    ENVIRONMENT,
    PROJECT,
)


def tags(workload: str, *, scales: bool = True) -> dict[str, str]:
    found = {
        tag_keys.PROJECT: PROJECT,
        tag_keys.ENVIRONMENT: ENVIRONMENT,
        tag_keys.WORKLOAD: workload,
        tag_keys.MANAGED_BY: tag_keys.MANAGED_BY_GPUFLEET,
    }
    if scales:
        found[tag_keys.EXPECTED_MINUTES] = "3600"
    return found


def default_profile(size: int) -> dict[str, Any]:
    """As the stack builds it on request (components/azure/group_scaling.py)."""
    return {
        "name": "default",
        "capacity": {"minimum": "0", "maximum": str(size), "default": "0"},
        "rules": [],
    }


def weekly(name: str, count: int, hour: int) -> dict[str, Any]:
    return {
        "name": name,
        "capacity": {"minimum": str(count), "maximum": str(count), "default": str(count)},
        "rules": [],
        "recurrence": {
            "frequency": "Week",
            "schedule": {"timeZone": "UTC", "days": ["Monday"], "hours": [hour], "minutes": [0]},
        },
    }


def setting(api: ArmApi, name: str) -> dict[str, Any]:
    return api.state.settings[f"{name}-autoscale"]["properties"]


def profiles(api: ArmApi, name: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in setting(api, name)["profiles"]}


def capacity(api: ArmApi, name: str) -> int:
    return api.state.scale_sets[f"{name}-vmss"]["sku"]["capacity"]


def test_a_run_enables_autoscale_with_a_profile_that_ends_it(arm: ArmApi, scale: Scale) -> None:
    arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    arm.add_scale_set("other", tags("other"), [default_profile(4)])
    before = datetime.now(UTC)
    result = scale("azure-set", "--to", "3", "--for", "1d12h", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert setting(arm, "azure-set")["enabled"] is True
    run = profiles(arm, "azure-set")[RUN_PROFILE]
    assert run["capacity"] == {"minimum": "3", "maximum": "3", "default": "3"}
    assert run["fixedDate"]["timeZone"] == "UTC"
    start = datetime.fromisoformat(run["fixedDate"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(run["fixedDate"]["end"].replace("Z", "+00:00"))
    assert abs(start - before) < timedelta(seconds=30)
    assert end - start == timedelta(days=1, hours=12)
    # After the run, the default profile holds the set at 0.
    assert profiles(arm, "azure-set")["default"]["capacity"]["maximum"] == "0"
    assert capacity(arm, "azure-set") == 3
    assert capacity(arm, "other") == 0 and setting(arm, "other")["enabled"] is False
    # The guard is written before the capacity changes.
    writes = [r.method for r in arm.received if r.method in ("PUT", "PATCH")]
    assert writes == ["PUT", "PATCH"]
    patch = next(r for r in arm.received if r.method == "PATCH")
    assert patch.body["sku"] == {
        "name": "Standard_NC24ads_A100_v4",
        "tier": "Standard",
        "capacity": 3,
    }
    assert json.loads(result.stdout)["parts"][0]["resources"] == [
        "azure-set-vmss",
        "azure-set-autoscale",
    ]


def test_to_zero_removes_the_profile_and_disables_autoscale(arm: ArmApi, scale: Scale) -> None:
    arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    assert scale("azure-set", "--to", "4", "--for", "2h").exit_code == 0
    result = scale("azure-set", "--to", "0")
    assert result.exit_code == 0, result.output
    assert setting(arm, "azure-set")["enabled"] is False
    assert profiles(arm, "azure-set") == {"default": default_profile(4)}
    assert capacity(arm, "azure-set") == 0


def test_a_set_on_a_schedule_keeps_its_profiles(arm: ArmApi, scale: Scale) -> None:
    week = [weekly("run-0", 2, 2), weekly("idle-1", 0, 8)]
    arm.add_scale_set("azure-scheduled", tags("azure-scheduled"), week)
    assert scale("azure-scheduled", "--to", "2", "--for", "45m").exit_code == 1  # over plan
    why = ["--over-plan", "load test"]
    assert scale("azure-scheduled", "--to", "2", "--for", "45m", *why).exit_code == 0
    assert arm.state.scale_sets["azure-scheduled-vmss"]["tags"]["gpufleet-over-plan"] == "load_test"
    assert set(profiles(arm, "azure-scheduled")) == {"run-0", "idle-1", RUN_PROFILE}
    assert profiles(arm, "azure-scheduled")["idle-1"] == week[1]
    result = scale("azure-scheduled", "--to", "0")
    assert result.exit_code == 0, result.output
    assert list(profiles(arm, "azure-scheduled").values()) == week
    assert setting(arm, "azure-scheduled")["enabled"] is True
    assert capacity(arm, "azure-scheduled") == 2  # its schedule, not the run, sizes it now


def test_a_missing_permission_is_one_line_naming_it(arm: ArmApi, scale: Scale) -> None:
    set_id = arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    arm.state.denied.add("Microsoft.Compute/virtualMachineScaleSets/write")
    result = scale("azure-set", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"azure: permission denied: Microsoft.Compute/virtualMachineScaleSets/write on {set_id}; "
    )
    # The guard was set first: the line says the run happens anyway, and how to cancel it.
    assert "autoscale brings" in line and "--to 0 cancels" in line


def test_to_zero_empties_the_set_before_it_drops_the_runs_profile(
    arm: ArmApi, scale: Scale
) -> None:
    arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    assert scale("azure-set", "--to", "2", "--for", "1h").exit_code == 0
    arm.state.denied.add("Microsoft.Compute/virtualMachineScaleSets/write")
    result = scale("azure-set", "--to", "0")
    assert result.exit_code == 1
    # Not emptied: the run's profile (its guard) is still there.
    assert RUN_PROFILE in profiles(arm, "azure-set")
    assert setting(arm, "azure-set")["enabled"] is True


def test_no_credential_is_one_line(
    arm: ArmApi, scale: Scale, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No service principal, no App Service identity, an instance metadata endpoint with no
    identity (this server), no Azure CLI login."""
    arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    monkeypatch.delenv("IDENTITY_ENDPOINT")
    monkeypatch.delenv("IDENTITY_HEADER")
    monkeypatch.setenv("AZURE_POD_IDENTITY_AUTHORITY_HOST", arm.base)
    result = scale("azure-set", "--to", "1", "--for", "1h")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        "azure: no credential found (DefaultAzureCredential: AZURE_CLIENT_ID/AZURE_TENANT_ID/"
        "AZURE_CLIENT_SECRET, workload identity, managed identity, az login, azd auth login, "
        "Connect-AzAccount)"
    ]
    assert capacity(arm, "azure-set") == 0


def test_a_stack_not_deployed_is_one_line(arm: ArmApi, scale: Scale) -> None:
    arm.add_scale_set("azure-set", tags("azure-set", scales=False), [default_profile(4)])
    result = scale("azure-set", "--to", "1", "--for", "1h")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("azure: no scale set that scales, tagged ")


def test_runs_stay_within_the_plans_hours_unless_told_why(
    arm: ArmApi, scale: Scale, runs: Scale
) -> None:
    """60 h a month planned for the set's 4 VMs, kept in its tags (a PATCH replaces them all:
    the others are sent back): 2 days at full size book 48 h, a third is refused with nothing
    written, then run with a reason."""
    arm.add_scale_set("azure-set", tags("azure-set"), [default_profile(4)])
    assert scale("azure-set", "--to", "4", "--for", "2d").exit_code == 0
    month = datetime.now(UTC).strftime("%Y-%m")
    written = arm.state.scale_sets["azure-set-vmss"]["tags"]
    assert written["gpufleet-used"] == f"{month}_2880_1"
    assert written[tag_keys.WORKLOAD] == "azure-set"  # the others kept
    calls = len(arm.received)
    refused = scale("azure-set", "--to", "4", "--for", "1d")
    assert refused.exit_code == 1 and "past its planned 60 h" in refused.stderr
    assert all(r.method == "GET" for r in arm.received[calls:])
    why = ["--over-plan", "customer demo"]
    assert scale("azure-set", "--to", "4", "--for", "1d", *why).exit_code == 0
    written = arm.state.scale_sets["azure-set-vmss"]["tags"]
    assert written["gpufleet-used"] == f"{month}_4320_2"
    assert written["gpufleet-over-plan"] == "customer_demo"
    listed = runs("--workload", "azure-set", "--format", "json")
    assert listed.exit_code == 0, listed.output
    (part,) = json.loads(listed.stdout)["parts"]
    assert (part["used_hours"], part["runs"], part["over_plan"]) == (72.0, 2, "customer_demo")
