"""A capture summarised for people: components with their children, counts per type."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gpufleet.engine.capture import Capture, Registration
from gpufleet.engine.wire import redacted


@dataclass
class TreeNode:
    registration: Registration
    children: list[TreeNode] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        r = self.registration
        node: dict[str, Any] = {"type": r.type, "name": r.name, "urn": r.urn}
        if r.protect:
            node["protect"] = True
        if self.children:
            node["children"] = [child.as_dict() for child in self.children]
        return node


def resource_tree(capture: Capture) -> list[TreeNode]:
    """Top-level resources (children of the stack) with their descendants, sorted by type and
    name at every level so the tree reads the same on every run."""
    nodes = {r.urn: TreeNode(r) for r in capture.registrations}
    roots: list[TreeNode] = []
    for node in nodes.values():
        parent = nodes.get(node.registration.parent)
        (parent.children if parent is not None else roots).append(node)

    def order(items: list[TreeNode]) -> list[TreeNode]:
        items.sort(key=lambda n: (n.registration.type, n.registration.name))
        for item in items:
            order(item.children)
        return items

    return order(roots)


def type_counts(capture: Capture) -> dict[str, int]:
    return dict(sorted(Counter(r.type for r in capture.registrations).items()))


def capture_summary(capture: Capture) -> dict[str, Any]:
    """The documented JSON shape of ``gpufleet preview --format json``."""
    return {
        "project": capture.project,
        "stack": capture.stack,
        "preview": capture.preview,
        "resources": len(capture.registrations),
        "counts": type_counts(capture),
        "tree": [node.as_dict() for node in resource_tree(capture)],
        "exports": redacted(capture.exports),
    }
