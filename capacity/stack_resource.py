"""One resource of a stack as the readers here see it: the engine's view of it, plain.

What ``AnalyzeStack`` gives a stack policy and what a capture or a stack export holds come down
to the same fields: type, name, URN, properties (state: outputs over inputs, plain JSON values
with unknowns as the engine's sentinel), its provider's properties, its parent, and which
resources each property depends on (the engine records those even in a preview, when the ids
they carry are still unknown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpufleet.engine.wire import plain

if TYPE_CHECKING:
    from gpufleet.engine.analyzer_resources import AnalyzerResource


@dataclass(frozen=True)
class StackResource:
    type: str
    name: str
    urn: str
    props: dict[str, Any]
    provider_props: dict[str, Any]
    parent: str | None
    property_dependencies: dict[str, list[str]]


def stack_resources(resources: list[AnalyzerResource]) -> list[StackResource]:
    """A capture's or an export's resources (``engine.analyzer_resources``) as stack resources:
    secrets unwrapped (their values are read, never shown), unknowns kept."""
    return [
        StackResource(
            r.type,
            r.name,
            r.urn,
            plain(r.state),
            plain(r.provider.properties) if r.provider is not None else {},
            r.parent or None,
            {key: list(urns) for key, urns in r.property_dependencies.items()},
        )
        for r in resources
    ]
