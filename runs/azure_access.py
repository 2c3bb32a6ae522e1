"""Azure for a run: Resource Manager clients (compute, monitor) on ``DefaultAzureCredential``,
an endpoint of the user's choosing, and the SDK's errors as one line naming the missing
credential or permission.

Credentials are found the usual way (``AZURE_CLIENT_ID``/``AZURE_TENANT_ID``/
``AZURE_CLIENT_SECRET``, workload identity, managed identity, ``az login``, ``azd auth
login``, ``Connect-AzAccount``); the SDK's own ``AZURE_SDK_CLOUD_CONF`` picks a sovereign
cloud. ``GPUFLEET_AZURE_RESOURCE_MANAGER`` (a URL) points the clients at another Resource
Manager endpoint — Azure Stack, a proxy, a test server — and asks tokens for it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ResourceNotFoundError,
    ServiceRequestError,
)
from azure.identity import DefaultAzureCredential
from azure.mgmt.compute import ComputeManagementClient
from azure.mgmt.monitor import MonitorManagementClient

from gpufleet.runs.cloud_error import CloudError

ENDPOINT_OVERRIDE = "GPUFLEET_AZURE_RESOURCE_MANAGER"
NO_CREDENTIALS = (
    "no credential found (DefaultAzureCredential: AZURE_CLIENT_ID/AZURE_TENANT_ID/"
    "AZURE_CLIENT_SECRET, workload identity, managed identity, az login, azd auth login, "
    "Connect-AzAccount)"
)


@dataclass(frozen=True)
class AzureAccess:
    compute: ComputeManagementClient
    monitor: MonitorManagementClient


def azure_access(subscription: str) -> AzureAccess:
    credential = DefaultAzureCredential()
    options = client_options()
    return AzureAccess(
        ComputeManagementClient(credential, subscription, **options),
        MonitorManagementClient(credential, subscription, **options),
    )


def client_options() -> dict[str, Any]:
    """What every Resource Manager client takes for the endpoint ``ENDPOINT_OVERRIDE`` names
    (nothing when it names none)."""
    endpoint = os.environ.get(ENDPOINT_OVERRIDE)
    if not endpoint:
        return {}
    base = endpoint.rstrip("/")
    return {"base_url": base, "credential_scopes": [f"{base}/.default"]}


@contextmanager
def azure_errors(permission: str, resource: str) -> Iterator[None]:
    """SDK errors inside as ``CloudError``: ``permission`` is the Azure RBAC action the call
    needs (``Microsoft.Compute/virtualMachineScaleSets/write``), ``resource`` its scope."""
    try:
        yield
    except ClientAuthenticationError as exc:
        if exc.response is not None:  # Resource Manager refused the token
            raise CloudError("azure", f"credentials rejected: {_first_line(exc)}") from None
        refused = _refusal(str(exc))
        if refused is None:  # no credential in the chain was there to try
            raise CloudError("azure", NO_CREDENTIALS) from None
        raise CloudError("azure", f"credential refused: {refused}") from None
    except ResourceNotFoundError:
        raise CloudError(
            "azure", f"{resource} not found: is the stack deployed? (gpufleet up, or pulumi up)"
        ) from None
    except HttpResponseError as exc:
        code = exc.error.code if exc.error is not None else None
        if exc.status_code == 403 or code in ("AuthorizationFailed", "LinkedAuthorizationFailed"):
            raise CloudError("azure", f"permission denied: {permission} on {resource}") from None
        raise CloudError(
            "azure",
            f"{permission} on {resource} failed: {code or exc.status_code}: {_first_line(exc)}",
        ) from None
    except ServiceRequestError as exc:
        raise CloudError("azure", f"cannot reach Resource Manager: {_first_line(exc)}") from None


def _refusal(chain_message: str) -> str | None:
    """The attempt that was refused, in DefaultAzureCredential's account of its attempts
    (Microsoft Entra errors are numbered AADSTS...); None when each was merely absent."""
    for line in chain_message.splitlines():
        if "AADSTS" in line or "Authentication failed" in line:
            return line.strip()
    return None


def _first_line(error: Exception) -> str:
    message = getattr(error, "message", None) or str(error)
    return str(message).strip().splitlines()[0] if str(message).strip() else type(error).__name__
