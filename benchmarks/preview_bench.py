"""Whole-process wall time and memory of ``gpufleet preview`` (the offline engine).

Goals (issue 5, on a 2-core machine): ``gpufleet preview --env prod`` of the example, median
< 5 s; a generated spec producing >= 2,000 resources previews in < 30 s with peak memory
< 1 GiB.

Usage: .venv/bin/python benchmarks/preview_bench.py [--runs 5] [--workloads 250] [--json]
Exits 1 if a goal is missed; it is not part of ``make test``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = Path(sys.executable).parent / "gpufleet"

# One of each placement shape, so every kind of component shows up in the big stack.
_TEMPLATES = [
    "kind: training, gpu: {name: L4}, interruptible: true, hours_per_month: 100",
    "kind: inference, gpu: {name: L4}, always_on: true, replicas: {min: 1, max: 3}, "
    "interruptible: true",
    "kind: training, gpu: {name: H100, count: 8}, nodes: 2, interruptible: true, "
    "hours_per_month: 200",
    "kind: batch, gpu: {name: T4}, hours_per_month: 50",
    "kind: training, managed: sagemaker, gpu: {name: A10G, count: 4}, interruptible: true, "
    "hours_per_month: 80",
    "kind: batch, managed: azureml, gpu: {name: T4}, interruptible: true, hours_per_month: 90",
    "kind: inference, gpu: {name: A100}, replicas: {min: 1, max: 2}, hours_per_month: 300, "
    "clouds: [azure]",
    "kind: training, gpu: {name: A10G}, interruptible: true, hours_per_month: 60, clouds: [aws]",
]


def generate_spec(workloads: int) -> str:
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
        lines.append(f"  - {{name: w{i}, {_TEMPLATES[i % len(_TEMPLATES)]}}}")
    return "\n".join(lines) + "\n"


def site_config(stack_file: Path) -> str:
    """``site:`` settings covering every region and zone the generated stack uses."""
    config = yaml.safe_load(stack_file.read_text())["config"]
    aws: dict[str, dict] = {}
    gcp: dict[str, dict] = {}
    azure: dict[str, dict] = {}
    for w in config["gpufleet:workloads"]:
        region = w["region"]
        if w["cloud"] == "aws":
            entry = aws.setdefault(region, {"vpcId": "vpc-1", "subnets": []})
            if w["zone"] and all(s["zoneId"] != w["zone"] for s in entry["subnets"]):
                n = len(entry["subnets"])
                entry["subnets"].append({"id": f"subnet-{n}", "zoneId": w["zone"], "zone": "z"})
        elif w["cloud"] == "gcp":
            gcp[region] = {"network": "net", "subnetwork": f"sub-{region}"}
        else:
            azure[region] = {"resourceGroupName": "rg", "subnetId": "/subscriptions/x/subnets/g"}
    for entry in aws.values():
        if not entry["subnets"]:
            entry["subnets"].append({"id": "subnet-x", "zoneId": "az", "zone": "z"})
    site = {
        "site:aws": {"regions": aws},
        "site:gcp": {"project": "bench", "sourceImage": "img", "regions": gcp},
        "site:azure": {"sshPublicKey": "ssh-ed25519 AAAA bench", "regions": azure},
    }
    text = yaml.safe_dump(site, sort_keys=True)
    return "".join(f"  {line}\n" for line in text.splitlines())


def generated_project(project: Path, workloads: int) -> None:
    """A project in ``project`` whose stack ``prod`` gpufleet generated for ``workloads``
    workloads of every shape, with the site settings every component needs."""
    (project / "spec.yaml").write_text(generate_spec(workloads))
    (project / "Pulumi.yaml").write_text(
        f"name: gpufleet\nruntime: python\nmain: {ROOT / 'stacks'}\nstackConfigDir: stacks\n"
    )
    run([str(GPUFLEET), "generate", "spec.yaml", "--env", "prod"], project)
    stack_file = project / "stacks" / "Pulumi.prod.yaml"
    stack_file.write_text(stack_file.read_text() + site_config(stack_file))


def run(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    result = subprocess.run(args, capture_output=True, cwd=cwd, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{result.stderr.decode()}")
    return elapsed, result


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workloads", type=int, default=250)
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    args = parser.parse_args()

    example = [run([str(GPUFLEET), "preview", "--env", "prod"], ROOT)[0] for _ in range(args.runs)]
    results = [
        {
            "case": "preview --env prod (example)",
            "median_s": round(statistics.median(example), 3),
            "min_s": round(min(example), 3),
            "max_s": round(max(example), 3),
            "goal": "median < 5 s",
            "met": statistics.median(example) < 5,
        }
    ]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        generated_project(project, args.workloads)
        elapsed, result = run(
            [str(GPUFLEET), "preview", "--env", "prod", "--format", "json"], project
        )
        # ru_maxrss of children is the largest child so far: this one, the biggest run.
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        count = json.loads(result.stdout)["resources"]
        results.append(
            {
                "case": f"preview {args.workloads} workloads ({count} resources)",
                "median_s": round(elapsed, 3),
                "min_s": round(elapsed, 3),
                "max_s": round(elapsed, 3),
                "peak_rss_mib": round(peak_mib, 1),
                "goal": ">= 2,000 resources, < 30 s, peak < 1 GiB",
                "met": count >= 2000 and elapsed < 30 and peak_mib < 1024,
            }
        )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            status = "ok" if r["met"] else "MISSED"
            memory = f" peak {r['peak_rss_mib']} MiB" if "peak_rss_mib" in r else ""
            print(
                f"{r['case']:<48} median {r['median_s']:.3f}s (min {r['min_s']:.3f}s, "
                f"max {r['max_s']:.3f}s){memory}  goal {r['goal']}: {status}"
            )
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
