"""The settings every GCP component's VMs share: service account ids."""

from __future__ import annotations

import re

from gpufleet.components.gcp.instance_settings import service_account_id


def test_service_account_ids_are_valid() -> None:
    for name in ("eval", "x", "support-bot-finetune-with-a-very-long-name", "9lives"):
        account = service_account_id(name)
        assert re.fullmatch(r"[a-z]([-a-z0-9]{4,28})[a-z0-9]", account), account
    assert service_account_id("eval") == "eval-sa"
