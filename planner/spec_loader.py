"""Load a workload spec file and report every problem as ``file:line: field: message``.

Three passes, all reporting with YAML line numbers: YAML syntax (and duplicate keys), the pydantic
models (types, ranges, unknown keys), then checks across fields and against the catalog (unique
names, known regions, environment references, combinations that make no sense). All problems of
a pass are reported together, so a user fixes a file in one round, not one error at a time.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.capabilities import CAPABILITIES, runs_as_one_job
from gpufleet.planner.catalog import Catalog, load_catalog
from gpufleet.planner.environment_profiles import with_profile
from gpufleet.planner.gpu_sharing import usable_gib
from gpufleet.planner.hours import HOURS_TOLERANCE, has_base
from gpufleet.planner.managed_services import MANAGED_SERVICES
from gpufleet.planner.mig_profiles import MIG_PROFILES, mig_profile
from gpufleet.planner.packing import NOT_PACKED, packs
from gpufleet.planner.schedules import windows_time_zone
from gpufleet.planner.spec import (
    GPU_FORM_TAGS,
    CommitmentDiscounts,
    Defaults,
    EnvironmentLimits,
    GpuByMemory,
    GpuByModel,
    GpuByName,
    Replicas,
    Workload,
    WorkloadSpec,
)
from gpufleet.planner.vram import TRAINING_PRECISIONS
from gpufleet.tag_keys import set_by_gpufleet
from gpufleet.text_input import InputFileError, problem_line, quoted_key, read_text_file
from gpufleet.yaml_input import MAX_YAML_BYTES, LocatedDocument, parse_yaml

_FORBIDDEN_TAG_CHARS = set("<>%&\\?")

Loc = tuple[str | int, ...]
_MODELS: tuple[type[BaseModel], ...] = (
    WorkloadSpec,
    Workload,
    GpuByName,
    GpuByMemory,
    GpuByModel,
    Replicas,
    EnvironmentLimits,
    Defaults,
    CommitmentDiscounts,
)
_FIELD_NAMES = sorted({name for model in _MODELS for name in model.model_fields})


@dataclass(frozen=True, order=True)
class SpecProblem:
    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return problem_line(self.file, self.line, self.field, self.message)


class SpecError(Exception):
    """A spec that cannot be used; ``problems`` lists every reason, in file order."""

    def __init__(self, problems: Iterable[SpecProblem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def field_path(loc: Loc) -> str:
    """``workloads[2].gpu.count`` from a pydantic location, without union tags or key markers."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in GPU_FORM_TAGS or part == "[key]":
            continue
        else:
            text += f".{quoted_key(part)}" if text else quoted_key(part)
    return text or "spec"


def _yaml_path(loc: Loc) -> Loc:
    return tuple(
        p for p in loc if not (isinstance(p, str) and (p in GPU_FORM_TAGS or p == "[key]"))
    )


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest candidate, or an empty string."""
    match = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field" + did_you_mean(str(error["loc"][-1]), _FIELD_NAMES)
    if kind == "missing":
        return "required field is missing"
    context = error.get("ctx") or {}
    if kind == "too_long" and context.get("field_type") == "List":
        actual = context.get("actual_length")
        count = f"{actual:,} items" if isinstance(actual, int) else "too many items"
        return f"{count} (the limit is {context['max_length']:,})"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind in {"value_error", "gpu_form", "assertion_error"}:
        return message
    value = error.get("input")
    if isinstance(value, str | int | float | bool) or value is None:
        message += f" (got {value!r})"
    return message


def _problem(file: str, doc: LocatedDocument, loc: Loc, message: str) -> SpecProblem:
    return SpecProblem(file, doc.line_of(_yaml_path(loc)) or 1, field_path(loc), message)


def parse_spec(text: str, file: str, catalog: Catalog | None = None) -> WorkloadSpec:
    """Validate spec text; raise SpecError with every problem found."""
    try:
        doc = parse_yaml(text, file)
    except InputFileError as exc:
        raise SpecError([SpecProblem(file, exc.line, exc.field, exc.message)]) from None
    if not isinstance(doc.data, dict):
        raise SpecError([SpecProblem(file, 1, "spec", "expected a mapping of spec fields")])
    try:
        spec = WorkloadSpec.model_validate(doc.data)
    except ValidationError as exc:
        problems = [
            _problem(file, doc, tuple(err["loc"]), _message(dict(err))) for err in exc.errors()
        ]
        raise SpecError(problems) from None
    cross = list(cross_field_problems(spec, catalog or load_catalog()))
    if cross:
        raise SpecError(_problem(file, doc, loc, message) for loc, message in cross)
    return spec.model_copy(
        update={
            "environments": {
                name: with_profile(name, limits, spec.environments)
                for name, limits in spec.environments.items()
            }
        }
    )


def read_spec_text(path: Path) -> str:
    """A spec file's text, as ``load_spec`` reads it; an unreadable one raises SpecError."""
    try:
        return read_text_file(path, what="a workload spec", limit=MAX_YAML_BYTES)
    except InputFileError as exc:
        raise SpecError([SpecProblem(str(path), exc.line, exc.field, exc.message)]) from None


