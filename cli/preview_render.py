"""Rendering for ``gpufleet preview``: the resource tree and counts, or JSON."""

from __future__ import annotations

import json
import sys

from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from gpufleet.cli import tables
from gpufleet.engine.capture import Capture
from gpufleet.engine.resource_tree import TreeNode, capture_summary, resource_tree, type_counts
from gpufleet.engine.wire import UNKNOWN, redacted
from gpufleet.terminal_text import escape_controls


def preview(capture: Capture, fmt: str) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(capture_summary(capture), indent=2) + "\n")
        return
    console = tables.console()
    mode = "preview: computed values unknown" if capture.preview else "ids and outputs mocked"
    title = escape_controls(f"{capture.project}-{capture.stack} ({mode})")
    root = Tree(Text(title, style="bold"))
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
    label = Text(f"{escape_controls(r.type)} ")
    label.append(escape_controls(r.name), style="bold")
    if r.protect:
        label.append(" [protected]", style="yellow")
    branch = tree.add(label)
    for child in node.children:
        _add(branch, child)
