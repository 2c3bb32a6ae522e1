"""How long each command takes on hostile input files (the speed half of
``tests/test_hostile_input.py``, which asserts only that they end well and within memory).

Goal (on a 2-core machine): every command ends within 5 s on every input of that test
module — mutated specs, stack configs, exports, catalogs and policy configs, alias bombs, files
of too many values. Runs the module under pytest, its derandomized inputs exactly as the
suite has them, timing each command it invokes; reports per command the number of runs, the
median and the slowest (with its input's size), and exits 1 if one is over the goal. Not part
of ``make test``: a loaded machine makes it slower, not wrong.

    .venv/bin/python benchmarks/hostile_input_bench.py [-k EXPRESSION]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "tests" / "test_hostile_input.py"
GOAL_SECONDS = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("-k", dest="expression", help="only the tests pytest -k selects")
    args = parser.parse_args()
    # command -> [(seconds, largest input file given, the arguments)]
    runs: dict[str, list[tuple[float, int, list[str]]]] = defaultdict(list)
    invoke = CliRunner.invoke

    def timed(runner: CliRunner, cli: Any, arguments: list[str], **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return invoke(runner, cli, arguments, **kwargs)
        finally:
            seconds = time.perf_counter() - start
            runs[arguments[0]].append((seconds, _largest_file(arguments), list(arguments)))

    selection = ["-k", args.expression] if args.expression else []
    with patch.object(CliRunner, "invoke", timed):
        status = pytest.main(
            ["-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT), str(MODULE), *selection]
        )
    if status != 0:
        sys.exit(f"the tests failed (pytest exit {status}): no figures")
    over = False
    for command, timings in sorted(runs.items()):
        seconds = [t for t, _, _ in timings]
        slowest, size, arguments = max(timings, key=lambda run: run[0])
        over |= slowest >= GOAL_SECONDS
        print(
            f"{command}: {len(seconds)} runs, median {statistics.median(seconds):.2f} s, "
            f"slowest {slowest:.2f} s ({size:,} bytes: {' '.join(arguments[:3])} ...)"
        )
    print(f"goal: every run < {GOAL_SECONDS:g} s")
    sys.exit(1 if over else 0)


def _largest_file(arguments: list[str]) -> int:
    sizes = [Path(a).stat().st_size for a in arguments if a.startswith("/") and Path(a).is_file()]
    return max(sizes, default=0)


if __name__ == "__main__":
    main()
