"""AWS's spot capacity signal: the spot placement score (1-10) of running a stack's spot
instances of one type in a region (``ec2.get_spot_placement_scores``, boto3): how likely a
request of that size is to succeed now. Advice, not a quota: a low score is said, never a
failure; a score that cannot be read is said too."""

from __future__ import annotations

from dataclasses import dataclass

import boto3.session

from gpufleet.preflight.needs import QuotaNeed
from gpufleet.runs.aws_access import RETRIES, aws_errors
from gpufleet.runs.cloud_error import CloudError

# AWS: a score of 1-3 means a request is unlikely to succeed.
LOW_SCORE = 3


@dataclass(frozen=True)
class SpotScore:
    region: str
    instance_type: str
    instances: int
    score: int | None  # None: not read (``why``)
    workloads: tuple[str, ...]
    why: str | None = None

    @property
    def low(self) -> bool:
        return self.score is not None and self.score <= LOW_SCORE

    def as_dict(self) -> dict[str, object]:
        return {
            "region": self.region,
            "instance_type": self.instance_type,
            "instances": self.instances,
            "score": self.score,
            "low": self.low,
            "workloads": list(self.workloads),
            "not_read": self.why,
        }


def spot_scores(needs: list[QuotaNeed]) -> list[SpotScore]:
    """The score of each AWS spot need, in its region."""
    session = boto3.session.Session()
    found: list[SpotScore] = []
    for need in needs:
        if need.cloud != "aws" or need.market != "spot" or not need.instances:
            continue
        itype = need.instance_type.removeprefix("ml.")
        try:
            client = session.client("ec2", region_name=need.region, config=RETRIES)
            with aws_errors("ec2:GetSpotPlacementScores", f"{itype} in {need.region}"):
                answer = client.get_spot_placement_scores(
                    InstanceTypes=[itype],
                    TargetCapacity=need.instances,
                    TargetCapacityUnitType="units",
                    RegionNames=[need.region],
                )
        except CloudError as exc:
            found.append(
                SpotScore(need.region, itype, need.instances, None, tuple(need.workloads), str(exc))
            )
            continue
        scores = [
            s.get("Score")
            for s in answer.get("SpotPlacementScores", [])
            if isinstance(s, dict) and s.get("Region") == need.region
        ]
        best = max((s for s in scores if isinstance(s, int)), default=None)
        found.append(
            SpotScore(
                need.region,
                itype,
                need.instances,
                best,
                tuple(need.workloads),
                None if best is not None else "no score for the region",
            )
        )
    return found
