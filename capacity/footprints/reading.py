"""How footprint readers read a resource, and where they are registered.

A reader is a function of one resource's properties (``Reading``) returning its
``GpuFootprint``, or None when it holds no GPUs. Each cloud's readers live in that cloud's
module and register under the resource types they read with ``@reads(type, ...)``;
``READERS`` is the registry ``read_gpu_footprint`` dispatches on.

``Reading`` gives every reader the same rules for what it cannot know: a machine type that is
unknown during a preview, or looks like a GPU type the catalog does not have, or a count that is
unknown or not a number, is recorded as *undetermined* (never silently passed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gpufleet.capacity.footprints.model import GpuFootprint, Machine, MachineCatalog
from gpufleet.capacity.property_values import get_path, is_unknown
from gpufleet.clouds import Cloud
from gpufleet.pricing_models import Market

Reader = Callable[["Reading"], GpuFootprint | None]
READERS: dict[str, Reader] = {}

# Machine type names that look like GPU types, per cloud: one the catalog does not know is
# reported as undetermined rather than taken for a CPU machine.
_GPU_FAMILY: dict[Cloud, re.Pattern[str]] = {
    "aws": re.compile(r"^(?:ml\.)?(p\d|g\d|trn\d|inf\d|dl\d|gr\d|vt\d)", re.I),
    "gcp": re.compile(r"^(a\d|g\d)-"),
    "azure": re.compile(r"^standard_n", re.I),
}


def reads(*type_tokens: str) -> Callable[[Reader], Reader]:
    """Register a reader for these resource types."""

    def register(reader: Reader) -> Reader:
        for token in type_tokens:
            if token in READERS:
                raise ValueError(f"two footprint readers for {token}")
            READERS[token] = reader
        return reader

    return register


def looks_like_gpu(cloud: Cloud, instance_type: str) -> bool:
    return bool(_GPU_FAMILY[cloud].match(instance_type))


class Reading:
    """One resource's properties and the helpers every reader needs."""

    def __init__(
        self, props: dict[str, Any], provider: dict[str, Any], machines: MachineCatalog
    ) -> None:
        self.props = props
        self.provider = provider
        self.catalog = machines
        self.undetermined: list[str] = []
        self.unknown = False  # something undetermined is only unknown until the deployment

    def unknown_value(self, what: str) -> None:
        """Record that ``what`` ("instanceType is", "overrides are") is unknown during a
        preview."""
        self.undetermined.append(f"{what} unknown during preview")
        self.unknown = True

    def get(self, *path: str | int) -> Any:
        return get_path(self.props, *path)

    def machine(
        self,
        cloud: Cloud,
        instance_type: Any,
        where: str,
        attached: tuple[str, int] | None = None,
    ) -> Machine | None:
        """The machine for a type property; records why when it cannot be determined."""
        if instance_type is None:
            return None
        if is_unknown(instance_type):
            self.unknown_value(f"{where} is")
            return None
        found = self.catalog.machine(cloud, str(instance_type), attached)
        if found is None and (attached is not None or looks_like_gpu(cloud, str(instance_type))):
            what = f"{instance_type} with {attached[1]} x {attached[0]}" if attached else None
            self.undetermined.append(
                f"{where} {what or instance_type} is not in the GPU catalog (GPUs unknown)"
            )
        return found

    def count(self, *path: str | int, where: str) -> float | None:
        value = self.get(*path)
        if is_unknown(value):
            self.unknown_value(f"{where} is")
            return None
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            self.undetermined.append(f"{where} {value!r} is not a number")
            return None

    def footprint(self, **fields: Any) -> GpuFootprint | None:
        machines = tuple(m for m in fields.pop("machines", ()) if m is not None)
        if not machines and not self.undetermined and not fields.get("template_properties"):
            return None  # no GPU machine here
        return GpuFootprint(
            machines=machines,
            undetermined=tuple(self.undetermined),
            unknown=self.unknown,
            **fields,
        )


def market(value: Any) -> Market | None:
    """A market option's value (``spot`` or anything else: on-demand); None when unset or
    unknown, so a template or default decides."""
    if is_unknown(value) or value is None:
        return None
    return "spot" if str(value).lower() == "spot" else "on_demand"


def number(value: Any, default: float | None) -> float | None:
    if value is None:
        return default
    if is_unknown(value):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
