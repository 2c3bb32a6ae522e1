"""Sharing GPUs between replicas: the MIG tables agree with themselves, the solver's layout
equals an exhaustive search's on every small case, every layout it gives is one NVIDIA's
placement rules allow, and the planner packs shared replicas for no more than whole GPUs."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.gpu_sharing import (
    MAX_CLIENTS,
    ReplicaNeed,
    eligible_profiles,
    mig_layout,
    shared_gpu,
    usable_gib,
)
from gpufleet.planner.gpus import GPUS
from gpufleet.planner.mig_profiles import (
    COMPUTE_SLICES,
    MEMORY_SLICES,
    MIG_PROFILES,
    MigProfile,
    placed,
)
from gpufleet.planner.optimizer import Planner
from gpufleet.planner.spec_loader import SpecError, parse_spec
from tests.helpers import spec_text

REAL = load_catalog()
MIG_GPUS = sorted(MIG_PROFILES)


def _valid(subset: Iterable[tuple[MigProfile, int]]) -> bool:
    """NVIDIA's rules, written out: no memory slice twice, at most 7 compute slices."""
    used: set[int] = set()
    compute = 0
    for profile, start in subset:
        taken = set(range(start, start + profile.memory_slices))
        if taken & used or start + profile.memory_slices > MEMORY_SLICES:
            return False
        used |= taken
        compute += profile.compute_slices
    return compute <= COMPUTE_SLICES


def brute_force(gpu: str, need: ReplicaNeed) -> tuple[int, int]:
    """(instances, compute slices) of the best layout, over every set of placements."""
    choices = [(p, s) for p in eligible_profiles(gpu, need) for s in p.placements]
    best = (0, 0)
    for size in range(COMPUTE_SLICES + 1):
        for subset in itertools.combinations(choices, size):
            if _valid(subset):
                best = max(best, (size, sum(p.compute_slices for p, _ in subset)))
    return best


@pytest.mark.parametrize("gpu", MIG_GPUS)
def test_each_profile_alone_fills_a_gpu_as_nvidia_says(gpu: str) -> None:
    """The tables' placements give each profile NVIDIA's "number of instances", and every
    profile's memory is its memory slices' share of the GPU's (the name's figure)."""
    for profile in MIG_PROFILES[gpu]:
        layout = mig_layout(gpu, ReplicaNeed(None, mig_profile=profile.name))
        assert [p.name for p in layout] == [profile.name] * profile.max_instances
        share = GPUS[gpu].memory_gib * profile.memory_slices / MEMORY_SLICES
        assert profile.memory_gib == pytest.approx(share, rel=0.08), profile


needs = st.builds(
    ReplicaNeed,
    memory_gib=st.floats(1, 200),
    compute=st.none() | st.sampled_from([0.1, 0.15, 0.3, 0.45, 0.6, 1.0]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MIG_GPUS), needs)
def test_the_solver_equals_brute_force_and_its_layouts_are_placeable(
    gpu: str, need: ReplicaNeed
) -> None:
    layout = mig_layout(gpu, need)
    count, compute = brute_force(gpu, need)
    assert len(layout) == count
    # One profile for all where it fits as many (the driver places them in any order), the
    # one with the most compute; else the most compute of any layout.
    uniform = [p for p in eligible_profiles(gpu, need) if p.max_instances == count]
    if uniform and count:
        best = max(p.compute_slices for p in uniform)
        assert {p.name for p in layout} == {layout[0].name}
        assert layout[0].compute_slices == best
    else:
        assert sum(p.compute_slices for p in layout) == compute
    assert placed(gpu, [p.name for p in layout]) is not None
    for profile in layout:
        assert usable_gib(profile) >= (need.memory_gib or 0)
        assert profile.compute_fraction >= (need.compute or 0) - 1e-9


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(MIG_GPUS), st.data())
def test_placed_agrees_with_brute_force(gpu: str, data: st.DataObject) -> None:
    names = data.draw(st.lists(st.sampled_from([p.name for p in MIG_PROFILES[gpu]]), max_size=8))
    table = {p.name: p for p in MIG_PROFILES[gpu]}
    exists = any(
        _valid(zip((table[n] for n in names), starts, strict=True))
        for starts in itertools.product(*(table[n].placements for n in names))
    )
    found = placed(gpu, names)
    assert (found is not None) == exists
    if found is not None:
        assert _valid(zip((table[n] for n in names), found, strict=True))


