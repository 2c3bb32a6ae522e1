"""The workload spec (``workloads.yaml``) as pydantic v2 models.

Every model forbids unknown keys, so a typo fails loudly instead of silently meaning "default".
Field descriptions feed ``gpufleet schema`` (JSON Schema for editors). Checks that need more than
one field, or the catalog, live in ``planner.spec_loader`` so they can report source lines too.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    model_validator,
)

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.capabilities import known_component
from gpufleet.planner.gpu_sharing import SharingChoice
from gpufleet.planner.gpus import known_gpu_names, normalize_gpu_name
from gpufleet.planner.managed_services import MANAGED_SERVICES, Managed
from gpufleet.planner.mig_profiles import MIG_PROFILES
from gpufleet.planner.schedules import (
    DAY_SETS,
    DAYS,
    Day,
    DaySet,
    WeeklySchedule,
    check_time_zone,
    clock_minutes,
    from_cron,
    from_windows,
)
from gpufleet.pricing_models import Commitment
from gpufleet.workload_kinds import Kind

Method = Literal["full", "lora", "qlora"]
# Weights (and, for training, compute); fp8, int8 and int4 are serving's quantized weights.
Precision = Literal["bf16", "fp16", "fp32", "fp8", "int8", "int4"]
KvPrecision = Literal["bf16", "fp16", "fp32", "fp8", "int8"]

_DNS_LABEL = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?")


def _dns_label(value: str) -> str:
    if not _DNS_LABEL.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a DNS label: lowercase letters, digits and '-', "
            "starting with a letter, not ending with '-', at most 63 characters"
        )
    return value


def _gpu_name(value: str) -> str:
    canonical = normalize_gpu_name(value)
    if canonical is None:
        raise ValueError(f"unknown GPU {value!r}; known: {', '.join(known_gpu_names())}")
    return canonical


def _day_set(value: Any) -> Any:
    """``weekdays`` and the like as the days they stand for."""
    if isinstance(value, str):
        if value not in DAY_SETS:
            raise ValueError(
                f"{value!r}: give daily, weekdays, weekends or a list of days ({', '.join(DAYS)})"
            )
        return list(DAY_SETS[value])
    return value


def _unique(values: list[Any]) -> list[Any]:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{value!r} is listed twice")
        seen.add(value)
    return values


def _none_as_empty(value: Any) -> Any:
    return {} if value is None else value


DnsLabel = Annotated[str, AfterValidator(_dns_label)]
GpuName = Annotated[str, AfterValidator(_gpu_name)]
CloudList = Annotated[list[Cloud], Field(min_length=1), AfterValidator(_unique)]


class SpecModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class GpuByName(SpecModel):
    """A named GPU type, ``count`` of them per node."""

    name: GpuName = Field(description="GPU type, e.g. H100, A100-80GB, L4 (any case).")
    count: int = Field(default=1, ge=1, le=16, description="GPUs per node.")


class GpuByMemory(SpecModel):
    """Any general-purpose GPU with at least this much memory, ``count`` per node."""

    min_memory_gib: float = Field(gt=0, le=1024, description="Minimum memory per GPU, GiB.")
    count: int = Field(default=1, ge=1, le=16, description="GPUs per node.")


class GpuByModel(SpecModel):
    """Size the GPUs from the model: the planner estimates VRAM and picks type and count."""

    params_billions: float = Field(gt=0, le=10_000, description="Model parameters, billions.")
    method: Method | None = Field(
        default=None,
        description="Fine-tuning method (training and batch). Omit for serving (inference).",
    )
    precision: Precision = Field(
        default="bf16",
        description="Weight precision (and compute, for training: bf16, fp16 or fp32); "
        "serving may use quantized weights: fp8, int8, int4.",
    )
    batch_tokens: int = Field(
        default=4096,
        ge=1,
        le=10_000_000,
        description="Tokens per GPU per micro-batch (batch x sequence); for serving, the "
        "tokens the KV cache holds when context_tokens is not given.",
    )
    kv_cache_precision: KvPrecision | None = Field(
        default=None,
        description="Serving: the KV cache's precision (default: the weights' if 16- or "
        "32-bit, else fp16).",
    )
    context_tokens: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Serving: tokens of one sequence."
    )
    concurrent_sequences: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Serving: sequences one replica holds at once (default 1).",
    )
    layers: int | None = Field(
        default=None, ge=1, le=10_000, description="Serving: the model's layers (its config.json)."
    )
    hidden_size: int | None = Field(
        default=None,
        ge=64,
        le=1_000_000,
        description="Serving: the model's hidden size (its config.json).",
    )
    kv_heads: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="Serving: key/value heads (grouped-query attention; default: one per "
        "128 of hidden size, as without it).",
    )
    count: int | None = Field(
        default=None,
        ge=1,
        le=16,
        description="Fix GPUs per node instead of letting the planner choose.",
    )


# How many workloads one spec may hold: planning takes about a millisecond a workload and its
# table as long again, so this plans in a few seconds; a team's spec holds dozens.
MAX_WORKLOADS = 2_000

_GPU_FORM_KEYS = {"name": "by_name", "min_memory_gib": "by_memory", "params_billions": "by_model"}


def _gpu_form(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        return {GpuByName: "by_name", GpuByMemory: "by_memory", GpuByModel: "by_model"}.get(
            type(value)
        )
    if not isinstance(value, dict):
        return None
    forms = [form for key, form in _GPU_FORM_KEYS.items() if key in value]
    return forms[0] if len(forms) == 1 else None


GpuRequest = Annotated[
    Annotated[GpuByName, Tag("by_name")]
    | Annotated[GpuByMemory, Tag("by_memory")]
    | Annotated[GpuByModel, Tag("by_model")],
    Discriminator(
        _gpu_form,
        custom_error_type="gpu_form",
        custom_error_message="give exactly one of name, min_memory_gib or params_billions",
    ),
]
GPU_FORM_TAGS = frozenset(_GPU_FORM_KEYS.values())


class Replicas(SpecModel):
    min: int = Field(default=1, ge=0, le=10_000, description="Replicas that always run.")
    max: int = Field(default=1, ge=1, le=10_000, description="Replicas at peak.")

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Replicas:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        return self


_CLOCK = r"^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$"


class ScheduleWindow(SpecModel):
    """When the capacity runs, every week: these days, from ``start`` to ``end`` local time
    (an end at or before the start runs past midnight)."""

    days: Annotated[
        list[Day],
        BeforeValidator(_day_set, json_schema_input_type=DaySet | list[Day]),
        Field(min_length=1),
        AfterValidator(_unique),
    ] = Field(
        default_factory=lambda: list(DAYS),
        description="daily, weekdays, weekends, or a list such as [mon, wed].",
    )
    start: str = Field(pattern=_CLOCK, description="HH:MM, 24-hour clock.")
    end: str = Field(pattern=_CLOCK, description="HH:MM, 24-hour clock; 24:00 is midnight.")


class Schedule(SpecModel):
    """When scheduled capacity runs: ``windows``, or a weekly ``cron`` with ``duration_hours``.
    Outside them it runs at zero (or at its always-on base)."""

    time_zone: Annotated[str, AfterValidator(check_time_zone)] = Field(
        default="UTC", description="IANA time zone the windows or cron are in."
    )
    windows: Annotated[list[ScheduleWindow], Field(min_length=1)] | None = Field(
        default=None, description="Weekly windows, e.g. weekdays 08:00-20:00."
    )
    cron: str | None = Field(
        default=None,
        description="When each run starts: minute hour * * day-of-week, e.g. '0 2 * * MON'.",
    )
    duration_hours: float | None = Field(
        default=None, gt=0, le=168, description="How long each run of the cron lasts."
    )

    @model_validator(mode="after")
    def _one_form(self) -> Schedule:
        if (self.windows is None) == (self.cron is None):
            raise ValueError("give windows, or cron with duration_hours (not both)")
        if (self.cron is None) != (self.duration_hours is None):
            raise ValueError("cron and duration_hours go together")
        self.weekly()  # a cron gpufleet cannot realize fails here, with its reason
        return self

    def weekly(self) -> WeeklySchedule:
        if self.windows is not None:
            return from_windows(
                self.time_zone,
                [
                    (tuple(w.days), clock_minutes(w.start), clock_minutes(w.end))
                    for w in self.windows
                ],
            )
        assert self.cron is not None and self.duration_hours is not None
        return from_cron(self.time_zone, self.cron, self.duration_hours)


class ReplicaGpu(SpecModel):
    """What one replica (serving) or worker (batch) needs of a GPU it shares with others."""

    memory_gib: float | None = Field(
        default=None,
        gt=0,
        le=1024,
        description="GPU memory one replica needs, GiB (default: the model's estimate, or "
        "gpu.min_memory_gib).",
    )
    compute: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Share of one GPU's compute one replica needs, 0..1 (0.25: a quarter).",
    )
    mig_profile: str | None = Field(
        default=None,
        min_length=1,
        max_length=32,
        description="The MIG profile one replica runs in, e.g. 1g.10gb (of the GPU gpu.name).",
    )
    memory_isolation: bool = Field(
        default=True,
        description="Replicas must not reach each other's GPU memory (MIG). false lets "
        "sharing: auto choose MPS or time-slicing where they pack more.",
    )


class Workload(SpecModel):
    name: DnsLabel = Field(description="Unique DNS-label name; becomes the resource name prefix.")
    kind: Kind
    gpu: GpuRequest
    nodes: int = Field(
        default=1, ge=1, le=512, description="Nodes of one tightly coupled job (training / batch)."
    )
    interruptible: bool = Field(
        default=False, description="The job checkpoints: spot capacity allowed."
    )
    always_on: bool = Field(
        default=False,
        description="Serving whose replicas.min run all month (inference); the burst above "
        "them runs on request for hours_per_month, or follows the schedule.",
    )
    schedule: Schedule | None = Field(
        default=None,
        description="When the capacity runs; without one, training and batch run on request.",
    )
    replicas: Replicas | None = Field(
        default=None, description="Inference replicas (default 1..1)."
    )
    sharing: SharingChoice = Field(
        default="none",
        description=(
            "Several replicas (or batch workers) on one GPU: mig (isolated slices: "
            + ", ".join(MIG_PROFILES)
            + "), mps or time_slicing (no memory isolation), auto (MIG where the GPU has it, "
            "MPS or time-slicing where replica_gpu.memory_isolation is false), none."
        ),
    )
    replica_gpu: ReplicaGpu | None = Field(
        default=None, description="With sharing: what one replica needs of the GPU."
    )
    max_replicas_per_instance: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description=(
            "Most replicas (inference) or workers (batch) one instance may run: the planner packs "
            "several onto a multi-GPU machine when that costs less, and this bounds what one "
            "machine's failure takes down. 1: one per instance. Default: as many as fit."
        ),
    )
    hours_per_month: float | None = Field(
        default=None,
        gt=0,
        le=744,
        description=(
            "Hours the capacity runs a month (for always_on, the burst above replicas.min). "
            "With a schedule, it follows from it (given too, they must agree within 5%); on "
            "request, it is the expected use. Default: 730, or the schedule's."
        ),
    )
    max_price_per_hour: float | None = Field(
        default=None,
        gt=0,
        description="Cap on one instance's hourly price under the chosen pricing.",
    )
    clouds: CloudList | None = Field(default=None, description="Override defaults.clouds.")
    regions: dict[Cloud, Annotated[list[str], Field(min_length=1)]] | None = Field(
        default=None, description="Override defaults.regions, per cloud."
    )
    managed: Managed | None = Field(
        default=None,
        description="Run on a managed service that owns the machines: "
        + ", ".join(
            f"{name} ({service.cloud}: {', '.join(sorted(service.kinds))})"
            for name, service in MANAGED_SERVICES.items()
        )
        + ".",
    )
    runs_on: Annotated[str, AfterValidator(known_component)] | None = Field(
        default=None,
        description="The component that builds the workload's capacity (e.g. azure:SpotScaleSet;"
        " planner/capabilities.py lists them): it decides the cloud and the pricing models "
        "the plan may choose. Default: the preferred component of its placement.",
    )
    environments: Annotated[list[DnsLabel], Field(min_length=1), AfterValidator(_unique)] | None = (
        Field(default=None, description="Environments this workload runs in (default: all).")
    )
    tags: dict[str, str] = Field(default_factory=dict, description="Extra tags / labels.")


class EnvironmentLimits(SpecModel):
    max_gpus_per_workload: int | None = Field(
        default=None, ge=1, description="Cap on GPUs per workload."
    )
    allowed_gpus: Annotated[list[GpuName], Field(min_length=1)] | None = Field(
        default=None, description="GPU types allowed here (default: any)."
    )
    monthly_budget_usd: float | None = Field(default=None, gt=0, description="Monthly GPU budget.")
    allow_on_demand: bool = Field(default=True, description="Allow on-demand capacity.")
    max_commitment: Commitment = Field(
        default="3y", description="Longest reserved / committed-use term the planner may choose."
    )
    replica_scale: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="Fraction of inference replicas (min and max) run here, rounded up.",
    )
    max_replicas: int | None = Field(default=None, ge=1, description="Cap on inference replicas.")
    mirror: DnsLabel | None = Field(
        default=None,
        description=(
            "Use the instance types this other environment chose, when allowed here "
            "(staging mirrors prod by default)."
        ),
    )


class CommitmentDiscounts(SpecModel):
    reserved_1y: float | None = Field(
        default=None, ge=0, lt=1, description="1-year discount, 0..1."
    )
    reserved_3y: float | None = Field(
        default=None, ge=0, lt=1, description="3-year discount, 0..1."
    )


class Defaults(SpecModel):
    clouds: CloudList = Field(default_factory=lambda: list(CLOUDS))
    regions: dict[Cloud, Annotated[list[str], Field(min_length=1)]] = Field(
        default_factory=dict, description="Allowed regions per cloud (default: every region)."
    )
    interruption_overhead: (
        Annotated[float, Field(ge=0, le=5)]
        | dict[Cloud, Annotated[float, Field(ge=0, le=5)]]
        | None
    ) = Field(
        default=None,
        description=(
            "Extra compute spot interruptions cost, as a fraction (0.1 = 10%), one number or per "
            "cloud; defaults per cloud in planner/pricing.py."
        ),
    )
    commitment_discounts: dict[Cloud, CommitmentDiscounts] = Field(
        default_factory=dict, description="Override the reserved / committed-use discounts."
    )


class WorkloadSpec(SpecModel):
    """gpufleet workload spec, version 1."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, title="gpufleet workload spec"
    )

    version: Literal[1]
    project: DnsLabel
    owner: Annotated[str, Field(min_length=1, max_length=256)]
    cost_center: Annotated[str, Field(min_length=1, max_length=256)]
    environments: Annotated[
        dict[DnsLabel, Annotated[EnvironmentLimits, BeforeValidator(_none_as_empty)]],
        Field(min_length=1),
    ]
    defaults: Defaults = Field(default_factory=Defaults)
    workloads: Annotated[list[Workload], Field(min_length=1, max_length=MAX_WORKLOADS)]


def spec_json_schema() -> dict[str, Any]:
    schema = WorkloadSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
