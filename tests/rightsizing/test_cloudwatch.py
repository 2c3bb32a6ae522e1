"""``gpufleet rightsize --cloudwatch`` against a real moto server on 127.0.0.1: the CloudWatch
agent's GPU metrics of the instances tagged with a workload, read with boto3 and judged like
any other samples; missing credentials are one line."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from click.testing import CliRunner

from gpufleet.cli.main import main
from gpufleet.rightsizing.cloudwatch_gpu import MEMORY_USED, NAMESPACE, UTILIZATION
from gpufleet.tag_keys import WORKLOAD
from tests.local_clouds import FAKE_KEYS
from tests.rightsizing.test_rightsize import ONE_EACH

REGION = "us-east-1"


def _instance(ec2: Any, workload: str) -> str:
    image = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
    made = ec2.run_instances(
        ImageId=image,
        MinCount=1,
        MaxCount=1,
        InstanceType="p4d.24xlarge",
        TagSpecifications=[
            {"ResourceType": "instance", "Tags": [{"Key": WORKLOAD, "Value": workload}]}
        ],
    )
    return made["Instances"][0]["InstanceId"]


# Two GPUs every 30 minutes for 26 hours: over a day and 100 samples, and few enough for
# moto's CloudWatch, which reads its data points one by one.
GPUS, EVERY_MINUTES, HOURS = 2, 30, 26


def _publish(instance: str, mean: float) -> None:
    """The agent's metrics of the instance's GPUs."""
    cloudwatch = boto3.client("cloudwatch", region_name=REGION)
    rng = random.Random(5)
    now = datetime.now(UTC)
    data = []
    for step in range(HOURS * 60 // EVERY_MINUTES):
        when = now - timedelta(minutes=EVERY_MINUTES * step + 5)
        for gpu in range(GPUS):
            dims = [{"Name": "InstanceId", "Value": instance}, {"Name": "index", "Value": str(gpu)}]
            data.append(
                {
                    "MetricName": UTILIZATION,
                    "Dimensions": dims,
                    "Timestamp": when,
                    "Value": max(0.0, rng.gauss(mean, 5)),
                }
            )
            data.append(
                {
                    "MetricName": MEMORY_USED,
                    "Dimensions": dims,
                    "Timestamp": when,
                    "Value": rng.gauss(6500, 300),
                }
            )
    for start in range(0, len(data), 500):
        cloudwatch.put_metric_data(Namespace=NAMESPACE, MetricData=data[start : start + 500])


def test_cloudwatch_samples_of_a_tagged_fleet_are_judged(
    aws_env: str,
    tmp_path: Path,
) -> None:
    ec2 = boto3.client("ec2", region_name=REGION)
    _publish(_instance(ec2, "serving"), mean=20)
    _instance(ec2, "other")  # tagged for another workload: not read
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    result = CliRunner().invoke(
        main,
        ["rightsize", str(spec), "--cloudwatch", REGION, "--since-days", "3", "--format", "json"],
    )
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)["workloads"]
    assert row["judged"], row
    assert row["samples"] == GPUS * HOURS * 60 // EVERY_MINUTES
    assert 15 <= row["utilization_p50"] <= 25
    assert 6.0 <= row["memory_p95_gib"] <= 7.0
    assert row["saving_usd"] > 0


def test_no_credentials_is_one_line(
    aws_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in FAKE_KEYS:
        monkeypatch.delenv(name)
    spec = tmp_path / "seed.yaml"
    spec.write_text(ONE_EACH)
    result = CliRunner().invoke(main, ["rightsize", str(spec), "--cloudwatch", REGION])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    (line,) = result.stderr.splitlines()
    assert line.startswith("CloudWatch: no credentials found (AWS_PROFILE"), line
