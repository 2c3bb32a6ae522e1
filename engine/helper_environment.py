"""The environment a helper process (a program's, a policy pack's) starts with, whatever its
size: variables are handed over in a file rather than on ``execve``, which refuses one over
128 KiB on Linux ("Argument list too long") — a stack config of a few hundred workloads in
``PULUMI_CONFIG`` is that large. The helper reads the file first thing and removes it
(``parent_death.load_environment_file``); the parent removes it too when the helper has ended,
whatever happened."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from gpufleet.engine.parent_death import ENVIRONMENT_FILE


@contextlib.contextmanager
def helper_environment(
    base: Mapping[str, str], values: Mapping[str, str]
) -> Iterator[dict[str, str]]:
    """``base`` and the name of a file holding ``values``, readable by this user only, for
    the helper's ``env``; the file is gone when the block ends."""
    fd, name = tempfile.mkstemp(prefix="gpufleet-env-", suffix=".json")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dict(values), handle)
        yield {**{k: v for k, v in base.items() if k not in values}, ENVIRONMENT_FILE: name}
    finally:
        path.unlink(missing_ok=True)
