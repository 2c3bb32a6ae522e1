"""The tags that find a workload's resources in the cloud: the ones every gpufleet resource of
the workload carries (project, environment, workload, managed-by), as the components set them
(``components/tagging.py``), and their GCP label form. Capacity that scales also carries the
plan's expected use (``expected-minutes``); a fixed group of the same workload does not."""

from __future__ import annotations

from collections.abc import Mapping

from gpufleet import tag_keys
from gpufleet.stacks.stack_config import StackSettings, WorkloadPlacement


def workload_tags(settings: StackSettings, workload: WorkloadPlacement) -> dict[str, str]:
    return {
        tag_keys.PROJECT: settings.project,
        tag_keys.ENVIRONMENT: settings.environment,
        tag_keys.WORKLOAD: workload.name,
        tag_keys.MANAGED_BY: tag_keys.MANAGED_BY_GPUFLEET,
    }


def workload_labels(settings: StackSettings, workload: WorkloadPlacement) -> dict[str, str]:
    return {
        tag_keys.gcp_label_key(key): tag_keys.gcp_label_value(value)
        for key, value in workload_tags(settings, workload).items()
    }


def carries(found: Mapping[str, str] | None, wanted: Mapping[str, str]) -> bool:
    """Whether a resource's tags (or labels) include every wanted one."""
    found = found or {}
    return all(found.get(key) == value for key, value in wanted.items())


def scales(found: Mapping[str, str] | None, *, labels: bool = False) -> bool:
    """Whether a resource's tags (or labels) mark capacity that scales."""
    key = tag_keys.EXPECTED_MINUTES
    return (tag_keys.gcp_label_key(key) if labels else key) in (found or {})


def tags_text(tags: Mapping[str, str]) -> str:
    """Tags (or labels) as a message names them: ``key=value, ...``."""
    return ", ".join(f"{key}={value}" for key, value in tags.items())
