"""Mutated input files, as a careless user or a hostile pull request makes them: every command
that reads them ends with exit 0, 1 or 2, never a traceback, within 5 s and 500 MB each; a
refusal (exit 2) is one line per problem in the form ``file:line: field: message``.

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
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.cli.main import main
from gpufleet.engine.capture import capture_program
from gpufleet.engine.stack_export import deployment_text
from tests.engine.samples import small_program
from tests.helpers import ROOT

MAX_SECONDS = 5.0
MAX_BYTES = 500 * 1024 * 1024
PROBLEM_LINE = re.compile(r"^.+:\d+: \S.*: .+$")

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
    """(exit code, stderr), asserting the bounds: no exception but exit, time, memory."""
    started = time.monotonic()
    with _PeakMemory() as memory:
        result = CliRunner().invoke(main, args, catch_exceptions=True)
    elapsed = time.monotonic() - started
    what = f"{args} on {size:,} bytes"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{what}: raised {result.exception!r}") from result.exception
    assert result.exit_code in (0, 1, 2), (what, result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr
    assert elapsed < MAX_SECONDS, f"{what}: {elapsed:.1f} s"
    assert memory.grew < MAX_BYTES, f"{what}: {memory.grew / 2**20:.0f} MiB"
    if result.exit_code == 2:
        for line in result.stderr.splitlines():
            assert PROBLEM_LINE.match(line), f"{what}: not file:line: field: message: {line!r}"
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
