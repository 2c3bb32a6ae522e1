"""GCP for a run: Compute Engine and Cloud Tasks REST clients on Application Default
Credentials, the endpoints gcloud's own overrides name, waiting for operations, and the APIs'
errors as one line naming the missing credential or permission.

Credentials are found the usual way (``GOOGLE_APPLICATION_CREDENTIALS``, ``gcloud auth
application-default login``, the metadata server of a GCP VM). ``CLOUDSDK_API_ENDPOINT_
OVERRIDES_COMPUTE`` (gcloud's setting, e.g. ``https://compute.googleapis.com/compute/v1/``)
and ``CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDTASKS`` (``https://cloudtasks.googleapis.com/``)
point the clients at other endpoints: private ones, or a test server.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests

from gpufleet.capacity.property_values import resource_name
from gpufleet.runs.cloud_error import CloudError

with warnings.catch_warnings():
    # google.api_core warns on import, every time, that Python 3.11 support ends in 2027.
    warnings.simplefilter("ignore", FutureWarning)
    import google.auth
    from google.api_core import exceptions as api_exceptions
    from google.api_core.client_options import ClientOptions
    from google.auth import exceptions as auth_exceptions
    from google.auth.credentials import Credentials
    from google.cloud import compute_v1, tasks_v2

# The other GCP modules take the SDKs from here, imported quietly.
__all__ = ["compute_v1", "tasks_v2"]

ENDPOINT_OVERRIDE = "CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE"
TASKS_ENDPOINT_OVERRIDE = "CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDTASKS"
# Compute Engine and Cloud Tasks: Cloud Tasks takes no narrower scope.
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
# A VM start waits for the VM to boot; a config change is done in seconds.
OPERATION_TIMEOUT_SECONDS = 900
NO_CREDENTIALS = (
    "no credentials found (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default "
    "login, or the metadata server of a GCP VM)"
)

ClientT = TypeVar("ClientT")


@dataclass(frozen=True)
class GcpAccess:
    project: str
    credentials: Credentials
    options: ClientOptions | None
    tasks_options: ClientOptions | None = None

    def client(self, kind: type[ClientT]) -> ClientT:
        # Every compute_v1 client takes these; the type checker sees a bare class.
        make: Any = kind
        return make(credentials=self.credentials, client_options=self.options, transport="rest")

    def tasks(self) -> tasks_v2.CloudTasksClient:
        return tasks_v2.CloudTasksClient(
            credentials=self.credentials, client_options=self.tasks_options, transport="rest"
        )


def gcp_access(project: str) -> GcpAccess:
    # google.auth warns when the credentials name no project (the stack config names it),
    # and its background lookup of a service account's access boundary has urllib3 warn of
    # each retry where that endpoint is out of reach: neither is the run's business, and
    # logging would print them on stderr around the run's one line.
    logging.getLogger("google.auth._default").setLevel(logging.ERROR)
    logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
    try:
        credentials, _ = google.auth.default(scopes=[SCOPE])
    except auth_exceptions.DefaultCredentialsError:
        raise CloudError("gcp", NO_CREDENTIALS) from None
    return GcpAccess(
        project,
        credentials,
        endpoint_options(ENDPOINT_OVERRIDE, "https://compute.googleapis.com/compute/v1/"),
        endpoint_options(TASKS_ENDPOINT_OVERRIDE, "https://cloudtasks.googleapis.com/"),
    )


def endpoint_options(variable: str, example: str) -> ClientOptions | None:
    override = os.environ.get(variable)
    if not override:
        return None
    parts = urlsplit(override)
    api_path = urlsplit(example).path.strip("/")
    if not parts.scheme or not parts.netloc or parts.path.strip("/") not in ("", api_path):
        raise CloudError("gcp", f"{variable}={override!r} is not an endpoint such as {example}")
    # The clients add their API's path (/compute/v1/, /v2/) themselves.
    return ClientOptions(api_endpoint=f"{parts.scheme}://{parts.netloc}")


@contextmanager
def gcp_errors(permission: str, resource: str) -> Iterator[None]:
    """API errors inside as ``CloudError``: ``permission`` is the IAM permission the call
    needs (``compute.autoscalers.update``), ``resource`` what it acts on."""
    try:
        yield
    except api_exceptions.Forbidden as exc:
        message = exc.message or ""
        # 403 is also how the API says a quota or rate limit is exceeded.
        if message and "permission" not in message.lower():
            raise CloudError("gcp", f"{permission} on {resource} refused: {message}") from None
        raise CloudError("gcp", f"permission denied: {permission} on {resource}") from None
    except api_exceptions.Unauthorized as exc:
        raise CloudError("gcp", f"credentials rejected: {exc.message}") from None
    except api_exceptions.NotFound:
        raise CloudError(
            "gcp", f"{resource} not found: is the stack deployed? (gpufleet up, or pulumi up)"
        ) from None
    except api_exceptions.GoogleAPICallError as exc:
        raise CloudError("gcp", f"{permission} on {resource} failed: {exc.message}") from None
    except auth_exceptions.RefreshError as exc:
        raise CloudError("gcp", f"credentials rejected: no access token: {exc}") from None
    except (auth_exceptions.TransportError, requests.exceptions.ConnectionError) as exc:
        raise CloudError("gcp", f"cannot reach the API: {exc}") from None
    except FutureTimeout:
        raise CloudError(
            "gcp", f"{permission} on {resource}: not done after {OPERATION_TIMEOUT_SECONDS} s"
        ) from None


def wait(access: GcpAccess, operation: compute_v1.Operation) -> None:
    """Wait until an operation is done; its error raised as the API's (``gcp_errors`` of the
    call that started it words it). Polled with clients on this endpoint: the SDK's own
    operation futures poll the default endpoint whatever the client was given."""
    deadline = time.monotonic() + OPERATION_TIMEOUT_SECONDS
    current = operation
    while current.status != compute_v1.Operation.Status.DONE:
        if time.monotonic() > deadline:
            raise FutureTimeout
        current = _poll(access, current)
    if current.http_error_status_code or current.error.errors:
        details = "; ".join(f"{e.code}: {e.message}" for e in current.error.errors)
        # The errors say what failed (ZONE_RESOURCE_POOL_EXHAUSTED: ...), the status only
        # how (SERVICE UNAVAILABLE).
        raise api_exceptions.from_http_status(
            current.http_error_status_code or 500,
            details or current.http_error_message,
            errors=list(current.error.errors),
        )


def _poll(access: GcpAccess, operation: compute_v1.Operation) -> compute_v1.Operation:
    """The operation again, once done or after the API's own wait (up to two minutes)."""
    if operation.zone:
        zone = name_of(operation.zone)
        where = f"projects/{access.project}/zones/{zone}/operations/{operation.name}"
        with gcp_errors("compute.zoneOperations.get", where):
            return access.client(compute_v1.ZoneOperationsClient).wait(
                project=access.project, zone=zone, operation=operation.name
            )
    region = name_of(operation.region)
    where = f"projects/{access.project}/regions/{region}/operations/{operation.name}"
    with gcp_errors("compute.regionOperations.get", where):
        return access.client(compute_v1.RegionOperationsClient).wait(
            project=access.project, region=region, operation=operation.name
        )


def name_of(link: str) -> str:
    """The resource name at the end of a URL or path (``...uniqueId`` query dropped)."""
    return resource_name(link) or ""


def path_of(link: str) -> str:
    """A resource's path from ``projects/`` on, however the API wrote the link."""
    path = link.split("?", 1)[0]
    at = path.find("projects/")
    return path[at:] if at >= 0 else path


def label_filter(labels: dict[str, str]) -> str:
    """A list filter narrowing a listing to these labels (those whose keys a filter can name);
    the caller still checks each result against all of them."""
    return " ".join(
        f'(labels.{key} = "{value}")' for key, value in labels.items() if key.isidentifier()
    )
