"""Benchmark ``gpufleet check`` (goals from issue 6; figures go in the closing note / README).

1. ``gpufleet check --env prod`` on the example, whole process, from its program and from its
   ``pulumi stack export`` (``--from-export``): median of 5 runs each (goal < 6 s).
2. Policy evaluation once captured (goal >= 2,000 resources/s): N synthetic resources (launch
   templates, Auto Scaling groups, GCP instance templates and MIGs; half with violations),
   ``Analyze`` for each and one ``AnalyzeStack``, measured three ways:
   - in the pack: the pack's servicer in this process, the same request messages, no gRPC;
   - over gRPC: through a pack process as ``gpufleet check`` runs it, after start-up and an
     8-resource warm-up, median of 3 rounds;
   - the same with the pack served by ``grpc.server`` (``GPUFLEET_PACK_SERVER=grpc``, what
     ``PolicyPack`` uses) instead of ``UnaryServer``, for comparison;
   - gRPC alone: the pack's server with every policy disabled — what the protocol costs with
     nothing to evaluate, the ceiling for the line above on this machine.

    .venv/bin/python benchmarks/check_bench.py [--resources 4000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest.mock import patch

import yaml

from gpufleet.stacks.config_keys import LIMITS_KEY

ROOT = Path(__file__).resolve().parent.parent
GPUFLEET = str(Path(sys.executable).with_name("gpufleet"))


def _prod_limits() -> dict[str, str]:
    """The example prod stack's limits, as the engine hands a pack the stack config: the budget
    policy reads its budget there, so it runs (and finds) what it does for that stack."""
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())["config"]
    return {LIMITS_KEY: json.dumps(config[LIMITS_KEY])}


PROD_STACK_CONFIG = _prod_limits()


def whole_process(*extra: str, runs: int = 5) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [GPUFLEET, "check", "--env", "prod", *extra],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    return times


def synthetic(count: int):
    from gpufleet.engine.analyzer_resources import AnalyzerResource, ProviderRef

    # Resources of a cloud come with their provider, as the engine sends them (without one, a
    # resource is a component of the program, whose properties are its outputs).
    aws = ProviderRef(
        "pulumi:providers:aws",
        "urn:pulumi:prod::bench::pulumi:providers:aws::default",
        "default",
        {"region": "us-east-1"},
    )
    gcp = ProviderRef(
        "pulumi:providers:gcp",
        "urn:pulumi:prod::bench::pulumi:providers:gcp::default",
        "default",
        {"project": "bench"},
    )
    tags = {"project": "p", "owner": "o", "cost-center": "c", "environment": "prod"}
    out = []
    for i in range(count // 4):
        lt_urn = f"urn:pulumi:prod::bench::aws:ec2/launchTemplate:LaunchTemplate::lt-{i}"
        lt = {"instanceType": "g5.12xlarge", "metadataOptions": {"httpTokens": "required"}}
        lt["tags"] = tags if i % 2 else {"project": "p"}
        out.append(
            AnalyzerResource(
                lt_urn,
                "aws:ec2/launchTemplate:LaunchTemplate",
                f"lt-{i}",
                True,
                lt,
                lt,
                provider=aws,
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
                provider=aws,
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
                provider=gcp,
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
                provider=gcp,
                property_dependencies={"versions": [t_urn]},
            )
        )
    return out


def in_pack(resources: list) -> float:
    from pulumi_policy import EnforcementLevel

    from gpufleet.checks.analyzer_protocol import analyze, configure, configure_stack, pack_info
    from gpufleet.checks.policy_config import load_policy_config, reconcile
    from gpufleet.policies.pack import CONFIG_DIR, PACK_NAME
    from gpufleet.policies.rules import all_policies
    from gpufleet.policies.serving.analyzer_servicer import PackAnalyzer
    from gpufleet.policies.testing import InProcessAnalyzer

    analyzer = InProcessAnalyzer(
        PackAnalyzer(PACK_NAME, "0.0.1", all_policies(), EnforcementLevel.MANDATORY)
    )
    config, text = load_policy_config(CONFIG_DIR / "prod.json")
    configure(analyzer, reconcile(pack_info(analyzer), config, text=text))
    configure_stack(
        analyzer, project="bench", stack="prod", dry_run=False, config=PROD_STACK_CONFIG
    )
    analyze(analyzer, resources[:8])
    start = time.perf_counter()
    analyze(analyzer, resources)
    return len(resources) / (time.perf_counter() - start)


def over_grpc(
    resources: list, *, disabled: bool = False, server: str = "unary"
) -> tuple[float, int]:
    from gpufleet.checks.analyzer_protocol import analyze, configure, configure_stack, pack_info
    from gpufleet.checks.policy_config import load_policy_config, reconcile
    from gpufleet.checks.policy_pack_process import PolicyPackProcess
    from gpufleet.policies.pack import CONFIG_DIR, PACK_DIR
    from gpufleet.policies.serving.serve import SERVER_ENV

    config, text = load_policy_config(CONFIG_DIR / "prod.json")
    with (
        patch.dict(os.environ, {SERVER_ENV: server}),
        PolicyPackProcess(
            PACK_DIR, project="bench", stack="prod", dry_run=False, config=PROD_STACK_CONFIG
        ) as p,
    ):
        settings = reconcile(pack_info(p.stub), config, text=text)
        if disabled:
            settings = {name: ("disabled", props) for name, (_, props) in settings.items()}
        configure(p.stub, settings)
        configure_stack(
            p.stub, project="bench", stack="prod", dry_run=False, config=PROD_STACK_CONFIG
        )
        analyze(p.stub, resources[:8])
        rates, found = [], 0
        for _ in range(3):
            start = time.perf_counter()
            diagnostics, _ = analyze(p.stub, resources)
            rates.append(len(resources) / (time.perf_counter() - start))
            found = len(diagnostics)
    return statistics.median(rates), found


def host_speed() -> float:
    """Seconds a fixed pure-Python loop takes now: this shared host's speed moves by half and
    more with its neighbours' load (0.65 s at its quietest seen, 1.6 s at its busiest), and
    the figures move with it."""
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--resources", type=int, default=4000)
    options = parser.parse_args()
    print(f"host speed: a fixed loop takes {host_speed():.2f} s (0.65 s at its quietest seen)")
    with tempfile.TemporaryDirectory() as scratch:
        export = Path(scratch) / "prod.json"
        subprocess.run(
            [GPUFLEET, "preview", "--env", "prod", "--export", str(export)],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        for what, extra in (("", ()), (" --from-export", ("--from-export", str(export)))):
            times = whole_process(*extra)
            print(
                f"gpufleet check --env prod{what}: median {statistics.median(times):.2f} s "
                f"(runs: {', '.join(f'{t:.2f}' for t in times)}; goal < 6 s)"
            )
    resources = synthetic(options.resources)
    n = f"{options.resources:,} resources"
    print(f"policy evaluation in the pack: {in_pack(resources):,.0f} resources/s over {n}")
    rate, found = over_grpc(resources)
    print(f"policy evaluation over gRPC: {rate:,.0f} resources/s over {n} ({found:,} findings)")
    rate, _ = over_grpc(resources, server="grpc")
    print(f"  the same, pack served by grpc.server: {rate:,.0f} resources/s")
    rate, _ = over_grpc(resources, disabled=True)
    print(f"gRPC alone (every policy disabled): {rate:,.0f} resources/s over {n}")
    print("goal: policy evaluation >= 2,000 resources/s")
    print(f"host speed at the end: {host_speed():.2f} s")


if __name__ == "__main__":
    main()
