"""gpufleet's modules import each other without cycles, and no import inside a function is
there to break one: with every function-level import of a gpufleet module counted as if it
were at the top, the import graph is still acyclic. (Imports put off for speed, so a command
that does not need the cloud SDKs or pulumi never loads them, stay legal: they close no
cycle.)"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "gpufleet"


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name, through the package's folder links."""
    found: dict[str, Path] = {}
    roots = [(PACKAGE, ("gpufleet",))]
    roots += [(p.resolve(), ("gpufleet", p.name)) for p in PACKAGE.iterdir() if p.is_symlink()]
    for root, prefix in roots:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = (*prefix, *path.relative_to(root).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(tree: ast.Module, name: str, modules: dict[str, Path]) -> Iterator[tuple[str, bool]]:
    """(imported gpufleet module, whether inside a function) for each import of a module;
    ``from package import module`` counts as the module, ``TYPE_CHECKING`` blocks as none."""
    package = name if modules[name].name == "__init__.py" else name.rsplit(".", 1)[0]

    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # for type checkers only: never runs
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name in modules:
                        yield alias.name, in_function
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    if target in modules:
                        yield target, in_function
                    elif base in modules:
                        yield base, in_function
            yield from visit(child, inner)

    yield from visit(tree, False)


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := walk(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := walk(node)) is not None:
            return found
    return None


def _graph(with_function_imports: bool) -> dict[str, set[str]]:
    modules = _modules()
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target, in_function in _imports(tree, name, modules):
            if target != name and (with_function_imports or not in_function):
                edges[name].add(target)
    # A package's __init__ runs before its modules: importing one imports the package, which
    # imports nothing of it here (the packages' __init__ files hold docstrings only).
    return edges


def test_module_level_imports_have_no_cycle() -> None:
    cycle = _cycle(_graph(with_function_imports=False))
    assert cycle is None, " -> ".join(cycle or [])


def test_no_import_inside_a_function_breaks_a_cycle() -> None:
    cycle = _cycle(_graph(with_function_imports=True))
    assert cycle is None, (
        "moved to the top, an import inside a function would close this cycle; layer the "
        "modules instead: " + " -> ".join(cycle or [])
    )


def test_the_graph_sees_the_imports() -> None:
    """The test above can fail: it reads real edges, both kinds."""
    edges = _graph(with_function_imports=True)
    assert "gpufleet.planner.capabilities" in edges["gpufleet.stacks.placement_parts"]
    assert "gpufleet.components.aws.spot_fleet" in edges["gpufleet.stacks.component_registry"]
    assert (
        "gpufleet.components.aws.spot_fleet"
        not in _graph(False)["gpufleet.stacks.component_registry"]
    )
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
