"""Fixtures for runs: a stack config with a workload of every kind, the CLI on it, a
certificate the local API servers present (trusted through ``REQUESTS_CA_BUNDLE``), and the
local Compute Engine and Cloud Tasks APIs with the environment that points a run at them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gpufleet.cli.main import main
from tests.helpers import ROOT
from tests.runs.stack_files import (
    AZURE_GROUP,
    AZURE_REGION,
    AZURE_SUBSCRIPTION,
    ENVIRONMENT,
    GCP_PROJECT,
    write_stack_config,
)

if TYPE_CHECKING:
    from tests.runs.azure_arm_server import ArmApi
    from tests.runs.gcp_compute_server import ComputeApi

Scale = Callable[..., Result]


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from tests.runs.local_https import self_signed

    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def stack_config(tmp_path: Path) -> Path:
    return write_stack_config(tmp_path)


@pytest.fixture
def scale(stack_config: Path) -> Scale:
    """``gpufleet scale ARGS`` on the test stack config, in this process."""

    def run(*args: str) -> Result:
        return CliRunner().invoke(
            main,
            [
                "scale",
                *args,
                "--program",
                str(ROOT),
                "--config",
                str(stack_config),
                "--env",
                ENVIRONMENT,
            ],
        )

    return run


@pytest.fixture
def runs(stack_config: Path) -> Scale:
    """``gpufleet runs ARGS`` on the test stack config, in this process."""

    def run(*args: str) -> Result:
        where = ["--program", str(ROOT), "--config", str(stack_config), "--env", ENVIRONMENT]
        return CliRunner().invoke(main, ["runs", *args, *where])

    return run


@pytest.fixture
def compute(
    certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ComputeApi]:
    """A local Compute Engine API, and the environment a run finds it by: gcloud's endpoint
    override, a service account key whose JWTs the server verifies, the server's CA."""
    from gpufleet.runs.gcp_access import ENDPOINT_OVERRIDE, TASKS_ENDPOINT_OVERRIDE
    from tests.runs.gcp_compute_server import ComputeApi
    from tests.runs.local_https import LocalServer

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
    credentials = tmp_path / "service-account.json"
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
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))
    monkeypatch.setenv(ENDPOINT_OVERRIDE, f"{server.url}/compute/v1/")
    monkeypatch.setenv(TASKS_ENDPOINT_OVERRIDE, f"{server.url}/")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certificate[0]))
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    # What google-auth looks up on its own (a service account's access boundary) goes to a
    # proxy that is not there: nothing leaves this machine; the API server is reached direct.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    yield api
    server.close()


@pytest.fixture
def arm(
    certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ArmApi]:
    """A local Resource Manager API, and the environment a run finds it by: the endpoint
    override, a managed identity endpoint, the server's CA."""
    from gpufleet.runs.azure_access import ENDPOINT_OVERRIDE
    from tests.runs.azure_arm_server import IDENTITY_HEADER, ArmApi
    from tests.runs.local_https import LocalServer

    api = ArmApi(AZURE_SUBSCRIPTION, AZURE_GROUP, AZURE_REGION)
    server = LocalServer(api.route, certificate)
    identity = LocalServer(api.route, None)  # as App Service serves it: plain HTTP, local
    api.received, api.base = server.received, server.url
    for name in ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "MSI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("IDENTITY_ENDPOINT", f"{identity.url}/msi/token")
    monkeypatch.setenv("IDENTITY_HEADER", IDENTITY_HEADER)
    monkeypatch.setenv(ENDPOINT_OVERRIDE, server.url)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certificate[0]))
    monkeypatch.setenv("AZURE_CONFIG_DIR", str(tmp_path / "azure"))
    yield api
    server.close()
    identity.close()
