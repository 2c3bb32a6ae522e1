"""GPU samples the CloudWatch agent published, read with boto3 (``--cloudwatch REGION``).

The agent's ``nvidia_gpu`` section publishes, in the ``CWAgent`` namespace,
``nvidia_smi_utilization_gpu`` (percent) and ``nvidia_smi_memory_used`` (MiB) per GPU, with
its ``index`` and the dimensions the config appends (``InstanceId``). A workload's instances
are the running or stopped EC2 instances tagged ``workload=<name>`` (``tag_keys.WORKLOAD``, as
gpufleet tags them); their GPU metrics are listed (``list_metrics``) and read
(``get_metric_data``, 5-minute averages, paginated by boto3's own paginators, retried by its
own retry policy). Credentials are boto3's usual chain; ``AWS_ENDPOINT_URL`` points it
elsewhere (the tests: a moto server).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from gpufleet.rightsizing.usage_stats import UsageStats
from gpufleet.runs.aws_access import NO_CREDENTIALS
from gpufleet.tag_keys import WORKLOAD

NAMESPACE = "CWAgent"
UTILIZATION = "nvidia_smi_utilization_gpu"
MEMORY_USED = "nvidia_smi_memory_used"
PERIOD_SECONDS = 300
# get_metric_data takes at most 500 queries a call.
QUERIES_PER_CALL = 500


class CloudWatchError(Exception):
    """One line: what failed and what to set or fix."""


def _clients(region: str) -> tuple[Any, Any]:
    """EC2 and CloudWatch clients of a session of their own (boto3's default session keeps
    the credentials it found first); none found is one line naming what to set."""
    import boto3.session
    from botocore.config import Config

    session = boto3.session.Session(region_name=region)
    if session.get_credentials() is None:
        raise CloudWatchError(f"CloudWatch: {NO_CREDENTIALS}")
    config = Config(retries={"mode": "standard"})
    return session.client("ec2", config=config), session.client("cloudwatch", config=config)


def _instances(ec2: Any, workload: str) -> list[str]:
    pages = ec2.get_paginator("describe_instances").paginate(
        Filters=[{"Name": f"tag:{WORKLOAD}", "Values": [workload]}]
    )
    return [
        instance["InstanceId"]
        for page in pages
        for reservation in page.get("Reservations", [])
        for instance in reservation.get("Instances", [])
    ]


def _metrics(cloudwatch: Any, instance: str) -> list[dict[str, Any]]:
    """The instance's GPU metrics, each once (a listing may repeat one)."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for name in (UTILIZATION, MEMORY_USED):
        pages = cloudwatch.get_paginator("list_metrics").paginate(
            Namespace=NAMESPACE,
            MetricName=name,
            Dimensions=[{"Name": "InstanceId", "Value": instance}],
        )
        for page in pages:
            for metric in page.get("Metrics", []):
                dims = tuple(sorted((d["Name"], d["Value"]) for d in metric.get("Dimensions", [])))
                found.setdefault((metric["MetricName"], dims), metric)
    return list(found.values())


def _gpu(metric: dict[str, Any]) -> str:
    dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
    return f"{dims.get('InstanceId', '')}:{dims.get('index', dims.get('name', ''))}"


def read(
    region: str, workloads: Iterable[str], start: datetime, end: datetime
) -> dict[str, UsageStats]:
    """Each workload's samples between ``start`` and ``end`` in ``region``."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

    found: dict[str, UsageStats] = {}
    try:
        ec2, cloudwatch = _clients(region)
        for workload in workloads:
            metrics = [m for i in _instances(ec2, workload) for m in _metrics(cloudwatch, i)]
            if metrics:
                found[workload] = _samples(cloudwatch, metrics, start, end)
    except NoCredentialsError:
        raise CloudWatchError(f"CloudWatch: {NO_CREDENTIALS}") from None
    except (BotoCoreError, ClientError) as exc:
        raise CloudWatchError(f"CloudWatch in {region}: {' '.join(str(exc).split())}") from None
    return found


def _samples(
    cloudwatch: Any, metrics: list[dict[str, Any]], start: datetime, end: datetime
) -> UsageStats:
    stats = UsageStats()
    for offset in range(0, len(metrics), QUERIES_PER_CALL):
        batch = metrics[offset : offset + QUERIES_PER_CALL]
        queries = [
            {
                "Id": f"m{i}",
                "MetricStat": {"Metric": m, "Period": PERIOD_SECONDS, "Stat": "Average"},
                "ReturnData": True,
            }
            for i, m in enumerate(batch)
        ]
        pages = cloudwatch.get_paginator("get_metric_data").paginate(
            MetricDataQueries=queries, StartTime=start, EndTime=end
        )
        for page in pages:
            for result in page.get("MetricDataResults", []):
                metric = batch[int(result["Id"][1:])]
                gpu = _gpu(metric)
                utilization = metric["MetricName"] == UTILIZATION
                for when, value in zip(result["Timestamps"], result["Values"], strict=True):
                    if value != value or value < 0:
                        continue
                    stats.add(
                        when.timestamp(),
                        gpu,
                        min(value, 100.0) if utilization else None,
                        None if utilization else value,
                    )
    return stats
