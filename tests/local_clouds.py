"""The local cloud APIs, started with the environment that points the SDKs at them: for the
suite's fixtures (``tests/conftest.py``, which set the environment with monkeypatch) and the
benchmarks (which hand it to a ``gpufleet`` process). Each yields the API and ``LocalEnv``:
variables to set, and variables to remove."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gpufleet.runs.azure_access import ENDPOINT_OVERRIDE as ARM_ENDPOINT_OVERRIDE
from gpufleet.runs.gcp_access import ENDPOINT_OVERRIDE, TASKS_ENDPOINT_OVERRIDE
from tests.runs.azure_arm_server import IDENTITY_HEADER, ArmApi
from tests.runs.gcp_compute_server import ComputeApi
from tests.runs.local_https import LocalServer
from tests.runs.stack_files import AZURE_GROUP, AZURE_REGION, AZURE_SUBSCRIPTION, GCP_PROJECT

# AWS keys the local AWS APIs (moto, the fakes) take.
FAKE_KEYS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


@dataclass
class LocalEnv:
    set: dict[str, str] = field(default_factory=dict)
    unset: tuple[str, ...] = ()

    def applied(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with these changes."""
        return {k: v for k, v in env.items() if k not in self.unset} | self.set


@contextmanager
def local_compute(
    certificate: tuple[Path, Path], folder: Path
) -> Iterator[tuple[ComputeApi, LocalEnv]]:
    """A local Compute Engine API, and the environment a client finds it by: gcloud's endpoint
    override, a service account key whose JWTs the server verifies, the server's CA."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    api = ComputeApi(GCP_PROJECT, public.decode())
    server = LocalServer(api.route, certificate)
    api.received = server.received
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    credentials = folder / "service-account.json"
    credentials.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": GCP_PROJECT,
                "private_key_id": "test-key",
                "private_key": private.decode(),
                "client_email": f"runner@{GCP_PROJECT}.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": f"{server.url}/token",
            }
        )
    )
    env = LocalEnv(
        {
            "GOOGLE_APPLICATION_CREDENTIALS": str(credentials),
            ENDPOINT_OVERRIDE: f"{server.url}/compute/v1/",
            TASKS_ENDPOINT_OVERRIDE: f"{server.url}/",
            "REQUESTS_CA_BUNDLE": str(certificate[0]),
            "CLOUDSDK_CONFIG": str(folder / "gcloud"),
            # What google-auth looks up on its own (a service account's access boundary) goes
            # to a proxy that is not there: nothing leaves this machine; the API server is
            # reached direct.
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1",
        },
        ("GOOGLE_CLOUD_PROJECT",),
    )
    try:
        yield api, env
    finally:
        server.close()


@contextmanager
def local_arm(certificate: tuple[Path, Path], folder: Path) -> Iterator[tuple[ArmApi, LocalEnv]]:
    """A local Resource Manager API, and the environment a client finds it by: the endpoint
    override, a managed identity endpoint, the server's CA."""
    api = ArmApi(AZURE_SUBSCRIPTION, AZURE_GROUP, AZURE_REGION)
    server = LocalServer(api.route, certificate)
    identity = LocalServer(api.route, None)  # as App Service serves it: plain HTTP, local
    api.received, api.base = server.received, server.url
    env = LocalEnv(
        {
            "IDENTITY_ENDPOINT": f"{identity.url}/msi/token",
            "IDENTITY_HEADER": IDENTITY_HEADER,
            ARM_ENDPOINT_OVERRIDE: server.url,
            "REQUESTS_CA_BUNDLE": str(certificate[0]),
            "AZURE_CONFIG_DIR": str(folder / "azure"),
        },
        ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "MSI_ENDPOINT"),
    )
    try:
        yield api, env
    finally:
        server.close()
        identity.close()