def test_each_way_of_sharing_applies_where_it_can() -> None:
    eight = ReplicaNeed(8.0)
    assert shared_gpu("L4", "mig", eight) is None  # no MIG on an L4
    mps = shared_gpu("L4", "mps", eight)
    assert mps is not None and (mps.mode, mps.replicas) == ("mps", 2)  # 21.6 usable GiB
    assert shared_gpu("P100", "mps", ReplicaNeed(4.0)) is None  # MPS limits need Volta
    sliced = shared_gpu("P100", "time_slicing", ReplicaNeed(4.0))
    assert sliced is not None and sliced.replicas == 3
    # auto isolates memory unless told not to: MIG where there is one, else whole GPUs.
    assert shared_gpu("L4", "auto", eight) is None
    mig = shared_gpu("A100", "auto", eight)
    assert mig is not None and mig.mode == "mig" and mig.replicas == 4
    loose = shared_gpu("A100", "auto", ReplicaNeed(4.0, memory_isolation=False))
    assert loose is not None and (loose.mode, loose.replicas) == ("mps", 9)
    tiny = shared_gpu("H200", "mps", ReplicaNeed(0.5))
    assert tiny is not None and tiny.replicas == MAX_CLIENTS
    # One replica a GPU is no sharing.
    assert shared_gpu("A100", "mig", ReplicaNeed(30.0)) is None


SEED_SERVING = """
defaults: {clouds: [aws], regions: {aws: [us-east-1]}}
workloads:
  - name: serve
    kind: inference
    gpu: {name: A100}
    always_on: true
    replicas: {min: 40, max: 40}
"""


