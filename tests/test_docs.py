"""The docs are true: every command sample in README.md and docs/ prints what it shows (run by
``tests/docs_commands.py``), and the reference pages list exactly what the code's registries
hold — the policies of the pack, the components, the spec's fields, the CLI's commands and
options, the workflow's variables — and nothing that no longer exists: no command line with an
option gpufleet lacks, no link to a missing page or anchor, no repository path that is gone.

When a sample differs, regenerate it (``make docs``, or ``.venv/bin/python
tests/docs_commands.py --write``) rather than edit it by hand."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from tests import docs_commands
from tests.helpers import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
RUN_MARKER = "<!-- test: run -->"


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def section(page: str, heading: str) -> str:
    """The body under a heading (given without its #s), up to the next heading of its level or
    above."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", page, flags=re.MULTILINE)
    assert match, f"no heading {heading!r}"
    level = len(match[1])
    rest = page[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, flags=re.MULTILINE)
    return rest[: end.start()] if end else rest


def without_code(page: str) -> str:
    """The page without its fenced blocks (a heading-like line in a block is no heading)."""
    return re.sub(r"^( *)(```|~~~).*?^\1\2[ \t]*$", "", page, flags=re.MULTILINE | re.DOTALL)


def rows(body: str) -> list[list[str]]:
    """The rows of the Markdown tables in ``body`` (header and rule lines left out), cells
    stripped; an escaped ``\\|`` stays inside its cell."""
    found: list[list[str]] = []
    lines = body.splitlines()
    for index, line in enumerate(lines):
        if not line.startswith("|") or re.fullmatch(r"\|( *:?-+:? *\|)+", line.strip()):
            continue
        if index + 1 < len(lines) and re.fullmatch(r"\|( *:?-+:? *\|)+", lines[index + 1].strip()):
            continue  # the header
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        found.append([cell.strip() for cell in cells])
    return found


def code_names(cell: str) -> list[str]:
    """The backticked names of a cell, leaving out what parentheses hold (allowed values,
    examples): ``capacity`` (``on_demand`` \\| ``spot``) names ``capacity`` only."""
    previous = None
    while previous != cell:
        previous, cell = cell, re.sub(r"\([^()]*\)", "", cell)
    return re.findall(r"`([^`]+)`", cell)


# -- docs that run ---------------------------------------------------------------------------

SAMPLES = list(docs_commands.all_blocks())


def test_the_docs_have_samples_and_readme_is_a_quickstart() -> None:
    """Every page but the reference ones shows real commands; the README stays short and
    links every page of docs/ (and only pages that exist)."""
    assert len(SAMPLES) >= 20
    readme = text(README)
    assert len(readme.splitlines()) < 500, "README.md is the quickstart: move reference to docs/"
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", section(readme, "Documentation")))
    pages = {page.name for page in DOCS.glob("*.md")}
    assert linked == pages, (
        f"README.md's Documentation table: not linked {sorted(pages - linked)}, "
        f"no such page {sorted(linked - pages)}"
    )


@pytest.mark.parametrize("block", SAMPLES, ids=[block.where for block in SAMPLES])
def test_a_sample_prints_what_it_shows(block: docs_commands.Block) -> None:
    problems = docs_commands.check(block)
    assert not problems, "\n".join(
        [*problems, "regenerate: .venv/bin/python tests/docs_commands.py --write (make docs)"]
    )


def test_make_demo_runs_the_readme_samples() -> None:
    """The quickstart shows what `make demo` runs, with its output."""
    makefile = text(ROOT / "Makefile")
    recipe = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    demo = re.findall(r"^\t\$\(BIN\)/(gpufleet .+)$", recipe, flags=re.MULTILINE)
    assert demo, "the Makefile's demo target runs no gpufleet command"
    shown = [c.text for b in SAMPLES if b.path == README for c in b.commands]
    missing = [command for command in demo if command not in shown]
    assert not missing, f"README.md shows no sample of `make demo`'s {missing}"


def python_samples() -> Iterator[tuple[str, str]]:
    for path in docs_commands.doc_files():
        page = text(path)
        for match in re.finditer(
            rf"^{re.escape(RUN_MARKER)}\n```python\n(.*?)^```$", page, flags=re.M | re.S
        ):
            line = page[: match.start()].count("\n") + 2
            yield f"{docs_commands.relative(path)}:{line}", match[1]


PYTHON_SAMPLES = list(python_samples())


def test_the_python_samples_are_found() -> None:
    assert PYTHON_SAMPLES, f"no ```python block after {RUN_MARKER}"


