"""Whole-process wall time and peak memory of ``gpufleet rightsize`` on a gigabyte of samples.

Goals (issue 31, on a 2-core machine): 1 GB of nvidia-smi CSV, and 1 GB of DCGM exporter
text, each rightsized in under 30 s and 500 MB (the samples are streamed, not loaded whole).

Usage: .venv/bin/python benchmarks/rightsize_bench.py [--gigabytes 1] [--json]
Exits 1 if a goal is missed; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GPUFLEET = Path(sys.executable).parent / "gpufleet"
SPEC = """\
version: 1
project: bench
owner: bench@example.com
cost_center: cc-1
environments:
  prod: {}
defaults:
  clouds: [aws]
  regions: {aws: [us-east-1]}
workloads:
  - name: serving
    kind: inference
    gpu: {name: A100, count: 1}
    always_on: true
    replicas: {min: 40, max: 40}
"""
BLOCK_BYTES = 8 << 20


def _block(kind: str, start: float, rng: random.Random) -> tuple[str, float]:
    """About BLOCK_BYTES of samples from ``start``, every 60 s for 40 GPUs; the time after."""
    lines, size, when = [], 0, start
    while size < BLOCK_BYTES:
        stamp = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(when))
        for gpu in range(40):
            busy, used = rng.randint(5, 40), rng.randint(4000, 9000)
            if kind == "nvidia-smi":
                line = f"{stamp}.000, {gpu % 8}, {busy} %, {used} MiB, 40960 MiB\n"
            else:
                labels = (
                    f'gpu="{gpu % 8}",UUID="GPU-{gpu}",device="nvidia{gpu % 8}",'
                    f'modelName="NVIDIA A100-SXM4-40GB",Hostname="node-{gpu // 8}",'
                    'workload="serving"'
                )
                ms = int(when * 1000)
                line = (
                    f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {busy} {ms}\n"
                    f"DCGM_FI_DEV_FB_USED{{{labels}}} {used} {ms}\n"
                )
            lines.append(line)
            size += len(line)
        when += 60
    return "".join(lines), when


def write_samples(path: Path, kind: str, gigabytes: float) -> None:
    rng = random.Random(7)
    start = time.time() - 10 * 86400
    with path.open("w") as out:
        if kind == "nvidia-smi":
            out.write(
                "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
            )
        while out.tell() < gigabytes * 1e9:
            text, start = _block(kind, start, rng)
            out.write(text)


def run(spec: Path, usage: str) -> tuple[float, float]:
    """(wall seconds, peak MB of the child) of one rightsize run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [str(GPUFLEET), "rightsize", str(spec), "--usage", usage, "--format", "json"],
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"rightsize failed:\n{done.stderr.decode()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.yaml"
        spec.write_text(SPEC)
        for kind, suffix in (("nvidia-smi", "csv"), ("dcgm", "prom")):
            samples = Path(tmp) / f"samples.{suffix}"
            write_samples(samples, kind, args.gigabytes)
            size = samples.stat().st_size
            usage = f"serving={samples}" if kind == "nvidia-smi" else str(samples)
            seconds, peak = run(spec, usage)
            samples.unlink()
            results.append(
                {
                    "case": f"rightsize {size / 1e9:.2f} GB of {kind}",
                    "seconds": round(seconds, 2),
                    "peak_mb": round(peak),
                    "goal_s": 30,
                    "goal_mb": 500,
                    "met": seconds < 30 and peak < 500,
                }
            )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            status = "ok" if r["met"] else "MISSED"
            print(
                f"{r['case']:<36} {r['seconds']:>7.2f}s {r['peak_mb']:>6} MB  "
                f"goal 30 s, 500 MB {status}"
            )
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
