"""Facts gpufleet states in one place only: a literal that names one of them appears in code
(not prose: comments and docstrings are free to mention it) in its home module and nowhere
else. A new use imports the name instead of writing the value again."""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path

from gpufleet import resource_types, tag_keys
from gpufleet.planner import gcp_machines
from tests.helpers import PACKAGE_FOLDERS, ROOT


def _constants(module: object) -> dict[str, str]:
    """A vocabulary module's string constants, as literals in code spell them."""
    return {
        json.dumps(value): ""
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, str)
    }


# literal as the tokenizer sees it -> its home (relative path); None: written nowhere.
HOMES: dict[str, str | None] = {
    "730": "gpufleet/pricing_models.py",
    "730.0": "gpufleet/pricing_models.py",
    '"azure-native"': "gpufleet/clouds.py",
    '"on-demand"': None,  # the word is on_demand, everywhere
    '"reserved-consumer"': None,
    '"gpufleet:limits"': None,  # stacks/config_keys.py builds it from its parts
    **dict.fromkeys(_constants(resource_types), "gpufleet/resource_types.py"),
    **dict.fromkeys(_constants(tag_keys), "gpufleet/tag_keys.py"),
    **dict.fromkeys(
        (json.dumps(name) for name in gcp_machines.ACCELERATOR_TYPES.values()),
        "planner/gcp_machines.py",
    ),
}
# Words that are also ordinary values elsewhere (a kind, a project name): not facts of the
# vocabulary module that defines them.
for word in ('"gpufleet"', '"project"', '"owner"', '"environment"', '"workload"', '"commitment"'):
    HOMES.pop(word, None)


def _source_files() -> list[Path]:
    files = []
    for folder in PACKAGE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            # gpufleet/<folder> are links to the folders listed here: read each file once.
            if folder == "gpufleet" and path.parent != ROOT / "gpufleet":
                continue
            files.append(path)
    return files


def _code_literals(path: Path) -> set[str]:
    found = set()
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    previous = None
    for token in tokens:
        is_docstring = token.type == tokenize.STRING and (
            previous is None or previous.type in (tokenize.INDENT, tokenize.NEWLINE, tokenize.NL)
        )
        if token.type in (tokenize.NUMBER, tokenize.STRING) and not is_docstring:
            found.add(token.string.replace("'", '"'))
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token
    return found


def test_facts_are_written_in_their_home_only() -> None:
    strays: dict[str, list[str]] = {}
    for path in _source_files():
        relative = path.relative_to(ROOT).as_posix()
        found = sorted(x for x in _code_literals(path) & set(HOMES) if HOMES[x] != relative)
        if found:
            strays[relative] = found
    promoted = (
        "; a type promoted to a reader of its own leaves NAMED_MACHINE_TYPES"
        if "capacity/footprints/coverage.py" in strays
        else ""
    )
    assert strays == {}, f"restated outside their home (import them instead): {strays}{promoted}"