def load_spec(path: Path, catalog: Catalog | None = None) -> WorkloadSpec:
    """Read and validate a spec file. Unreadable files raise SpecError too (line 1)."""
    return parse_spec(read_spec_text(path), str(path), catalog)


def cross_field_problems(spec: WorkloadSpec, catalog: Catalog) -> Iterable[tuple[Loc, str]]:
    known_regions: dict[Cloud, set[str]] = {cloud: catalog.regions(cloud) for cloud in CLOUDS}
    for name, limits in spec.environments.items():
        target = limits.mirror
        if target is None:
            continue
        if target == name or target not in spec.environments:
            yield (
                ("environments", name, "mirror"),
                f"mirror names another defined environment; defined: "
                f"{', '.join(spec.environments)}",
            )
        elif spec.environments[target].mirror is not None:
            yield (
                ("environments", name, "mirror"),
                f"{target!r} mirrors another environment itself; mirror a planned one",
            )
    yield from _region_problems(
        spec.defaults.regions, spec.defaults.clouds, ("defaults", "regions"), known_regions
    )
    first_index: dict[str, int] = {}
    for i, workload in enumerate(spec.workloads):
        loc: Loc = ("workloads", i)
        if workload.name in first_index:
            yield (
                (*loc, "name"),
                f"duplicate workload name {workload.name!r} "
                f"(first used by workloads[{first_index[workload.name]}])",
            )
        else:
            first_index[workload.name] = i
        for j, env in enumerate(workload.environments or ()):
            if env not in spec.environments:
                yield (
                    (*loc, "environments", j),
                    f"no environment {env!r}; defined: {', '.join(spec.environments)}",
                )
        clouds = workload.clouds or spec.defaults.clouds
        if workload.regions is not None:
            yield from _region_problems(workload.regions, clouds, (*loc, "regions"), known_regions)
        yield from _azure_time_zone_problems(workload, clouds, loc)
        yield from _shape_problems(workload, clouds, loc)
        yield from _tag_problems(workload.tags, (*loc, "tags"))


def _region_problems(
    regions: Mapping[Cloud, Sequence[str]],
    clouds: Sequence[Cloud],
    loc: Loc,
    known: Mapping[Cloud, set[str]],
) -> Iterable[tuple[Loc, str]]:
    for cloud, names in regions.items():
        if cloud not in clouds:
            yield (*loc, cloud), f"regions given for {cloud}, which is not in clouds {clouds}"
        for j, region in enumerate(names):
            if region not in known[cloud]:
                yield (
                    (*loc, cloud, j),
                    f"unknown {cloud} region {region!r}{did_you_mean(region, known[cloud])}",
                )


def _azure_time_zone_problems(
    workload: Workload, clouds: Sequence[Cloud], loc: Loc
) -> Iterable[tuple[Loc, str]]:
    """A schedule Azure could run must have a time zone Azure autoscale knows."""
    if workload.schedule is None or "azure" not in clouds:
        return
    try:
        windows_time_zone(workload.schedule.time_zone)
    except ValueError:
        yield (
            (*loc, "schedule", "time_zone"),
            f"Azure autoscale has no time zone for {workload.schedule.time_zone!r} (no Windows "
            "name): use the zone of a city (Europe/London, America/New_York, Etc/GMT+5), or "
            "leave azure out of the workload's clouds",
        )


