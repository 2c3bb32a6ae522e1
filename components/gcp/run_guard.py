"""The guard of a GCP group on request: what returns it to zero when a run's time is up, even if
nobody comes back.

A Cloud Tasks queue pinned to one call: ``regionInstanceGroupManagers.resize`` of this group to
0, made with the token of a service account of its own. ``gpufleet scale`` puts one task in it,
scheduled at the run's end (``runs/gcp_groups.py``); whatever the task says, the queue sends
that call (its HTTP target overrides the task's URL and token). A resize to 0 deletes the
group's VMs whatever their load: a hard end, where an autoscaler's schedule ending would leave
a busy VM to its CPU signal. Failed calls are retried with backoff for hours.

Least privilege: the account may act (Compute Instance Admin) on this one group, by an IAM
condition on its resource name, and nothing else; it has no keys. The queue is named after the
group (``queue_name``), so a run finds it from the group it scales.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from gpufleet.components.gcp import instance_settings as vm
from gpufleet.components.gcp.guard_target import (
    CLOUD_PLATFORM_SCOPE,
    COMPUTE_HOST,
    group_path,
    queue_name,
    resize_path,
)

# What the guard's account may do, on its one group (an IAM condition narrows it there):
# resize is compute.instanceGroupManagers.update, which no narrower predefined role holds.
GUARD_ROLE = "roles/compute.instanceAdmin.v1"


@dataclass(frozen=True)
class RunGuard:
    queue: gcp.cloudtasks.Queue
    account: gcp.serviceaccount.Account


def run_guard(
    name: str,
    group: gcp.compute.RegionInstanceGroupManager,
    *,
    region: str,
    project: str | None,
    parent: pulumi.Resource,
) -> RunGuard:
    child = pulumi.ResourceOptions(parent=parent)
    account = gcp.serviceaccount.Account(
        f"{name}-guard",
        account_id=vm.service_account_id(f"{name}-guard"),
        display_name=f"gpufleet {name}: resizes it to 0 when a run ends",
        project=project,
        opts=child,
    )
    gcp.projects.IAMMember(
        f"{name}-guard-resize",
        project=group.project,
        role=GUARD_ROLE,
        member=account.email.apply(lambda email: f"serviceAccount:{email}"),
        condition={
            "title": "this group only",
            "description": "gpufleet run guard: resizes one managed instance group",
            "expression": group.self_link.apply(
                lambda link: f'resource.name == "{group_path(link)}"'
            ),
        },
        opts=child,
    )
    queue = gcp.cloudtasks.Queue(
        f"{name}-guard",
        name=group.name.apply(queue_name),
        location=region,
        project=project,
        http_target={
            "http_method": "POST",
            "uri_override": {
                "scheme": "HTTPS",
                "host": COMPUTE_HOST,
                "path_override": {"path": group.self_link.apply(resize_path)},
                "query_override": {"query_params": "size=0"},
                "uri_override_enforce_mode": "ALWAYS",
            },
            "oauth_token": {"service_account_email": account.email, "scope": CLOUD_PLATFORM_SCOPE},
        },
        # A guard that fails (an API hiccup) tries again: 10 s, doubling to 5 min, for 12 h.
        retry_config={
            "max_attempts": -1,
            "min_backoff": "10s",
            "max_backoff": "300s",
            "max_doublings": 5,
            "max_retry_duration": "43200s",
        },
        rate_limits={"max_concurrent_dispatches": 1},
        # Every dispatch is logged: when a run was ended, and whether the call succeeded.
        stackdriver_logging_config={"sampling_ratio": 1.0},
        opts=child,
    )
    return RunGuard(queue, account)
