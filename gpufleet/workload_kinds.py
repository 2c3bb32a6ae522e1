"""What a workload does: the one word for it that the spec, the plan, the stack config, the
components' tags and the policies share."""

from __future__ import annotations

from typing import Literal, get_args

Kind = Literal["training", "inference", "batch"]
KINDS: tuple[Kind, ...] = get_args(Kind)