def _shape_problems(
    workload: Workload, clouds: Sequence[Cloud], loc: Loc
) -> Iterable[tuple[Loc, str]]:
    serving = workload.kind == "inference"
    if workload.always_on and not serving:
        yield (*loc, "always_on"), "always_on applies to inference (serving) workloads"
    if workload.replicas is not None and not serving:
        yield (*loc, "replicas"), "replicas apply to inference workloads; use nodes for jobs"
    if serving and workload.nodes > 1:
        yield (*loc, "nodes"), "inference scales with replicas, not nodes"
    if workload.max_replicas_per_instance is not None and not packs(workload):
        yield (*loc, "max_replicas_per_instance"), NOT_PACKED
    yield from _sharing_problems(workload, loc)
    if (
        workload.always_on
        and workload.replicas is not None
        and workload.replicas.min == 0
        and workload.schedule is None
    ):
        yield (
            (*loc, "replicas", "min"),
            "always_on with replicas.min 0 never runs: give a schedule for when it does, or "
            "min 1 or more",
        )
    yield from _schedule_problems(workload, loc)
    if workload.runs_on is not None:
        yield from _runs_on_problems(workload, clouds, loc)
    if workload.managed is not None:
        service = MANAGED_SERVICES[workload.managed]
        cloud, kinds = service.cloud, service.kinds
        if workload.kind not in kinds:
            yield (
                (*loc, "managed"),
                f"{workload.managed} runs {' or '.join(sorted(kinds))} workloads, "
                f"not {workload.kind}",
            )
        if cloud not in clouds:
            yield (
                (*loc, "managed"),
                f"{workload.managed} runs on {cloud}, which is not in clouds {clouds}",
            )
    gpu = workload.gpu
    if isinstance(gpu, GpuByModel):
        if gpu.method is not None and serving:
            yield (
                (*loc, "gpu", "method"),
                "inference is sized for serving; method applies to training and batch",
            )
        if gpu.method is None and workload.kind == "training":
            yield (
                (*loc, "gpu", "method"),
                "training sized by model needs method: full, lora or qlora",
            )
        if gpu.method is not None and gpu.precision not in TRAINING_PRECISIONS:
            yield (
                (*loc, "gpu", "precision"),
                f"fine-tuning computes in bf16, fp16 or fp32, not {gpu.precision} (qlora "
                "quantizes its base itself)",
            )
        if gpu.method is not None:
            for field in SERVING_FIELDS:
                if getattr(gpu, field) is not None:
                    yield (*loc, "gpu", field), f"{field} sizes serving; a fine-tune has method"


# GpuByModel's fields that only a serving estimate reads.
SERVING_FIELDS = (
    "kv_cache_precision",
    "context_tokens",
    "concurrent_sequences",
    "kv_heads",
    "layers",
    "hidden_size",
)


def _sharing_problems(workload: Workload, loc: Loc) -> Iterable[tuple[Loc, str]]:
    """A GPU shared by replicas needs replicas gpufleet packs, of one GPU each, and what one
    needs of it; a MIG profile is its GPU's; MPS and time-slicing isolate no memory."""
    sharing, given, gpu = workload.sharing, workload.replica_gpu, workload.gpu
    if sharing == "none":
        if given is not None:
            yield (
                (*loc, "replica_gpu"),
                "replica_gpu applies with sharing: mig, mps, time_slicing or auto",
            )
        return
    if not packs(workload):
        yield (*loc, "sharing"), NOT_PACKED.replace("max_replicas_per_instance", "sharing")
        return
    if gpu.count is not None and gpu.count != 1:
        yield (*loc, "gpu", "count"), "replicas that share a GPU use one GPU each: count 1"
    sized = isinstance(gpu, GpuByModel | GpuByMemory)
    if not sized and (given is None or (given.memory_gib is None and given.mig_profile is None)):
        yield (
            (*loc, "replica_gpu"),
            "sharing needs what one replica needs of the GPU: replica_gpu.memory_gib or "
            "replica_gpu.mig_profile (or size the GPU by model or by memory)",
        )
    if sharing == "mig" and isinstance(gpu, GpuByName) and gpu.name not in MIG_PROFILES:
        yield (
            (*loc, "sharing"),
            f"{gpu.name} has no MIG; GPUs with MIG: {', '.join(MIG_PROFILES)}",
        )
    if given is None:
        return
    if given.mig_profile is not None:
        where = (*loc, "replica_gpu", "mig_profile")
        if sharing not in ("mig", "auto"):
            yield where, f"a MIG profile needs sharing: mig or auto, not {sharing}"
        elif not isinstance(gpu, GpuByName):
            yield where, "a MIG profile is a GPU's: name the GPU (gpu.name)"
        elif (profile := mig_profile(gpu.name, given.mig_profile)) is None:
            names = [p.name for p in MIG_PROFILES.get(gpu.name, ())]
            has = f"it has {', '.join(names)}" if names else "it has no MIG"
            yield where, f"{gpu.name} has no MIG profile {given.mig_profile!r}; {has}"
        elif given.memory_gib is not None and usable_gib(profile) < given.memory_gib:
            yield (
                where,
                f"{profile.name} holds {usable_gib(profile):g} GiB, less than memory_gib "
                f"{given.memory_gib:g}",
            )
        elif given.compute is not None and profile.compute_fraction < given.compute - 1e-9:
            yield (
                where,
                f"{profile.name} has {profile.compute_fraction:.0%} of the GPU's compute, less "
                f"than compute {given.compute:g}",
            )
    if (
        sharing in ("mps", "time_slicing")
        and "memory_isolation" in given.model_fields_set
        and given.memory_isolation
    ):
        yield (
            (*loc, "replica_gpu", "memory_isolation"),
            f"{sharing} does not isolate replicas' memory: say false, or share by mig",
        )


