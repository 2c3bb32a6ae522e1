"""Rendering for ``gpufleet preview``: the resource tree and counts, or JSON."""

from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from gpufleet.engine.capture import Capture
from gpufleet.engine.resource_tree import TreeNode, capture_summary, resource_tree, type_counts
from gpufleet.engine.wire import UNKNOWN, redacted


def preview(capture: Capture, fmt: str) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(capture_summary(capture), indent=2) + "\n")
        return
    console = Console(file=sys.stdout, width=10_000, highlight=False, markup=False)
    mode = "preview: computed values unknown" if capture.preview else "ids and outputs mocked"
    root = Tree(Text(f"{capture.project}-{capture.stack} ({mode})", style="bold"))
    for node in resource_tree(capture):
        _add(root, node)
    console.print(root)
    table = Table(title=f"{len(capture.registrations)} resources")
    table.add_column("type", no_wrap=True)
    table.add_column("count", justify="right")
    for type_, count in type_counts(capture).items():
        table.add_row(type_, str(count))
    console.print(table)
    if capture.exports:
        console.print(Text("outputs", style="bold"))
        for key, value in capture.exports.items():
            shown = json.dumps(redacted(value)).replace(f'"{UNKNOWN}"', "(unknown)")
            console.print(f"  {key}: {shown}")


def _add(tree: Tree, node: TreeNode) -> None:
    r = node.registration
    label = Text(f"{r.type} ")
    label.append(r.name, style="bold")
    if r.protect:
        label.append(" [protected]", style="yellow")
    branch = tree.add(label)
    for child in node.children:
        _add(branch, child)
