"""Azure GPU VM sizes gpufleet knows, from the catalog."""

from __future__ import annotations

from gpufleet.planner.catalog import MachineShape, load_catalog


def gpu_size(vm_size: str) -> MachineShape:
    """The catalog shape of an Azure GPU size; ValueError naming some known sizes if unknown."""
    catalog = load_catalog()
    shape = catalog.shape("azure", vm_size)
    if shape is None:
        known = ", ".join(sorted(catalog.instance_types("azure"))[:8])
        raise ValueError(f"{vm_size!r} is not an Azure GPU size in the catalog (e.g. {known})")
    return shape