def test_forty_replicas_that_use_a_fifth_of_an_a100_share_them() -> None:
    """The seed story's serving: 40 A100s at 20% use. With MIG and 8 GiB a replica, an A100
    holds four: ten GPUs, two 8-GPU machines, not five."""
    whole = parse_spec(spec_text(SEED_SERVING), "s.yaml", REAL)
    shared = parse_spec(
        spec_text(SEED_SERVING + "    sharing: mig\n    replica_gpu: {memory_gib: 8}\n"),
        "s.yaml",
        REAL,
    )
    (a,) = Planner(whole, REAL).plan_environment("prod").placements
    (b,) = Planner(shared, REAL).plan_environment("prod").placements
    assert (a.instances, a.total_gpus, a.shared) == (5, 40, None)
    assert b.shared is not None and b.shared.mode == "mig"
    assert (b.instances, b.replicas_per_instance, b.total_gpus) == (2, 32, 16)
    assert b.monthly_usd == pytest.approx(a.monthly_usd * 2 / 5)


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ("    sharing: mig\n", "workloads[0].replica_gpu", "what one replica needs"),
        (
            "    sharing: mig\n    replica_gpu: {mig_profile: 9g.1gb}\n",
            "workloads[0].replica_gpu.mig_profile",
            "A100 has no MIG profile '9g.1gb'",
        ),
        ("    replica_gpu: {memory_gib: 4}\n", "workloads[0].replica_gpu", "applies with sharing"),
        (
            "    sharing: mig\n    replica_gpu: {mig_profile: 1g.5gb, memory_gib: 30}\n",
            "workloads[0].replica_gpu.mig_profile",
            "less than memory_gib 30",
        ),
        (
            "    sharing: mps\n    replica_gpu: {memory_gib: 4, memory_isolation: true}\n",
            "workloads[0].replica_gpu.memory_isolation",
            "does not isolate",
        ),
    ],
)
def test_sharing_that_cannot_work_is_a_spec_error(extra: str, field: str, words: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec(spec_text(SEED_SERVING + extra), "s.yaml", REAL)
    (problem,) = caught.value.problems
    assert problem.field == field and words in problem.message, problem


def test_mig_on_a_gpu_without_it_and_sharing_a_training_job_are_spec_errors() -> None:
    text = (
        SEED_SERVING.replace("A100", "L4") + "    sharing: mig\n    replica_gpu: {memory_gib: 4}\n"
    )
    with pytest.raises(SpecError, match="L4 has no MIG"):
        parse_spec(spec_text(text), "s.yaml", REAL)
    job = (
        "workloads:\n  - {name: t, kind: training, gpu: {name: A100}, sharing: mig,"
        " replica_gpu: {memory_gib: 4}}\n"
    )
    with pytest.raises(SpecError, match="serving replicas and batch workers"):
        parse_spec(spec_text(job), "s.yaml", REAL)


shared_workloads = st.fixed_dictionaries(
    {
        "gpu": st.sampled_from(["A100", "A100-80GB", "H100", "L4", "T4", "L40S"]),
        "sharing": st.sampled_from(["mig", "mps", "time_slicing", "auto"]),
        "memory": st.sampled_from([2, 5, 9, 17, 30, 60]),
        "isolation": st.booleans(),
        "replicas": st.integers(1, 60),
        "cloud": st.sampled_from(["aws", "gcp", "azure"]),
    }
)


def _shared_spec(w: dict[str, Any], sharing: str) -> str:
    """The drawn serving workload, sharing its GPUs by ``sharing`` (none: whole GPUs)."""
    lines = [
        f"defaults: {{clouds: [{w['cloud']}]}}",
        "workloads:",
        "  - name: s",
        "    kind: inference",
        f"    gpu: {{name: {w['gpu']}}}",
        "    always_on: true",
        f"    replicas: {{min: {w['replicas']}, max: {w['replicas']}}}",
    ]
    if sharing != "none":
        # MPS and time-slicing isolate no memory: the spec may not ask them to.
        isolated = (
            "" if sharing in ("mps", "time_slicing") else f", memory_isolation: {w['isolation']}"
        )
        lines.append(f"    sharing: {sharing}")
        lines.append(f"    replica_gpu: {{memory_gib: {w['memory']}{isolated.lower()}}}")
    return spec_text("\n".join(lines) + "\n")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shared_workloads)
def test_sharing_never_costs_more_than_whole_gpus_nor_overfills_one(w: dict[str, Any]) -> None:
    try:
        spec = parse_spec(_shared_spec(w, w["sharing"]), "s.yaml", REAL)
    except SpecError:
        return  # MIG named for a GPU without it: a spec error, tested above
    note(_shared_spec(w, w["sharing"]))
    unshared = parse_spec(_shared_spec(w, "none"), "s.yaml", REAL)
    plan = Planner(spec, REAL).plan_environment("prod")
    whole = Planner(unshared, REAL).plan_environment("prod")
    if whole.placements:
        assert plan.placements
        assert plan.monthly_usd <= whole.monthly_usd * (1 + 1e-9) + 1e-9
    for p in plan.placements:
        shared = p.shared
        if shared is None:
            assert p.replicas_per_instance <= p.offer.gpu_count
            continue
        assert p.replicas_per_instance <= p.offer.gpu_count * shared.replicas
        if shared.mode == "mig":
            assert placed(p.offer.gpu_name, list(shared.mig_profiles)) is not None
            assert len(shared.mig_profiles) == shared.replicas
        else:
            usable = GPUS[p.offer.gpu_name].usable_memory_gib
            assert shared.replicas * w["memory"] <= usable + 1e-9
            assert shared.replicas <= MAX_CLIENTS
