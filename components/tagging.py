"""The tags every gpufleet resource carries, so every GPU dollar has an owner.

``RequiredTags`` holds the values of the keys gpufleet sets (``gpufleet.tag_keys``): project,
owner, cost-center, environment, workload, managed-by=gpufleet and, for stacks, the workload's
kind, plus the user's own; components merge them into every taggable child. Keys gpufleet sets
cannot be overridden by ``extra``: a clash is an error, not a silent winner. Limits are the
strictest of the clouds' own (AWS: keys 128, values 256 characters).

``as_labels`` maps the same tags onto GCP labels (``tag_keys.gcp_label_key``). Two tags that map
to the same label key are an error — one would silently overwrite the other. Reserved capacity
also carries the commitment that pays for it (``with_commitment``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from gpufleet import tag_keys
from gpufleet.pricing_models import Commitment
from gpufleet.tag_keys import gcp_label_key, gcp_label_value


def _tag_value(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


TagValue = Annotated[str, Field(max_length=256), AfterValidator(_tag_value)]


class RequiredTags(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    project: TagValue
    owner: TagValue
    cost_center: TagValue
    environment: TagValue
    workload: TagValue
    workload_kind: TagValue | None = None
    # Replicas packed onto each instance (``tag_keys.REPLICA_SLOTS``); None: one an instance.
    replica_slots: TagValue | None = None
    extra: dict[Annotated[str, Field(min_length=1, max_length=128)], TagValue] = Field(
        default_factory=dict
    )

    @model_validator(mode="after")
    def _extra_cannot_override(self) -> RequiredTags:
        clashes = sorted(k for k in self.extra if tag_keys.set_by_gpufleet(k))
        if clashes:
            raise ValueError(f"extra tags may not set {', '.join(clashes)}: gpufleet sets them")
        return self

    def as_labels(self) -> dict[str, str]:
        """GCP labels for the same tags; ValueError if two keys become one label key."""
        labels: dict[str, str] = {}
        origin: dict[str, str] = {}
        for key, value in self.as_tags().items():
            label = gcp_label_key(key)
            if label in labels:
                raise ValueError(
                    f"tags {origin[label]!r} and {key!r} both become GCP label {label!r}"
                )
            labels[label] = gcp_label_value(value)
            origin[label] = key
        return labels

    def as_tags(self) -> dict[str, str]:
        """AWS / Azure tags: the user's extra tags and the required ones."""
        kind = {} if self.workload_kind is None else {tag_keys.WORKLOAD_KIND: self.workload_kind}
        slots = {} if self.replica_slots is None else {tag_keys.REPLICA_SLOTS: self.replica_slots}
        return {
            **self.extra,
            **kind,
            **slots,
            tag_keys.PROJECT: self.project,
            tag_keys.OWNER: self.owner,
            tag_keys.COST_CENTER: self.cost_center,
            tag_keys.ENVIRONMENT: self.environment,
            tag_keys.WORKLOAD: self.workload,
            tag_keys.MANAGED_BY: tag_keys.MANAGED_BY_GPUFLEET,
        }


def with_commitment(tags: dict[str, str], commitment: Commitment) -> dict[str, str]:
    """``tags`` on reserved capacity: plus the commitment that pays for it (``tag_keys.
    COMMITMENT``), so the cost engine prices it at the committed rate; unchanged for none."""
    return tags if commitment == "none" else {**tags, tag_keys.COMMITMENT: commitment}
