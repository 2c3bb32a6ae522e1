"""A local server speaking the Compute Engine v1 REST API as google-cloud-compute calls it,
for the resources a run touches: instance templates, regional managed instance groups and
autoscalers, instances (start, stop, setScheduling), region and zone operations; and an OAuth
token endpoint. It keeps the resources, applies what it is sent, answers 403 with GCP's
wording for the permissions a test denies, and 401 unless the bearer token is one it issued
or a JWT signed with the test service account's key (the clients sign their own). Under
``/v2/`` the same server speaks Cloud Tasks (``cloud_tasks_server``), where a group's guard
queue is, as the stack deploys it (``add_group(..., guarded=True)``)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from google.auth import exceptions as auth_exceptions
from google.auth import jwt

from gpufleet.components.gcp.guard_target import queue_name, resize_path
from tests.runs.cloud_tasks_server import CloudTasksApi
from tests.runs.local_https import Reply, Request

TOKEN = "ya29.local-test-token"
API = "/compute/v1/projects/"


@dataclass
class ComputeState:
    templates: list[dict[str, Any]] = field(default_factory=list)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    autoscalers: dict[str, dict[str, Any]] = field(default_factory=dict)
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)
    denied: set[str] = field(default_factory=set)
    # Operations a client must poll: the first answer says RUNNING.
    slow_operations: bool = False
    # Operations of these kinds end in this error (code, message), as GCP reports a zone out
    # of capacity: the request accepted, the operation failed.
    failing: dict[str, tuple[str, str]] = field(default_factory=dict)
    operations: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Region -> its commitments, as regionCommitments.list returns them (a page at a time).
    commitments: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # Zone -> its machine types and accelerator types, as the aggregated lists return them.
    machine_types: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    accelerator_types: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # Region -> its quotas, as regions.get returns them ({metric, limit, usage}).
    region_quotas: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class ComputeApi:
    def __init__(self, project: str, public_key: str) -> None:
        self.project = project
        self.public_key = public_key
        self.state = ComputeState()
        self.received: list[Request] = []  # the serving LocalServer's log, once it listens
        self._ids = itertools.count(1)
        self.tasks = CloudTasksApi(project, self._authenticated)

    # --- what tests set up ---------------------------------------------------------------

    def link(self, path: str) -> str:
        return f"https://www.googleapis.com/compute/v1/projects/{self.project}/{path}"

    def add_group(
        self,
        name: str,
        region: str,
        labels: dict[str, str],
        *,
        policy: dict[str, Any] | None,
        guarded: bool = False,
    ) -> None:
        """A SpotGroup as deployed: its labelled template, the group, (when it scales) an
        autoscaler with ``policy``, and (on request, ``guarded``) its guard queue, whose
        tasks resize it to 0 (components/gcp/run_guard.py)."""
        template = f"{name}-template-{next(self._ids)}"
        self.state.templates.append(
            {
                "name": template,
                "selfLink": self.link(f"global/instanceTemplates/{template}"),
                "properties": {"machineType": "a3-highgpu-8g", "labels": labels},
            }
        )
        group_link = self.link(f"regions/{region}/instanceGroupManagers/{name}-group")
        self.state.groups[f"{name}-group"] = {
            "name": f"{name}-group",
            "region": self.link(f"regions/{region}"),
            "selfLink": group_link,
            "targetSize": 0,
            "versions": [
                {
                    "name": "primary",
                    "instanceTemplate": self.link(
                        f"global/instanceTemplates/{template}?uniqueId=123"
                    ),
                }
            ],
        }
        if guarded:
            self.tasks.add_queue(
                region, queue_name(f"{name}-group"), path=resize_path(group_link), query="size=0"
            )
        if policy is not None:
            self.state.autoscalers[f"{name}-autoscaler"] = {
                "name": f"{name}-autoscaler",
                "region": self.link(f"regions/{region}"),
                "selfLink": self.link(f"regions/{region}/autoscalers/{name}-autoscaler"),
                "target": group_link,
                "description": "gpufleet expected-minutes=3600",
                "autoscalingPolicy": policy,
                "status": "ACTIVE",
                "recommendedSize": 0,
            }

    def add_instance(self, name: str, zone: str, labels: dict[str, str], status: str) -> None:
        self.state.instances[name] = {
            "name": name,
            "zone": self.link(f"zones/{zone}"),
            "selfLink": self.link(f"zones/{zone}/instances/{name}"),
            "status": status,
            "labels": labels,
            "labelFingerprint": "42WmSpB8rSM=",
            "scheduling": {
                "provisioningModel": "SPOT",
                "preemptible": True,
                "automaticRestart": False,
                "onHostMaintenance": "TERMINATE",
                "instanceTerminationAction": "STOP",
            },
        }

    # --- the API -------------------------------------------------------------------------

    def route(self, request: Request) -> Reply:
        if request.path.startswith("/v2/"):
            return self.tasks.route(request)
        if request.path == "/token":
            return Reply(200, {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"})
        if not self._authenticated(request.headers.get("authorization", "")):
            return _error(401, "Request had invalid authentication credentials.")
        if not request.path.startswith(f"{API}{self.project}/"):
            return _error(404, f"The resource '{request.path}' was not found")
        path = request.path[len(f"{API}{self.project}/") :]
        for pattern, method, action, handler in self._routes():
            found = re.fullmatch(pattern, path)
            permission = f"compute.{action}"
            if found and request.method == method:
                if permission in self.state.denied:
                    resource = f"projects/{self.project}/{path}"
                    return _error(
                        403, f"Required '{permission}' permission for '{resource}'", "forbidden"
                    )
                return handler(request, *found.groups())
        return _error(404, f"The resource '{request.path}' was not found")

    def _authenticated(self, header: str) -> bool:
        token = header.removeprefix("Bearer ")
        if token == TOKEN:
            return True
        try:
            jwt.decode(token, certs=self.public_key)
        except (ValueError, auth_exceptions.GoogleAuthError):
            return False
        return True

    def _routes(self) -> list[tuple[str, str, str, Any]]:
        region, zone, name = r"regions/([^/]+)", r"zones/([^/]+)", r"([^/]+)"
        groups, vms = f"{region}/instanceGroupManagers", f"{zone}/instances"
        return [
            ("global/instanceTemplates", "GET", "instanceTemplates.list", self._templates),
            (groups, "GET", "instanceGroupManagers.list", self._groups),
            (f"{groups}/{name}/resize", "POST", "instanceGroupManagers.update", self._resize),
            (f"{region}/autoscalers", "GET", "autoscalers.list", self._autoscalers),
            (f"{region}/autoscalers", "PUT", "autoscalers.update", self._update),
            (f"{region}/operations/{name}/wait", "POST", "regionOperations.get", self._op),
            (vms, "GET", "instances.list", self._instances),
            (f"{vms}/{name}/setScheduling", "POST", "instances.setScheduling", self._scheduling),
            (f"{vms}/{name}/setLabels", "POST", "instances.setLabels", self._labels),
            (f"{vms}/{name}/start", "POST", "instances.start", self._start),
            (f"{vms}/{name}/stop", "POST", "instances.stop", self._stop),
            (f"{zone}/operations/{name}/wait", "POST", "zoneOperations.get", self._op),
            (f"{region}/commitments", "GET", "commitments.list", self._commitments),
            ("aggregated/machineTypes", "GET", "machineTypes.list", self._machine_types),
            (region, "GET", "regions.get", self._region),
            ("aggregated/acceleratorTypes", "GET", "acceleratorTypes.list", self._accelerators),
        ]

    def _commitments(self, request: Request, region: str) -> Reply:
        """Two commitments a page, as the API pages with pageToken / nextPageToken."""
        items = self.state.commitments.get(region, [])
        start = int(request.query.get("pageToken") or 0)
        page: dict[str, Any] = {"kind": "compute#commitmentList", "items": items[start : start + 2]}
        if start + 2 < len(items):
            page["nextPageToken"] = str(start + 2)
        return Reply(200, page)

    def _region(self, request: Request, region: str) -> Reply:
        return Reply(
            200,
            {
                "kind": "compute#region",
                "name": region,
                "status": "UP",
                "quotas": self.state.region_quotas.get(region, []),
            },
        )

    def _machine_types(self, request: Request) -> Reply:
        return _aggregated(request, self.state.machine_types, "machineTypes")

    def _accelerators(self, request: Request) -> Reply:
        return _aggregated(request, self.state.accelerator_types, "acceleratorTypes")

    def _templates(self, request: Request) -> Reply:
        wanted = dict(re.findall(r'labels\.(\S+) = "([^"]*)"', request.query.get("filter", "")))
        items = [
            t
            for t in self.state.templates
            if all(t["properties"]["labels"].get(k) == v for k, v in wanted.items())
        ]
        return Reply(200, {"kind": "compute#instanceTemplateList", "items": items})

    def _groups(self, request: Request, region: str) -> Reply:
        items = [g for g in self.state.groups.values() if g["region"].endswith(f"/{region}")]
        return Reply(200, {"kind": "compute#regionInstanceGroupManagerList", "items": items})

    def _resize(self, request: Request, region: str, name: str) -> Reply:
        self.state.groups[name]["targetSize"] = int(request.query["size"])
        return self._operation("compute.instanceGroupManagers.resize", region=region)

    def _autoscalers(self, request: Request, region: str) -> Reply:
        items = [a for a in self.state.autoscalers.values() if a["region"].endswith(f"/{region}")]
        return Reply(200, {"kind": "compute#regionAutoscalerList", "items": items})

    def _update(self, request: Request, region: str) -> Reply:
        name = request.query["autoscaler"]
        if name not in self.state.autoscalers:
            return _error(404, f"The resource 'autoscalers/{name}' was not found")
        self.state.autoscalers[name] = request.body
        return self._operation("compute.regionAutoscalers.update", region=region)

    def _instances(self, request: Request, zone: str) -> Reply:
        wanted = dict(re.findall(r'labels\.(\S+) = "([^"]*)"', request.query.get("filter", "")))
        items = [
            i
            for i in self.state.instances.values()
            if i["zone"].endswith(f"/{zone}")
            and all(i["labels"].get(k) == v for k, v in wanted.items())
        ]
        return Reply(200, {"kind": "compute#instanceList", "items": items})

    def _scheduling(self, request: Request, zone: str, name: str) -> Reply:
        instance = self.state.instances[name]
        if instance["status"] != "TERMINATED" and "maxRunDuration" in request.body:
            return _error(400, "Instance must be stopped to update maxRunDuration", "badRequest")
        instance["scheduling"] = request.body
        return self._operation("compute.instances.setScheduling", zone=zone)

    def _labels(self, request: Request, zone: str, name: str) -> Reply:
        instance = self.state.instances[name]
        # As the API does: a change made on a stale read is refused, and each changes it.
        if request.body.get("labelFingerprint") != instance["labelFingerprint"]:
            return _error(
                412,
                "Labels fingerprint either invalid or resource labels have changed",
                "conditionNotMet",
            )
        instance["labels"] = request.body.get("labels", {})
        instance["labelFingerprint"] = f"fp-{next(self._ids)}"
        return self._operation("compute.instances.setLabels", zone=zone)

    def _start(self, request: Request, zone: str, name: str) -> Reply:
        self.state.instances[name]["status"] = "RUNNING"
        return self._operation("compute.instances.start", zone=zone)

    def _stop(self, request: Request, zone: str, name: str) -> Reply:
        self.state.instances[name]["status"] = "TERMINATED"
        return self._operation("compute.instances.stop", zone=zone)

    def _operation(self, kind: str, *, region: str = "", zone: str = "") -> Reply:
        name = f"operation-{next(self._ids)}"
        scope = f"regions/{region}" if region else f"zones/{zone}"
        operation = {
            "kind": "compute#operation",
            "id": str(next(self._ids)),
            "name": name,
            "operationType": kind,
            "status": "RUNNING" if self.state.slow_operations else "DONE",
            "progress": 0,
            "selfLink": self.link(f"{scope}/operations/{name}"),
            **({"region": self.link(scope)} if region else {"zone": self.link(scope)}),
        }
        if kind in self.state.failing:
            code, message = self.state.failing[kind]
            operation.update(
                status="DONE",
                httpErrorStatusCode=503,
                httpErrorMessage="SERVICE UNAVAILABLE",
                error={"errors": [{"code": code, "message": message}]},
            )
        self.state.operations[name] = operation
        return Reply(200, dict(operation))

    def _op(self, request: Request, scope: str, name: str) -> Reply:
        operation = self.state.operations[name]
        operation["status"], operation["progress"] = "DONE", 100
        return Reply(200, operation)


def _error(status: int, message: str, reason: str = "required") -> Reply:
    return Reply(
        status,
        {
            "error": {
                "code": status,
                "message": message,
                "errors": [{"message": message, "domain": "global", "reason": reason}],
            }
        },
    )


def _aggregated(request: Request, by_zone: dict[str, list[dict[str, Any]]], key: str) -> Reply:
    """An aggregated list, two zones a page (``pageToken`` / ``nextPageToken``)."""
    zones = sorted(by_zone)
    start = int(request.query.get("pageToken") or 0)
    page: dict[str, Any] = {
        "kind": f"compute#{key[:-1]}AggregatedList",
        "items": {f"zones/{z}": {key: by_zone[z]} for z in zones[start : start + 2]},
    }
    if start + 2 < len(zones):
        page["nextPageToken"] = str(start + 2)
    return Reply(200, page)
