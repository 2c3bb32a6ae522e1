"""Mutated input files, as a careless user or a hostile pull request makes them: every command
that reads them ends with exit 0, 1 or 2, never a traceback, within 500 MB each; a refusal
(exit 2) is one line per problem in the form ``file:line: field: message``. How fast each
command is on these inputs (goal: under 5 s each) is measured by
``benchmarks/hostile_input_bench.py``, not asserted here: a loaded machine is not a failure.

Mutations start from real files (the example spec, a generated stack config, a policy config,
a stack export, the catalog) and splice in what broke earlier versions: deep nesting, alias
bombs and cycles, explicit tags, bytes that are not UTF-8, numbers that are not numbers, a
byte-order mark, control characters, long fields. Derandomized, so CI sees the same inputs.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.checks.baseline import MAX_BASELINE_BYTES
from gpufleet.checks.policy_config import MAX_POLICY_CONFIG_BYTES
from gpufleet.cli.main import main
from gpufleet.engine.capture import capture_program
from gpufleet.engine.stack_export import deployment_text
from gpufleet.json_input import MAX_JSON_VALUES
from gpufleet.planner.catalog import MAX_CATALOG_ROWS
from gpufleet.planner.spec import MAX_WORKLOADS
from gpufleet.text_input import MAX_PROBLEM_CHARS, MAX_PROBLEMS_SHOWN
from gpufleet.yaml_input import MAX_YAML_VALUES
from tests.engine.samples import small_program
from tests.helpers import ROOT

MAX_BYTES = 500 * 1024 * 1024
PROBLEM_LINE = re.compile(r"^.+:\d+: \S.*: .+$")
# After the first MAX_PROBLEMS_SHOWN problems, one line counts the rest.
MORE_PROBLEMS = re.compile(r"^\.\.\. and [\d,]+ more problems$")

SPEC = (ROOT / "examples" / "workloads.yaml").read_bytes()
STACK_CONFIG = (ROOT / "stacks" / "Pulumi.dev.yaml").read_bytes()
POLICY_CONFIG = (ROOT / "policies" / "config" / "dev.json").read_bytes()
CATALOG = b"\n".join((ROOT / "planner" / "data" / "catalog.csv").read_bytes().split(b"\n")[:40])

# What earlier versions could not take, as fragments to splice in anywhere.
HOSTILE = [
    b"[" * 60_000,
    b"{a: " * 5_000,
    b"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    b"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    b"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
    b"&r [*r]",
    b"!!int zz",
    b"!!timestamp x",
    b"!!python/object/apply:os.system [ls]",
    b"!!binary AAAA",
    b"\xff\xfe\xfd",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\x1b[2J\x1b]0;title\x07",
    b".nan",
    b"-.inf",
    b"NaN",
    b"1e999",
    b"9" * 5_000,
    b"-131758",
    b"<<: *nowhere",
    b": <<",
    b"- =",
    b"a: 2026-11-24 10:00:00",
    b'"' + b"x" * 200_000 + b'"',
    b"\r\n",
    b"\t",
    b"- - - - - -",
    b"---\n---\n",
    b"{}",
    b"[]",
    b"null",
]


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "replace", "bytes"]))
        if kind == "insert":
            data[at:at] = draw(st.sampled_from(HOSTILE))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 400))]
        elif kind == "duplicate":
            data[at:at] = data[at : at + draw(st.integers(1, 2_000))] * draw(st.integers(2, 50))
        elif kind == "replace":
            end = at + draw(st.integers(0, 40))
            data[at:end] = draw(st.sampled_from(HOSTILE))
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
    return bytes(data)


class _PeakMemory:
    """The process's peak resident memory over a block, above where it started: sampled from
    /proc every few milliseconds in a thread (tracemalloc would slow the command itself)."""

    def __init__(self) -> None:
        self.start = self.peak = _resident_bytes()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()
        self.peak = max(self.peak, _resident_bytes())

    def _sample(self) -> None:
        while not self._done.wait(0.005):
            self.peak = max(self.peak, _resident_bytes())

    @property
    def grew(self) -> int:
        return self.peak - self.start


def _resident_bytes() -> int:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def run_bounded(args: list[str], size: int = 0) -> tuple[int, str]:
    """(exit code, stderr), asserting the bounds: no exception but exit, memory."""
    with _PeakMemory() as memory:
        result = CliRunner().invoke(main, args, catch_exceptions=True)
    what = f"{args} on {size:,} bytes"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{what}: raised {result.exception!r}") from result.exception
    assert result.exit_code in (0, 1, 2), (what, result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr
    assert memory.grew < MAX_BYTES, f"{what}: {memory.grew / 2**20:.0f} MiB"
    if result.exit_code == 2:
        for line in result.stderr.splitlines():
            assert PROBLEM_LINE.match(line) or MORE_PROBLEMS.match(line), (
                f"{what}: not file:line: field: message: {line!r}"
            )
    return result.exit_code, result.stderr


FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(text=mutated(SPEC))
def test_mutated_specs_through_validate_and_plan(tmp_path: Path, text: bytes) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(text)
    code, _ = run_bounded(["validate", str(spec)], len(text))
    if code == 0:
        run_bounded(["plan", str(spec), "--format", "json"], len(text))


@FUZZ
@given(text=mutated(STACK_CONFIG))
def test_mutated_stack_configs_through_generate(tmp_path: Path, text: bytes) -> None:
    stacks = tmp_path / "stacks"
    stacks.mkdir(exist_ok=True)
    (stacks / "Pulumi.dev.yaml").write_bytes(text)
    example = str(ROOT / "examples" / "workloads.yaml")
    args = ["generate", example, "--env", "dev", "--stacks-dir", str(stacks), "--dry-run"]
    run_bounded(args, len(text))


@pytest.fixture(scope="module")
def export_seed() -> bytes:
    return deployment_text(capture_program(small_program).capture).encode()


@FUZZ
@given(data=st.data())
def test_mutated_exports_through_cost(
    tmp_path: Path, export_seed: bytes, data: st.DataObject
) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(data.draw(mutated(export_seed)))
    run_bounded(["cost", "--env", "dev", "--from-export", str(export), "--format", "json"])


@FUZZ
@given(text=mutated(CATALOG))
def test_mutated_catalogs_through_catalog_list(tmp_path: Path, text: bytes) -> None:
    catalog = tmp_path / "catalog.csv"
    catalog.write_bytes(text)
    run_bounded(["catalog", "list", "--catalog", str(catalog), "--format", "json"], len(text))


@settings(FUZZ, max_examples=10)
@given(text=mutated(POLICY_CONFIG))
def test_mutated_policy_configs_through_check(
    tmp_path: Path, export_seed: bytes, text: bytes
) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(export_seed)
    config = tmp_path / "dev.json"
    config.write_bytes(text)
    run_bounded(
        ["check", "--env", "dev", "--from-export", str(export), "--policy-config", str(config)]
    )


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("spec.yaml", HOSTILE[2], "aliases expand to more than 100,000 values"),
        ("spec.yaml", b"workloads: " + b"[" * 60_000, "nested more than 100 levels deep"),
        ("spec.yaml", b"a: &r [*r]\n", "alias *r refers to a value that contains it"),
        ("spec.yaml", b"workloads: !!int zz\n", "'zz' is not a valid !!int"),
        ("spec.yaml", b"workloads: !!timestamp x\n", "tag !!timestamp is not supported"),
        ("spec.yaml", b"workloads:\n  - \xff\n", "spec.yaml:2: file: not UTF-8 text"),
        ("spec.yaml", b"a: 1\n---\nb: 2\n", "one YAML document expected"),
    ],
)
def test_each_hostile_spec_is_one_named_line(
    tmp_path: Path, name: str, content: bytes, problem: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, stderr = run_bounded(["validate", str(path)])
    assert code == 2 and problem in stderr and stderr.count("\n") == 1, stderr


def test_a_stack_config_alias_bomb_stops_preview_at_once(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.mkdir()
    (program / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (program / "__main__.py").write_text("")
    (program / "Pulumi.dev.yaml").write_bytes(b"config:\n  p:x: 1\n" + HOSTILE[2])
    code, stderr = run_bounded(["preview", "--program", str(program), "--stack", "dev"])
    assert code == 2 and "aliases expand to more than" in stderr


def test_a_json_line_points_at_the_field(tmp_path: Path, export_seed: bytes) -> None:
    document = json.loads(export_seed)
    document["deployment"]["resources"][2]["type"] = 7
    export = tmp_path / "export.json"
    text = json.dumps(document, indent=2)
    export.write_text(text)
    code, stderr = run_bounded(["cost", "--env", "dev", "--from-export", str(export)])
    line = text[: text.index('"type": 7')].count("\n") + 1
    assert code == 2
    assert stderr == f"{export}:{line}: deployment.resources[2].type: missing or not a string\n"


# Files under the size limits whose count of values would still take gigabytes or minutes: each
# stops at a limit on values, rows or workloads (or a smaller size limit for its kind), at once.
JSON_VALUES_OVER = "[" + "1," * MAX_JSON_VALUES + "1]"


def _one_limit_line(stderr: str, path: Path, limit: int) -> None:
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"{path}:"), stderr
    assert f"the limit is {limit:,}" in stderr, stderr


@pytest.mark.parametrize(
    ("args", "limit"),
    [
        (["cost", "--env", "dev", "--from-export", "{big}"], MAX_JSON_VALUES),
        (
            ["cost", "--env", "dev", "--from-export", "{export}", "--compare-to", "{big}"],
            MAX_JSON_VALUES,
        ),
        (
            ["check", "--env", "dev", "--from-export", "{export}", "--baseline", "{big}"],
            MAX_JSON_VALUES,
        ),
        (
            ["check", "--env", "dev", "--from-export", "{export}", "--policy-config", "{big}"],
            MAX_POLICY_CONFIG_BYTES,
        ),
    ],
    ids=["from-export", "compare-to", "baseline", "policy-config"],
)
def test_a_json_file_of_too_many_values_is_one_line(
    tmp_path: Path, export_seed: bytes, args: list[str], limit: int
) -> None:
    big = tmp_path / "big.json"
    big.write_text(JSON_VALUES_OVER)
    export = tmp_path / "export.json"
    export.write_bytes(export_seed)
    args = [a.format(big=big, export=export) for a in args]
    code, stderr = run_bounded(args)
    assert code == 2
    _one_limit_line(stderr, big, limit)


def test_a_baseline_has_its_own_size_limit(tmp_path: Path, export_seed: bytes) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(export_seed)
    baseline = tmp_path / "baseline.json"
    baseline.write_text('"' + "x" * MAX_BASELINE_BYTES + '"')
    code, stderr = run_bounded(
        ["check", "--env", "dev", "--from-export", str(export), "--baseline", str(baseline)]
    )
    assert code == 2 and "too large to be a gpufleet baseline" in stderr
    _one_limit_line(stderr, baseline, MAX_BASELINE_BYTES)


def test_a_policy_config_of_many_problems_is_read_in_one_pass_and_shown_in_part(
    tmp_path: Path, export_seed: bytes
) -> None:
    # Each problem's line was found by rescanning the file from its start: 8,000 unknown
    # policies took 20 s. Now linear, and only the first problems are printed.
    count = 20_000
    export = tmp_path / "export.json"
    export.write_bytes(export_seed)
    config = tmp_path / "dev.json"
    config.write_text("{\n" + ",\n".join(f'"k{i}": "advisory"' for i in range(count)) + "}")
    code, stderr = run_bounded(
        ["check", "--env", "dev", "--from-export", str(export), "--policy-config", str(config)]
    )
    lines = stderr.splitlines()
    assert code == 2 and len(lines) == MAX_PROBLEMS_SHOWN + 1
    assert lines[0].startswith(f"{config}:2: k0: no such policy")
    assert lines[MAX_PROBLEMS_SHOWN - 1].startswith(f"{config}:{MAX_PROBLEMS_SHOWN + 1}: k")
    assert lines[-1] == f"... and {count - MAX_PROBLEMS_SHOWN:,} more problems"


def test_a_catalog_of_too_many_rows_is_one_line(tmp_path: Path) -> None:
    header, row = CATALOG.split(b"\n")[:2]
    catalog = tmp_path / "catalog.csv"
    catalog.write_bytes(header + b"\n" + (row + b"\n") * (MAX_CATALOG_ROWS + 1))
    code, stderr = run_bounded(["catalog", "list", "--catalog", str(catalog)])
    assert code == 2
    _one_limit_line(stderr, catalog, MAX_CATALOG_ROWS)
    assert stderr.startswith(f"{catalog}:{MAX_CATALOG_ROWS + 2}: row: more than")


@pytest.mark.parametrize(
    "content",
    [
        "x: [" + "1," * MAX_YAML_VALUES + "1]\n",
        "".join(f"k{i}: {i}\n" for i in range(MAX_YAML_VALUES // 2 + 1)),
    ],
    ids=["list", "keys"],
)
def test_a_yaml_file_of_too_many_values_is_one_line(tmp_path: Path, content: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(content)
    code, stderr = run_bounded(["validate", str(spec)])
    assert code == 2 and f": yaml: more than {MAX_YAML_VALUES:,} values" in stderr
    _one_limit_line(stderr, spec, MAX_YAML_VALUES)


def test_a_stack_config_of_too_many_values_is_one_line(tmp_path: Path) -> None:
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    config = stacks / "Pulumi.dev.yaml"
    config.write_text("config:\n  p:x: [" + "1," * MAX_YAML_VALUES + "1]\n")
    example = str(ROOT / "examples" / "workloads.yaml")
    code, stderr = run_bounded(
        ["generate", example, "--env", "dev", "--stacks-dir", str(stacks), "--dry-run"]
    )
    assert code == 2
    _one_limit_line(stderr, config, MAX_YAML_VALUES)


def test_a_spec_of_too_many_workloads_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    head = SPEC.decode().split("\nworkloads:")[0]
    workloads = "".join(
        f"  - {{name: w{i}, kind: training, gpu: {{min_memory_gib: 16}}, interruptible: true, "
        "hours_per_month: 10}\n"
        for i in range(MAX_WORKLOADS + 1)
    )
    spec.write_text(f"{head}\nworkloads:\n{workloads}")
    code, stderr = run_bounded(["plan", str(spec), "--env", "staging"])
    assert code == 2
    _one_limit_line(stderr, spec, MAX_WORKLOADS)
    assert f": workloads: {MAX_WORKLOADS + 1:,} items (the limit is" in stderr


def test_a_spec_of_many_unknown_keys_prints_the_first_problems(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    count = 5_000
    spec.write_text(SPEC.decode() + "".join(f"unknown_{i}: 1\n" for i in range(count)))
    code, stderr = run_bounded(["validate", str(spec)])
    lines = stderr.splitlines()
    assert code == 2 and len(lines) == MAX_PROBLEMS_SHOWN + 1
    assert lines[-1] == f"... and {count - MAX_PROBLEMS_SHOWN:,} more problems"


@pytest.mark.parametrize("kind", ["spec", "catalog"])
def test_a_problem_quoting_a_huge_value_is_a_short_line(tmp_path: Path, kind: str) -> None:
    if kind == "spec":
        path = tmp_path / "spec.yaml"
        example = (ROOT / "examples" / "workloads.yaml").read_text()
        path.write_text(example.replace("name: ", "name: " + "w" * 3_000_000 + "x", 1))
        args = ["validate", str(path)]
    else:
        path = tmp_path / "catalog.csv"
        path.write_text(",".join(f"c{i}" for i in range(300_000)) + "\n")
        args = ["catalog", "list", "--catalog", str(path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{path}:") and len(line) < MAX_PROBLEM_CHARS + 50
    assert line.endswith(" characters)")
