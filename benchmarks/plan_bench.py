"""Whole-process wall time of ``gpufleet plan`` and ``gpufleet --help``.

Goals (issue 2, on a 2-core machine): ``gpufleet --help`` median < 0.3 s; ``gpufleet plan
examples/workloads.yaml`` median < 0.5 s; a generated 1,000-workload spec < 2 s; (issue 31)
the same with a third of its workloads sharing GPUs (MIG, MPS, time-slicing) < 3 s.

Usage: .venv/bin/python benchmarks/plan_bench.py [--runs 7] [--workloads 1000] [--json]
Exits 1 if a goal is missed, so it can gate a release; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = Path(sys.executable).parent / "gpufleet"

_NAMED = [
    ("H100", 8),
    ("A100", 8),
    ("A100-80GB", 8),
    ("L4", 1),
    ("L4", 4),
    ("A10G", 1),
    ("A10G", 4),
    ("T4", 1),
    ("L40S", 1),
    ("L40S", 4),
    ("V100", 1),
    ("H200", 8),
]
_REGIONS = {
    "aws": ["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"],
    "gcp": ["us-central1", "us-east4", "europe-west4", "asia-east1"],
    "azure": ["eastus", "eastus2", "westus3", "southcentralus"],
}


# GPUs replicas may share, by how: MIG needs an A100/H100/H200/B200, MPS a Volta or later.
_SHARED = {
    "mig": ["A100", "A100-80GB", "H100", "H200"],
    "auto": ["A100", "H100", "L4", "T4"],
    "mps": ["L4", "T4", "A10G", "L40S", "A100"],
    "time_slicing": ["L4", "T4", "V100"],
}


def _shared_workload(rng: random.Random, i: int) -> list[str]:
    """A serving or batch workload of one-GPU replicas sharing their GPUs."""
    mode = rng.choice(list(_SHARED))
    kind = rng.choice(["inference", "inference", "batch"])
    lines = [
        f"  - name: w{i}",
        f"    kind: {kind}",
        f"    gpu: {{name: {rng.choice(_SHARED[mode])}, count: 1}}",
        f"    sharing: {mode}",
        f"    replica_gpu: {{memory_gib: {rng.choice([3, 6, 9, 17])}}}",
    ]
    units = rng.randint(1, 60)
    if kind == "inference":
        lines.append(f"    replicas: {{min: {units}, max: {units + rng.randint(0, 20)}}}")
        lines.append("    always_on: true")
    else:
        lines.append(f"    nodes: {units}")
    return lines


def generate_spec(workloads: int, seed: int = 7, sharing: bool = False) -> str:
    """A deterministic spec mixing every GPU form, kinds, multi-node jobs and serving; with
    ``sharing``, a third of the workloads share GPUs (MIG, MPS, time-slicing, auto)."""
    rng = random.Random(seed)
    lines = [
        "version: 1",
        "project: bench",
        "owner: bench@example.com",
        "cost_center: cc-1",
        "environments:",
        "  prod: {}",
        "workloads:",
    ]
    for i in range(workloads):
        if sharing and rng.random() < 1 / 3:
            lines += _shared_workload(rng, i)
            lines.append(f"    hours_per_month: {rng.choice([120, 730])}")
            continue
        form = rng.random()
        kind = rng.choice(["training", "training", "inference", "batch"])
        lines.append(f"  - name: w{i}")
        lines.append(f"    kind: {kind}")
        if form < 0.5:
            name, count = rng.choice(_NAMED)
            lines.append(f"    gpu: {{name: {name}, count: {count}}}")
        elif form < 0.75:
            lines.append(
                f"    gpu: {{min_memory_gib: {rng.choice([16, 24, 40, 80])}, "
                f"count: {rng.choice([1, 2, 4])}}}"
            )
        else:
            method = (
                "" if kind == "inference" else f", method: {rng.choice(['full', 'lora', 'qlora'])}"
            )
            lines.append(
                f"    gpu: {{params_billions: {rng.choice([1, 3, 7, 13, 34, 70])}{method}}}"
            )
        if kind != "inference" and rng.random() < 0.2:
            lines.append(f"    nodes: {rng.choice([2, 4])}")
        if kind == "inference":
            lo = rng.randint(1, 3)
            lines.append(f"    replicas: {{min: {lo}, max: {lo + rng.randint(0, 4)}}}")
            if rng.random() < 0.5:
                lines.append("    always_on: true")
        lines.append(f"    interruptible: {str(rng.random() < 0.6).lower()}")
        lines.append(f"    hours_per_month: {rng.choice([40, 120, 300, 730])}")
        if rng.random() < 0.5:
            cloud = rng.choice(list(_REGIONS))
            lines.append(f"    clouds: [{cloud}]")
            lines.append(f"    regions: {{{cloud}: [{', '.join(rng.sample(_REGIONS[cloud], 2))}]}}")
    return "\n".join(lines) + "\n"


def time_command(args: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(args, capture_output=True, cwd=ROOT, check=False)
        times.append(time.perf_counter() - start)
        if result.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(args)} failed:\n{result.stderr.decode()}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--workloads", type=int, default=1000)
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / f"spec-{args.workloads}.yaml"
        big.write_text(generate_spec(args.workloads), encoding="utf-8")
        shared = Path(tmp) / f"spec-{args.workloads}-shared.yaml"
        shared.write_text(generate_spec(args.workloads, sharing=True), encoding="utf-8")
        cases = [
            ("gpufleet --help", [str(GPUFLEET), "--help"], 0.3),
            (
                "plan examples/workloads.yaml",
                [str(GPUFLEET), "plan", "examples/workloads.yaml"],
                0.5,
            ),
            (
                f"plan {args.workloads} workloads (table)",
                [str(GPUFLEET), "plan", str(big)],
                2.0,
            ),
            (
                f"plan {args.workloads} workloads (json)",
                [str(GPUFLEET), "plan", str(big), "--format", "json"],
                2.0,
            ),
            # Issue 31: replicas packed and sharing GPUs, MIG layouts solved by HiGHS.
            (
                f"plan {args.workloads} workloads, sharing (json)",
                [str(GPUFLEET), "plan", str(shared), "--format", "json"],
                3.0,
            ),
        ]
        results = []
        for label, command, goal in cases:
            times = time_command(command, args.runs)
            median = statistics.median(times)
            results.append(
                {
                    "case": label,
                    "median_s": round(median, 3),
                    "min_s": round(min(times), 3),
                    "max_s": round(max(times), 3),
                    "goal_s": goal,
                    "met": median < goal,
                }
            )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'case':<36} {'median':>8} {'min':>8} {'max':>8} {'goal':>6}")
        for r in results:
            status = "ok" if r["met"] else "MISSED"
            print(
                f"{r['case']:<36} {r['median_s']:>7.3f}s {r['min_s']:>7.3f}s {r['max_s']:>7.3f}s "
                f"{r['goal_s']:>5.1f}s {status}"
            )
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
