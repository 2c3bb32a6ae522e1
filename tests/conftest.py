"""Fixtures every test module may use: a price snapshot folder, spec files written from text,
program runs shared between tests, and local cloud APIs (Compute Engine, Resource Manager)
over HTTPS with the environment that points the SDKs at them. Hypothesis without its timing
checks: a per-example deadline and the too-slow health check are wall-clock assertions, which a
loaded machine fails."""

from __future__ import annotations

import compileall
import copy
import hashlib
import json
import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import HealthCheck, settings

from tests.helpers import PACKAGE_FOLDERS, Snapshot
from tests.runs.stack_files import AZURE_GROUP, AZURE_REGION, AZURE_SUBSCRIPTION, GCP_PROJECT

settings.register_profile("gpufleet", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gpufleet")

# The shipped catalog grows old by the calendar: its age warning would reach every command's
# stderr some day after it was taken. The suite does not depend on today's date; the tests of
# the warning set the limit themselves (and every CLI process the suite starts inherits this).
os.environ["GPUFLEET_CATALOG_MAX_AGE_DAYS"] = "99999"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile gpufleet's modules once, before the hundreds of processes the suite starts (the
    CLI, programs, policy packs) import them: with PYTHONDONTWRITEBYTECODE set, as in CI,
    each would compile them again. Only where tests are run from (xdist's controller)."""
    if hasattr(session.config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    for package in PACKAGE_FOLDERS:
        # gpufleet/ holds links to the other folders: its own modules only.
        levels = 0 if package == "gpufleet" else 10
        compileall.compile_dir(root / package, maxlevels=levels, quiet=2, workers=0)


if TYPE_CHECKING:
    from gpufleet.engine.program_process import ProgramRun
    from tests.runs.azure_arm_server import ArmApi
    from tests.runs.gcp_compute_server import ComputeApi


@pytest.fixture
def snapshot(tmp_path: Path) -> Snapshot:
    return Snapshot(tmp_path / "snapshot")


@pytest.fixture
def write_spec(tmp_path: Path) -> Callable[[str], Path]:
    """Write spec YAML (dedented) to a file and return its path."""

    def write(text: str, name: str = "spec.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write


@pytest.fixture(autouse=True, scope="session")
def _share_program_runs() -> Iterator[None]:
    """One program run with one config gives one result, so tests share it: the example's
    stacks would otherwise start a process and import every provider again for each test.
    Only runs that finished are shared, keyed by the program file's contents as well; what a
    run does when the program misbehaves is tested end to end, through the console script
    (tests/checks/test_isolated_programs.py), where nothing is shared."""
    from gpufleet.engine import program_dir

    real = program_dir.run_program_process
    runs: dict[tuple[str, ...], ProgramRun] = {}

    def run(main: Path, run_dir: Path, **settings: Any) -> ProgramRun:
        program = main / "__main__.py" if main.is_dir() else main
        digest = hashlib.sha256(program.read_bytes()).hexdigest()
        before_start = settings.pop("before_start", None)
        key = (str(main), digest, str(run_dir), json.dumps(settings, sort_keys=True))
        if key in runs and before_start is not None:
            before_start()  # what the caller does before a program runs, done all the same
        if key not in runs:
            done = real(main, run_dir, before_start=before_start, **settings)
            if not done.ending.finished:
                return done
            runs[key] = done
        return copy.deepcopy(runs[key])

    program_dir.run_program_process = run
    yield
    program_dir.run_program_process = real


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 the local cloud API servers present (``local_https``),
    trusted through ``REQUESTS_CA_BUNDLE`` or ``AWS_CA_BUNDLE``."""
    from tests.runs.local_https import self_signed

    return self_signed(tmp_path_factory.mktemp("tls"))


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
