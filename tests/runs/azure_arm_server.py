"""A local server speaking the Azure Resource Manager REST API as azure-mgmt-compute and
azure-mgmt-monitor call it, for what a run touches: scale sets (list, PATCH with the
long-running-operation headers ARM sends, the operation's status) and autoscale settings
(list, PUT); and a managed identity token endpoint (App Service style: ``IDENTITY_ENDPOINT``
and ``IDENTITY_HEADER``) that also answers as IMDS with no identity assigned. It keeps the
resources, applies what it is sent, answers 403 ``AuthorizationFailed`` in ARM's words for
the actions a test denies, and 401 without the token it issued."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from tests.runs.local_https import Reply, Request

TOKEN = "arm-local-test-token"
IDENTITY_HEADER = "local-identity-header"
COMPUTE = "Microsoft.Compute/virtualMachineScaleSets"
INSIGHTS = "Microsoft.Insights/autoscalesettings"
RESERVATIONS = "Microsoft.Capacity/reservations"


@dataclass
class ArmState:
    scale_sets: dict[str, dict[str, Any]] = field(default_factory=dict)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    denied: set[str] = field(default_factory=set)
    identity: bool = True  # whether the managed identity gives tokens
    # The tenant's reservations, as Microsoft.Capacity lists them (a page at a time).
    reservations: list[dict[str, Any]] = field(default_factory=list)
    # Compute resource SKUs, as Microsoft.Compute/skus lists them (filtered by location).
    skus: list[dict[str, Any]] = field(default_factory=list)
    # Location -> its compute usages (quota name, current value, limit).
    usages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class ArmApi:
    def __init__(self, subscription: str, group: str, location: str) -> None:
        self.subscription, self.group, self.location = subscription, group, location
        self.state = ArmState()
        self.received: list[Request] = []  # the serving LocalServer's log, once it listens
        self.base = ""  # ARM's URL, once it listens

    def scope(self) -> str:
        return f"/subscriptions/{self.subscription}/resourceGroups/{self.group}"

    def add_scale_set(self, name: str, tags: dict[str, str], profiles: list[dict[str, Any]]) -> str:
        """A SpotScaleSet as deployed: the set at capacity 0, its autoscale setting (disabled
        when its only profile is the default one); the set's id."""
        set_id = f"{self.scope()}/providers/{COMPUTE}/{name}-vmss"
        self.state.scale_sets[f"{name}-vmss"] = {
            "id": set_id,
            "name": f"{name}-vmss",
            "type": COMPUTE,
            "location": self.location,
            "tags": tags,
            "sku": {"name": "Standard_NC24ads_A100_v4", "tier": "Standard", "capacity": 0},
            "properties": {"provisioningState": "Succeeded", "orchestrationMode": "Uniform"},
        }
        recurring = any("recurrence" in p for p in profiles)
        self.state.settings[f"{name}-autoscale"] = {
            # ARM writes the provider in lower case here; the run compares ids without case.
            "id": f"{self.scope()}/providers/microsoft.insights/autoscalesettings/{name}-autoscale",
            "name": f"{name}-autoscale",
            "type": "Microsoft.Insights/autoscaleSettings",
            "location": self.location,
            "tags": tags,
            "properties": {
                "name": f"{name}-autoscale",
                "enabled": recurring,
                "targetResourceUri": set_id.replace("Microsoft.Compute", "microsoft.compute"),
                "profiles": profiles,
                "notifications": [],
            },
        }
        return set_id

    def route(self, request: Request) -> Reply:
        if request.path.startswith("/msi/"):
            return self._identity(request)
        if request.path == "/metadata/identity/oauth2/token":  # IMDS: this host has none
            return Reply(
                400, {"error": "invalid_request", "error_description": "Identity not found"}
            )
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return _error(401, "InvalidAuthenticationToken", "The access token is invalid.")
        scope = self.scope()
        routes = [
            (f"{scope}/providers/{COMPUTE}", "GET", f"{COMPUTE}/read", self._list_sets),
            (f"{scope}/providers/{COMPUTE}/([^/]+)", "PATCH", f"{COMPUTE}/write", self._patch),
            (
                "/subscriptions/[^/]+/providers/Microsoft.Compute/locations/[^/]+/operations/[^/]+",
                "GET",
                f"{COMPUTE}/read",
                self._operation,
            ),
            (f"{scope}/providers/{INSIGHTS}", "GET", f"{INSIGHTS}/read", self._list_settings),
            (f"{scope}/providers/{INSIGHTS}/([^/]+)", "PUT", f"{INSIGHTS}/write", self._put),
            (f"/providers/{RESERVATIONS}", "GET", f"{RESERVATIONS}/read", self._reservations),
            (
                "/subscriptions/[^/]+/providers/Microsoft.Compute/locations/([^/]+)/usages",
                "GET",
                "Microsoft.Compute/locations/usages/read",
                self._usages,
            ),
            (
                "/subscriptions/[^/]+/providers/Microsoft.Compute/skus",
                "GET",
                "Microsoft.Compute/skus/read",
                self._skus,
            ),
        ]
        for pattern, method, action, handler in routes:
            found = re.fullmatch(pattern, request.path, flags=re.IGNORECASE)
            if found and request.method == method:
                if action in self.state.denied:
                    return _error(
                        403,
                        "AuthorizationFailed",
                        "The client 'runner' with object id '0000' does not have authorization "
                        f"to perform action '{action}' over scope '{request.path}' or the scope "
                        "is invalid. If access was recently granted, please refresh your "
                        "credentials.",
                    )
                return handler(request, *found.groups())
        return _error(404, "ResourceNotFound", f"The resource '{request.path}' was not found.")

    def _identity(self, request: Request) -> Reply:
        if request.headers.get("x-identity-header") != IDENTITY_HEADER or not self.state.identity:
            return Reply(400, {"error": "invalid_request", "error_description": "no identity"})
        return Reply(
            200,
            {
                "access_token": TOKEN,
                "expires_on": str(int(time.time()) + 3600),
                "resource": request.query.get("resource", ""),
                "token_type": "Bearer",
                "client_id": "runner",
            },
        )

    def _reservations(self, request: Request) -> Reply:
        """Two reservations a page, the next page's address in nextLink, as ARM pages."""
        start = int(request.query.get("$skiptoken") or 0)
        page: dict[str, Any] = {"value": self.state.reservations[start : start + 2]}
        if start + 2 < len(self.state.reservations):
            page["nextLink"] = (
                f"{self.base}/providers/{RESERVATIONS}?api-version=2022-11-01"
                f"&$skiptoken={start + 2}"
            )
        return Reply(200, page)

    def _usages(self, request: Request, location: str) -> Reply:
        return Reply(200, {"value": self.state.usages.get(location, [])})

    def _skus(self, request: Request) -> Reply:
        """The SKUs in the location ``$filter`` names (``location eq 'x'``), all of them
        without one."""
        found = re.search(r"location eq '([^']*)'", request.query.get("$filter", ""))
        where = found.group(1).lower() if found else None
        chosen = [
            s
            for s in self.state.skus
            if where is None or where in [x.lower() for x in s["locations"]]
        ]
        return Reply(200, {"value": chosen})

    def _list_sets(self, request: Request) -> Reply:
        return Reply(200, {"value": list(self.state.scale_sets.values())})

    def _patch(self, request: Request, name: str) -> Reply:
        scale_set = self.state.scale_sets[name]
        scale_set["sku"].update(request.body.get("sku", {}))
        if "tags" in request.body:  # a PATCH's tags replace the resource's
            scale_set["tags"] = request.body["tags"]
        operation = (
            f"{self.base}/subscriptions/{self.subscription}/providers/Microsoft.Compute/"
            f"locations/{self.location}/operations/op-{len(self.received)}"
            f"?api-version={request.query['api-version']}"
        )
        return Reply(
            200,
            {
                **scale_set,
                "properties": {**scale_set["properties"], "provisioningState": "Updating"},
            },
            {"Azure-AsyncOperation": operation, "Retry-After": "0"},
        )

    def _operation(self, request: Request) -> Reply:
        return Reply(200, {"status": "Succeeded"})

    def _list_settings(self, request: Request) -> Reply:
        return Reply(200, {"value": list(self.state.settings.values())})

    def _put(self, request: Request, name: str) -> Reply:
        stored = self.state.settings[name]
        stored.update({k: v for k, v in request.body.items() if k in ("properties", "tags")})
        return Reply(200, stored)


def _error(status: int, code: str, message: str) -> Reply:
    return Reply(status, {"error": {"code": code, "message": message}})