@pytest.mark.parametrize(("where", "code"), PYTHON_SAMPLES, ids=[w for w, _ in PYTHON_SAMPLES])
def test_a_python_sample_runs(where: str, code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{where}: the sample fails:\n{done.stderr}"


# -- policies --------------------------------------------------------------------------------

POLICY_ROW = re.compile(r'^<a id="policy-([a-z0-9-]+)"></a>`\1`$')


def policy_rows() -> dict[str, list[str]]:
    table = rows(section(text(DOCS / "policies.md"), "The policies"))
    found = {}
    for cells in table:
        match = POLICY_ROW.match(cells[0])
        assert match, f"docs/policies.md: a row starts with the policy's anchor: {cells[0]}"
        found[match[1]] = cells
    return found


def test_every_policy_of_the_pack_has_its_row_and_no_other() -> None:
    from gpufleet.policies.rules import all_policies

    names = [policy.name for policy in all_policies()]
    documented = list(policy_rows())
    assert sorted(documented) == sorted(names), (
        f"docs/policies.md: no row for {sorted(set(names) - set(documented))}; "
        f"rows for policies the pack does not define {sorted(set(documented) - set(names))}"
    )


def test_each_policy_row_says_its_level_in_each_environment() -> None:
    """The last column: one level for all three environments, or dev / staging / prod, as the
    policy's own level and ``policies/config/<env>.json`` make it (numbers in parentheses are
    its limits)."""
    from gpufleet.policies.rules import all_policies

    envs = ("dev", "staging", "prod")
    configs = {env: json.loads(text(ROOT / "policies" / "config" / f"{env}.json")) for env in envs}
    documented = policy_rows()
    for policy in all_policies():
        levels = []
        for env in envs:
            setting: Any = configs[env].get(policy.name, {})
            if isinstance(setting, str):
                levels.append(setting)
            else:
                default = policy.enforcement_level
                level = setting.get("enforcementLevel", getattr(default, "value", default))
                levels.append(str(level))
        said = re.sub(r"\([^)]*\)", "", documented[policy.name][-1]).split("/")
        said = [level.strip() for level in said]
        expected = levels if len(set(levels)) > 1 else levels[:1]
        assert said == expected, (policy.name, said, levels)


# -- components ------------------------------------------------------------------------------


def component_rows() -> dict[str, list[str]]:
    page = text(DOCS / "components.md")
    found: dict[str, list[str]] = {}
    for cloud in ("aws", "gcp", "azure"):
        heading = next(
            h for h in re.findall(r"^## (.*)$", page, flags=re.M) if f"(`components/{cloud}/`)" in h
        )
        for cells in rows(section(page, heading)):
            name = re.fullmatch(r"`(\w+)`", cells[0])
            assert name, f"docs/components.md: a component row starts `Name`: {cells[0]}"
            found[f"{cloud}:{name[1]}"] = cells
    return found


def test_every_component_has_its_row_under_its_cloud_and_no_other() -> None:
    from gpufleet.planner.capabilities import CAPABILITIES

    documented = component_rows()
    assert sorted(documented) == sorted(CAPABILITIES), (
        f"docs/components.md: no row for {sorted(set(CAPABILITIES) - set(documented))}; rows "
        f"for components gpufleet does not have {sorted(set(documented) - set(CAPABILITIES))}"
    )


def test_a_component_row_names_only_arguments_and_outputs_it_has() -> None:
    """`main arguments`: fields of the component's args class, every required one among them;
    `outputs`: attributes the component sets."""
    from gpufleet.planner.capabilities import CAPABILITIES

    for name, cells in component_rows().items():
        cls_name = name.split(":", 1)[1]
        module = importlib.import_module(CAPABILITIES[name].module)
        fields = getattr(module, f"{cls_name}Args").model_fields
        arguments = code_names(cells[2])
        unknown = [a for a in arguments if a not in fields]
        assert not unknown, f"docs/components.md, {name}: no such argument {unknown}"
        required = [f for f, info in fields.items() if info.is_required()]
        assert set(required) <= set(arguments), (name, "required arguments not named", required)
        attributes = set(re.findall(r"self\.(\w+)\s*(?::[^=\n]*)?=", inspect.getsource(module)))
        unset = [o for o in code_names(cells[3]) if o not in attributes]
        assert not unset, f"docs/components.md, {name}: no such output {unset}"


# -- the spec's fields -----------------------------------------------------------------------


def test_the_field_reference_is_the_spec_schema() -> None:
    """One table per model of the spec (its heading ends with the model's name), its rows the
    model's fields: every field documented, none that the spec does not have."""
    from gpufleet.planner.spec import spec_json_schema

    schema = spec_json_schema()
    models = {
        "WorkloadSpec": schema["properties"],
        **{name: d["properties"] for name, d in schema["$defs"].items()},
    }
    reference = section(text(DOCS / "spec.md"), "Field reference")
    headings = re.findall(r"^### (.*\(`(\w+)`\))$", reference, flags=re.M)
    documented = {model: heading for heading, model in headings}
    assert sorted(documented) == sorted(models), (
        f"docs/spec.md: no table for {sorted(set(models) - set(documented))}; tables for "
        f"models the spec does not have {sorted(set(documented) - set(models))}"
    )
    for model, heading in documented.items():
        fields = [code_names(cells[0])[0] for cells in rows(section(reference, heading))]
        assert sorted(fields) == sorted(models[model]), (
            f"docs/spec.md, {heading}: not documented "
            f"{sorted(set(models[model]) - set(fields))}, not fields "
            f"{sorted(set(fields) - set(models[model]))}"
        )


def test_the_plan_json_reference_is_what_plan_prints() -> None:
    done = subprocess.run(
        [docs_commands.gpufleet(), "plan", "examples/workloads.yaml", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    plan = json.loads(done.stdout)
    page = section(text(DOCS / "planner.md"), "Plan JSON")
    documented = {n for cells in rows(page) for n in code_names(cells[0])}
    environment = plan["environments"][0]
    placement = {key for env in plan["environments"] for p in env["workloads"] for key in p}
    printed = {*plan, *(f".{key}" for key in environment), *placement}
    top_level = {"environments[]", ".workloads[]", ".unplaced[]", ".totals"}
    printed = (printed - {"environments", ".workloads", ".unplaced", ".totals"}) | top_level
    assert documented == printed, (
        f"docs/planner.md, Plan JSON: not documented {sorted(printed - documented)}, not "
        f"printed {sorted(documented - printed)}"
    )
    totals = code_names(next(c for c in rows(page) if c[0] == "`.totals`")[1])
    assert set(totals) == set(environment["totals"]), totals


# -- the CLI ---------------------------------------------------------------------------------


def commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def command_at(path: tuple[str, ...]) -> click.Command:
    from gpufleet.cli.main import main

    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


def long_options(command: click.Command) -> set[str]:
    return {
        option
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden
        for option in param.opts
        if option.startswith("--") and option != "--help"
    }


def test_every_command_has_its_help_in_the_cli_page_and_no_other() -> None:
    from gpufleet.cli.main import main

    page = text(DOCS / "cli.md")
    helps = section(page, "Every command's help")
    headings = re.findall(r"^### `gpufleet ?([^`]*)`$", helps, flags=re.M)
    expected = ["", *(" ".join(path) for path in commands(main))]
    assert sorted(headings) == sorted(expected), (
        f"docs/cli.md: no help for {sorted(set(expected) - set(headings))}; help for "
        f"commands gpufleet does not have {sorted(set(headings) - set(expected))}"
    )
    for name in headings:
        shown = [
            c.text
            for b in SAMPLES
            if b.path == DOCS / "cli.md"
            for c in b.commands
            if c.text == f"gpufleet {name} --help".replace("  ", " ")
        ]
        assert shown, f"docs/cli.md: the section of `gpufleet {name}` runs no `--help`"


def test_the_command_table_lists_every_command_with_every_option() -> None:
    """Both ways: a row per command (not groups), naming each of its options and no other."""
    from gpufleet.cli.main import main

    table = rows(section(text(DOCS / "cli.md"), "Commands"))
    documented: dict[tuple[str, ...], set[str]] = {}
    for cells in table:
        words = code_names(cells[0])[0].split()
        assert words[0] == "gpufleet", cells[0]
        path = resolve(words[1:])
        assert path not in documented, f"docs/cli.md: two rows for gpufleet {' '.join(path)}"
        documented[path] = {w.split("=")[0] for w in re.findall(r"--[a-z][-a-z]*", cells[0])}
    leaves = [p for p in commands(main) if not isinstance(command_at(p), click.Group)]
    assert sorted(documented) == sorted(leaves), (
        f"docs/cli.md's table: no row for {sorted(set(leaves) - set(documented))}"
    )
    for path, options in documented.items():
        real = long_options(command_at(path))
        assert options == real, (
            f"docs/cli.md, gpufleet {' '.join(path)}: options not in the table "
            f"{sorted(real - options)}, in the table but not the command's {sorted(options - real)}"
        )
    said = text(DOCS / "cli.md").split("## Every command's help", 1)[0]
    for option in long_options(main):
        assert f"`{option}" in said, f"docs/cli.md: gpufleet's own {option} is not described"


def resolve(words: list[str]) -> tuple[str, ...]:
    """The command path a command line's words start with (``catalog list ...``)."""
    from gpufleet.cli.main import main

    path: list[str] = []
    command: click.Command = main
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        path.append(word)
        command = command.commands[word]
    return tuple(path)


def command_lines() -> Iterator[tuple[str, str]]:
    """Every gpufleet command line the docs show: samples, shell blocks and inline code."""
    for path in docs_commands.doc_files():
        page = text(path)
        where = docs_commands.relative(path)
        for block in re.finditer(r"^ *```(console|sh)\n(.*?)^ *```$", page, flags=re.M | re.S):
            joined = re.sub(r"\\\n\s*", " ", block[2])
            for line in joined.splitlines():
                line = line.strip()
                if block[1] == "console":  # a sample's output is not a command line
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                if line.startswith("gpufleet "):
                    yield where, line.split(" #", 1)[0].rstrip()
        for span in re.findall(r"`(gpufleet [^`]+)`", without_code(page)):
            yield where, span


def test_every_command_line_in_the_docs_is_one_gpufleet_takes() -> None:
    """No command line names a command or an option gpufleet does not have."""
    from gpufleet.cli.main import main

    problems = []
    seen = 0
    for where, line in command_lines():
        words = line.split()[1:]
        path = resolve(words)
        if not path:
            if words and not words[0].startswith("-") and re.fullmatch(r"[a-z]+", words[0]):
                problems.append(f"{where}: `{line}`: gpufleet has no command {words[0]!r}")
            continue
        seen += 1
        known = long_options(command_at(path)) | long_options(main) | {"--help"}
        for option in re.findall(r"(?<![\w-])--[a-z][-a-z]*", line):
            if option not in known:
                problems.append(f"{where}: `{line}`: {' '.join(path)} has no {option}")
    assert seen > 50
    assert not problems, "\n".join(problems)


# -- links and paths -------------------------------------------------------------------------


def anchors(page: str) -> set[str]:
    """GitHub's heading anchors of a page, and its explicit ``<a id>`` ones."""
    found: set[str] = set(re.findall(r'<a id="([^"]+)">', page))
    counts: dict[str, int] = {}
    for heading in re.findall(r"^#+ (.*)$", without_code(page), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_every_link_in_the_docs_leads_somewhere() -> None:
    problems = []
    for path in docs_commands.doc_files():
        page = without_code(text(path))
        for target in re.findall(r"\]\(([^)\s]+)\)", page):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            where = f"{docs_commands.relative(path)}: ({target})"
            if not linked.exists():
                problems.append(f"{where}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(text(linked)):
                problems.append(f"{where}: no such heading or anchor")
    assert not problems, "\n".join(problems)


def test_every_repository_path_the_docs_name_exists() -> None:
    """A backticked path under one of the repository's top-level folders (`planner/rates.py`,
    `capacity/data/`) must be there."""
    top = {entry.name for entry in ROOT.iterdir()}
    problems = []
    for path in docs_commands.doc_files():
        for token in re.findall(r"`([^`\s]+)`", text(path)):
            token = token.rstrip(",.;:")
            if not re.fullmatch(r"[\w.-]+(/[\w.-]+)+/?", token) or token.split("/")[0] not in top:
                continue
            if not (ROOT / token).exists():
                problems.append(f"{docs_commands.relative(path)}: `{token}` does not exist")
    assert not problems, "\n".join(problems)


# -- the workflow ----------------------------------------------------------------------------


def test_the_ci_page_documents_what_the_workflow_reads() -> None:
    """Every repository variable and secret the workflow reads is documented, and every
    GPUFLEET_ name the page documents is the workflow's; so are its jobs and actions."""
    source = text(ROOT / ".github" / "workflows" / "gpufleet.yml")
    workflow = yaml.safe_load(source)
    page = text(DOCS / "ci.md")
    read = set(re.findall(r"\b(?:vars|secrets)\.([A-Z][A-Z0-9_]*)", source))
    documented = {name for name in read if f"`{name}`" in page}
    assert documented == read, f"docs/ci.md does not document {sorted(read - documented)}"
    named = set(re.findall(r"\bGPUFLEET_[A-Z0-9_]+", page))
    unread = named - set(re.findall(r"\bGPUFLEET_[A-Z0-9_]+", source))
    assert not unread, f"docs/ci.md names what the workflow does not read: {sorted(unread)}"
    for job in workflow["jobs"]:
        assert f"`{job}`" in page, f"docs/ci.md does not describe the job {job}"
    actions = set(re.findall(r"uses: ([\w./-]+)@", source))
    missing = [action for action in sorted(actions) if f"`{action}`" not in page]
    assert not missing, f"docs/ci.md does not name the actions {missing}"
