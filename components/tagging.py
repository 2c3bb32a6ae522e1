"""The tags every gpufleet resource carries, so every GPU dollar has an owner.

``RequiredTags`` holds the six required keys — project, owner, cost-center, environment,
workload, managed-by=gpufleet — plus the user's own; components merge them into every taggable
child. Keys gpufleet sets cannot be overridden by ``extra``: a clash is an error, not a silent
winner. Limits are the strictest of the clouds' own (AWS: keys 128, values 256 characters).

GCP calls them labels and allows only lowercase letters, digits, ``_`` and ``-``, at most 63
characters, keys starting with a letter; ``as_labels`` maps tags onto that with
``gcp_labels``. Two tags that map to the same label key are an error — one would silently
overwrite the other.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from gpufleet.components.gcp_labels import gcp_label_key, gcp_label_value

REQUIRED_TAG_KEYS = ("project", "owner", "cost-center", "environment", "workload", "managed-by")
MANAGED_BY = "gpufleet"


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
    extra: dict[Annotated[str, Field(min_length=1, max_length=128)], TagValue] = Field(
        default_factory=dict
    )

    @model_validator(mode="after")
    def _extra_cannot_override(self) -> RequiredTags:
        clashes = sorted(k for k in self.extra if k.lower() in REQUIRED_TAG_KEYS)
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
        return {
            **self.extra,
            "project": self.project,
            "owner": self.owner,
            "cost-center": self.cost_center,
            "environment": self.environment,
            "workload": self.workload,
            "managed-by": MANAGED_BY,
        }
