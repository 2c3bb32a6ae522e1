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
from hypothesis import HealthCheck, settings

from tests.helpers import PACKAGE_FOLDERS, Snapshot

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
    from tests.local_clouds import LocalEnv
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
    """A local Compute Engine API, and the environment that points the SDK at it."""
    from tests.local_clouds import local_compute

    with local_compute(certificate, tmp_path) as (api, env):
        _apply(env, monkeypatch)
        yield api


@pytest.fixture
def arm(
    certificate: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ArmApi]:
    """A local Resource Manager API, and the environment that points the SDKs at it."""
    from tests.local_clouds import local_arm

    with local_arm(certificate, tmp_path) as (api, env):
        _apply(env, monkeypatch)
        yield api


def _apply(env: LocalEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in env.unset:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.set.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    """A real moto server on 127.0.0.1 (its AWS APIs: EC2, Auto Scaling, CloudWatch, ...)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def aws_env(moto_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """AWS's SDK pointed at the moto server with fake keys: no profile, no files, no instance
    metadata. Its URL; a test adds service endpoints moto lacks (AWS_ENDPOINT_URL_<SERVICE>)."""
    import requests

    from tests.local_clouds import FAKE_KEYS

    requests.post(f"{moto_url}/moto-api/reset", timeout=10)
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "empty"
    empty.write_text("")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return moto_url
