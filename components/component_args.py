"""The base for every component's args class, and input types that may be pulumi Outputs.

Component args are pydantic models: they validate when constructed, before any resource
registers, and a bad value raises ``pydantic.ValidationError`` — a ``ValueError`` whose message
names the field. Values that can come from other resources (subnet ids, VPC ids) are typed
``StrInput``: a non-empty string, or a ``pulumi.Output`` that is checked by the provider later.
"""

from __future__ import annotations

from typing import Annotated, Any

import pulumi
from pydantic import AfterValidator, BaseModel, ConfigDict


class ComponentArgs(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, arbitrary_types_allowed=True, allow_inf_nan=False
    )


def _string_or_output(value: Any) -> Any:
    if isinstance(value, pulumi.Output):
        return value
    if isinstance(value, str) and value.strip():
        return value
    raise ValueError("must be a non-empty string or a pulumi Output")


StrInput = Annotated[Any, AfterValidator(_string_or_output)]


def is_known(value: Any) -> bool:
    """Whether a value is plain data we can validate now (not an Output resolved later)."""
    return not isinstance(value, pulumi.Output)
