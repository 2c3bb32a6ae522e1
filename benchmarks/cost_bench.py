"""Wall time of ``gpufleet cost``, and of the cost engine on a big captured stack.

Goals (issue 15, on a 2-core machine): pricing a captured stack of >= 2,000 resources, median
< 1 s (it is arithmetic over a capture: reading footprints, resolving templates, rates);
``gpufleet cost --env prod`` of the example, whole process, median < 5 s.

The big stack is the one ``preview_bench.py`` generates (250 workloads of every placement
shape, every component). Its capture is made once, in this process, and not timed; what is
timed is what ``gpufleet cost`` does with a capture: the resources read as the engine sends
them, and ``price_stack``.

Usage: .venv/bin/python benchmarks/cost_bench.py [--runs 5] [--workloads 250] [--json]
Exits 1 if a goal is missed; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from preview_bench import GPUFLEET, ROOT, generated_project, run

from gpufleet.capacity.cost_engine import price_stack
from gpufleet.capacity.stack_resource import stack_resources
from gpufleet.engine.analyzer_resources import from_capture
from gpufleet.engine.program_dir import run_program_dir
from gpufleet.planner.rates import shipped_rate_card


def timed(args: list[str], cwd: Path) -> float:
    return run(args, cwd)[0]


def summary(case: str, times: list[float], goal: str, met: bool) -> dict[str, object]:
    return {
        "case": case,
        "median_s": round(statistics.median(times), 3),
        "min_s": round(min(times), 3),
        "max_s": round(max(times), 3),
        "goal": goal,
        "met": met,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workloads", type=int, default=250)
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    args = parser.parse_args()

    example = [timed([str(GPUFLEET), "cost", "--env", "prod"], ROOT) for _ in range(args.runs)]
    results = [
        summary(
            "cost --env prod (example)",
            example,
            "median < 5 s",
            statistics.median(example) < 5,
        )
    ]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        generated_project(project, args.workloads)
        capture = run_program_dir(project, "prod")
        count = len(capture.registrations)
        rates = shipped_rate_card()
        pricing: list[float] = []
        priced = 0
        for _ in range(args.runs):
            start = time.perf_counter()
            cost = price_stack(stack_resources(from_capture(capture)), rates)
            pricing.append(time.perf_counter() - start)
            priced = len(cost.resources)
        results.append(
            summary(
                f"price a captured stack ({count} resources, {priced} GPU)",
                pricing,
                ">= 2,000 resources, median < 1 s",
                count >= 2000 and statistics.median(pricing) < 1,
            )
        )
        whole = [
            timed([str(GPUFLEET), "cost", "--env", "prod", "--format", "json"], project)
            for _ in range(max(1, args.runs // 2))
        ]
        results.append(
            summary(
                f"cost --env prod ({args.workloads} workloads, whole process)",
                whole,
                "(no goal: capture included)",
                True,
            )
        )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            status = "ok" if r["met"] else "MISSED"
            print(
                f"{r['case']:<52} median {r['median_s']:.3f}s (min {r['min_s']:.3f}s, "
                f"max {r['max_s']:.3f}s)  goal {r['goal']}: {status}"
            )
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
