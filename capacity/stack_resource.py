"""One resource of a stack as the readers here see it: the engine's view of it, plain.

What ``AnalyzeStack`` gives a stack policy and what a capture or a stack export holds come down
to the same fields: type, name, URN, properties (state: outputs over inputs, plain JSON values
with unknowns as the engine's sentinel), its provider's properties, its parent, and which
resources each property depends on (the engine records those even in a preview, when the ids
they carry are still unknown). Whether it has a provider tells a resource of a cloud (and a
remote component) from a component of the program, whose properties are only what it
registered as its outputs: its children hold what it builds.
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
    # Custom resources and remote components have one; the stack and local components not.
    has_provider: bool = True

    @property
    def holds_capacity_itself(self) -> bool:
        """Whether what it says can be capacity of its own: not the engine's resources (the
        stack and its outputs, providers, stack references) nor a local component."""
        return self.has_provider and not self.type.startswith("pulumi:")


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
            r.provider is not None,
        )
        for r in resources
    ]