def _runs_on_problems(
    workload: Workload, clouds: Sequence[Cloud], loc: Loc
) -> Iterable[tuple[Loc, str]]:
    """A ``runs_on`` component that cannot build the workload: another cloud, another managed
    service, or not the placement the workload's shape needs."""
    assert workload.runs_on is not None
    component = CAPABILITIES[workload.runs_on]
    where = (*loc, "runs_on")
    if component.cloud not in clouds:
        yield where, f"{component.name} runs on {component.cloud}, which is not in clouds {clouds}"
    if component.managed != workload.managed:
        said = f"the {component.managed} service's" if component.managed else "no managed service's"
        wanted = f"managed: {workload.managed}" if workload.managed else "no managed service"
        yield where, f"{component.name} builds {said} capacity; the workload asks for {wanted}"
        return
    if workload.managed is not None:
        return
    if component.realizes == {"reserved"} and not has_base(workload):
        yield (
            where,
            (
                f"{component.name} builds reserved capacity, held all month: for an always_on "
                "inference workload's base (replicas.min 1 or more)"
            ),
        )
        return
    need = "multi_node" if runs_as_one_job(workload.kind, workload.nodes) else "fleet"
    able = component.realizes & ({"multi_node"} if need == "multi_node" else {"fleet", "reserved"})
    if not able:
        shape = "a multi-node job" if need == "multi_node" else "a fleet or a reserved base"
        builds = ", ".join(sorted(component.realizes)) or "no placement (it is used directly)"
        yield where, f"{component.name} builds {builds}; the workload needs {shape}"


def _schedule_problems(workload: Workload, loc: Loc) -> Iterable[tuple[Loc, str]]:
    schedule = workload.schedule
    if schedule is None:
        return
    if workload.managed is not None:
        yield (
            (*loc, "schedule"),
            f"{workload.managed} starts its own runs; schedule them there, or drop managed "
            "to let gpufleet scale the capacity on this schedule",
        )
    given = workload.hours_per_month
    scheduled = schedule.weekly().hours_per_month
    if given is not None and abs(given - scheduled) > HOURS_TOLERANCE * scheduled:
        yield (
            (*loc, "hours_per_month"),
            f"hours_per_month {given:g} disagrees with the schedule, which runs "
            f"{scheduled:.1f} h a month (more than {HOURS_TOLERANCE:.0%} apart); drop "
            "hours_per_month or make them agree",
        )


def _tag_problems(tags: dict[str, str], loc: Loc) -> Iterable[tuple[Loc, str]]:
    for key, value in tags.items():
        if set_by_gpufleet(key):
            yield (*loc, key), f"{key!r} is set by gpufleet from the spec; remove it here"
        elif not 1 <= len(key) <= 128:
            yield (*loc, key), "tag keys are 1 to 128 characters"
        elif _FORBIDDEN_TAG_CHARS & set(key):
            yield (*loc, key), "tag keys may not contain < > % & \\ ? (Azure rejects them)"
        if len(value) > 256:
            yield (*loc, key), "tag values are at most 256 characters"
