"""Benchmark ``gpufleet check`` (goals from issue 6; figures go in the closing note / README).

1. ``gpufleet check --env prod`` on the example, whole process: median of 5 runs (goal < 6 s).
2. Policy evaluation once captured: N synthetic resources (launch templates, ASGs, GCP
   templates and MIGs, reservations, buckets; half with violations) through the pack process
   over the Analyzer protocol, excluding start-up (goal >= 2,000 resources/s).

    .venv/bin/python benchmarks/check_bench.py [--resources 4000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))


def whole_process(runs: int = 5) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [GPUFLEET, "check", "--env", "prod"], cwd=ROOT, check=True, capture_output=True
        )
        times.append(time.perf_counter() - start)
    return times


def synthetic(count: int):
    from gpufleet.checks.analyzer_resources import AnalyzerResource

    tags = {"project": "p", "owner": "o", "cost-center": "c", "environment": "prod"}
    out = []
    for i in range(count // 4):
        lt_urn = f"urn:pulumi:prod::bench::aws:ec2/launchTemplate:LaunchTemplate::lt-{i}"
        lt = {"instanceType": "g5.12xlarge", "metadataOptions": {"httpTokens": "required"}}
        lt["tags"] = tags if i % 2 else {"project": "p"}
        out.append(
            AnalyzerResource(
                lt_urn, "aws:ec2/launchTemplate:LaunchTemplate", f"lt-{i}", True, lt, lt
            )
        )
        asg = {"maxSize": 4 + i % 8, "tags": [{"key": k, "value": v} for k, v in tags.items()]}
        out.append(
            AnalyzerResource(
                f"urn:pulumi:prod::bench::aws:autoscaling/group:Group::asg-{i}",
                "aws:autoscaling/group:Group",
                f"asg-{i}",
                True,
                asg,
                asg,
                property_dependencies={"launchTemplate": [lt_urn]},
            )
        )
        t_urn = f"urn:pulumi:prod::bench::gcp:compute/instanceTemplate:InstanceTemplate::t-{i}"
        template = {"machineType": "a2-highgpu-4g", "labels": tags, "region": "us-central1"}
        out.append(
            AnalyzerResource(
                t_urn,
                "gcp:compute/instanceTemplate:InstanceTemplate",
                f"t-{i}",
                True,
                template,
                template,
            )
        )
        mig = {"targetSize": 2, "region": "us-central1"}
        out.append(
            AnalyzerResource(
                f"urn:pulumi:prod::bench::gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager::g-{i}",
                "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                f"g-{i}",
                True,
                mig,
                mig,
                property_dependencies={"versions": [t_urn]},
            )
        )
    return out


def evaluation(count: int) -> tuple[float, int]:
    from gpufleet.checks.analyzer_protocol import analyze, configure, configure_stack, pack_info
    from gpufleet.checks.policy_config import load_policy_config, reconcile
    from gpufleet.checks.policy_pack_process import PolicyPackProcess
    from gpufleet.policies.pack import CONFIG_DIR, PACK_DIR

    resources = synthetic(count)
    config, text = load_policy_config(CONFIG_DIR / "prod.json")
    with PolicyPackProcess(PACK_DIR, project="bench", stack="prod", dry_run=False, config={}) as p:
        info = pack_info(p.stub)
        configure(p.stub, reconcile(info, config, text=text))
        configure_stack(p.stub, project="bench", stack="prod", dry_run=False, config={})
        start = time.perf_counter()
        diagnostics, _ = analyze(p.stub, resources)
        elapsed = time.perf_counter() - start
    return len(resources) / elapsed, len(diagnostics)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=4000)
    options = parser.parse_args()
    times = whole_process()
    print(
        f"gpufleet check --env prod: median {statistics.median(times):.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in times)}; goal < 6 s)"
    )
    rate, found = evaluation(options.resources)
    print(
        f"policy evaluation: {rate:,.0f} resources/s over {options.resources:,} resources "
        f"({found:,} findings; goal >= 2,000/s)"
    )


if __name__ == "__main__":
    main()
