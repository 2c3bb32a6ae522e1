"""Fixtures for ``gpufleet commitments``: a local AWS API (Compute Engine and Resource Manager
are the root conftest's), with the environment that points the SDKs at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commitments.aws_commitments_server import AwsCommitmentsApi
from tests.runs.local_https import LocalServer


@pytest.fixture
def aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwsCommitmentsApi]:
    """Only the local server and fake keys: no profile, no files, no instance metadata."""
    api = AwsCommitmentsApi()
    server = LocalServer(api.route, None)
    api.received = server.received
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", server.url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SAVINGSPLANS", server.url)
    yield api
    server.close()
