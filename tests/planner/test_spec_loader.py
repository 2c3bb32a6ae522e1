"""Every spec error path reports file:line: field: message, with the YAML line numbers."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from gpufleet.planner.catalog import load_catalog
from gpufleet.planner.spec import EnvironmentLimits, GpuByMemory, GpuByModel, GpuByName
from gpufleet.planner.spec_loader import SpecError, SpecProblem, load_spec, parse_spec
from tests.helpers import ROOT, spec_text

WriteSpec = Callable[[str], Path]


def problems(text: str) -> list[tuple[int, str, str]]:
    """(line, field, message) of every problem in ``text``."""
    with pytest.raises(SpecError) as caught:
        parse_spec(text, "spec.yaml")
    return [(p.line, p.field, p.message) for p in caught.value.problems]


def one_problem(text: str) -> tuple[int, str, str]:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


WORKLOAD = """\
workloads:
  - name: train
    kind: training
    gpu: {name: H100, count: 8}
"""


def test_the_example_spec_is_valid() -> None:
    spec = load_spec(ROOT / "examples" / "workloads.yaml")
    assert [w.name for w in spec.workloads] == [
        "pretrain-llm",
        "chat-serving",
        "support-bot-finetune",
        "ranker-train",
        "nightly-embeddings",
        "eval-harness",
        "weekly-regression",
        "office-assistant",
    ]
    assert list(spec.environments) == ["dev", "staging", "prod"]


def test_problem_format() -> None:
    problem = SpecProblem("a/spec.yaml", 12, "workloads[2].gpu.count", "must be positive")
    assert str(problem) == "a/spec.yaml:12: workloads[2].gpu.count: must be positive"


def test_yaml_syntax_error_has_its_line() -> None:
    text = spec_text(WORKLOAD) + "  - name: [unclosed\n"
    line, field, message = one_problem(text)
    assert (line, field) == (12, "yaml")
    assert message


def test_duplicate_keys_are_errors_not_last_wins() -> None:
    text = spec_text(
        WORKLOAD.replace("    kind: training\n", "    kind: training\n    kind: batch\n")
    )
    assert one_problem(text) == (
        10,
        "workloads[0].kind",
        "duplicate key 'kind' (first at line 9)",
    )


def test_spec_must_be_a_mapping() -> None:
    assert one_problem("- just\n- a list\n") == (1, "spec", "expected a mapping of spec fields")
    assert one_problem("") == (1, "spec", "expected a mapping of spec fields")


def test_unknown_key_is_an_error_with_a_suggestion() -> None:
    text = spec_text(WORKLOAD + "    nodez: 2\n")
    assert one_problem(text) == (11, "workloads[0].nodez", "unknown field (did you mean 'nodes'?)")


def test_unknown_top_level_key() -> None:
    text = "projekt: x\n" + spec_text(WORKLOAD)
    line, field, message = one_problem(text)
    assert (line, field) == (1, "projekt") and message.startswith("unknown field")


def test_missing_required_field_points_at_its_parent() -> None:
    text = spec_text(WORKLOAD.replace("    kind: training\n", ""))
    assert one_problem(text) == (8, "workloads[0].kind", "required field is missing")


def test_missing_version() -> None:
    _, field, message = one_problem(spec_text(WORKLOAD).replace("version: 1\n", ""))
    assert (field, message) == ("version", "required field is missing")


def test_wrong_version() -> None:
    line, field, message = one_problem(spec_text(WORKLOAD).replace("version: 1", "version: 2"))
    assert (line, field) == (1, "version") and "(got 2)" in message


def test_bad_enum_value_shows_what_was_given() -> None:
    text = spec_text(WORKLOAD.replace("kind: training", "kind: trianing"))
    line, field, message = one_problem(text)
    assert (line, field) == (9, "workloads[0].kind")
    assert "'training', 'inference' or 'batch'" in message and "(got 'trianing')" in message


def test_wrong_type() -> None:
    text = spec_text(WORKLOAD + "    hours_per_month: lots\n")
    line, field, message = one_problem(text)
    assert (line, field) == (11, "workloads[0].hours_per_month")
    assert "valid number" in message and "(got 'lots')" in message


@pytest.mark.parametrize("value", [".inf", ".nan"])
def test_numbers_must_be_finite(value: str) -> None:
    line, field, message = one_problem(spec_text(WORKLOAD + f"    max_price_per_hour: {value}\n"))
    assert (line, field) == (11, "workloads[0].max_price_per_hour")
    assert message == f"{value!r} is not a finite number"


def test_out_of_range() -> None:
    text = spec_text(WORKLOAD.replace("count: 8", "count: 0"))
    line, field, message = one_problem(text)
    assert (line, field) == (10, "workloads[0].gpu.count")
    assert "greater than or equal to 1" in message


@pytest.mark.parametrize(
    "gpu",
    ["{count: 8}", "{name: H100, min_memory_gib: 40}", "{params_billions: 7, name: H100}", "H100"],
)
def test_gpu_needs_exactly_one_form(gpu: str) -> None:
    text = spec_text(WORKLOAD.replace("{name: H100, count: 8}", gpu))
    assert one_problem(text) == (
        10,
        "workloads[0].gpu",
        "give exactly one of name, min_memory_gib or params_billions",
    )


def test_unknown_gpu_name_lists_known_ones() -> None:
    text = spec_text(WORKLOAD.replace("H100", "H1000"))
    line, field, message = one_problem(text)
    assert (line, field) == (10, "workloads[0].gpu.name")
    assert message.startswith("unknown GPU 'H1000'; known: ") and "H100" in message


def test_gpu_forms_parse_and_names_normalize() -> None:
    text = spec_text(
        """
        workloads:
          - {name: a, kind: training, gpu: {name: a100-40gb}}
          - {name: b, kind: batch, gpu: {min_memory_gib: 40, count: 2}}
          - {name: c, kind: training, gpu: {params_billions: 7, method: qlora}}
        """
    )
    a, b, c = parse_spec(text, "spec.yaml").workloads
    assert isinstance(a.gpu, GpuByName) and a.gpu.name == "A100"
    assert isinstance(b.gpu, GpuByMemory) and b.gpu.count == 2
    assert isinstance(c.gpu, GpuByModel) and c.gpu.precision == "bf16"


def test_names_must_be_dns_labels() -> None:
    text = spec_text(WORKLOAD.replace("name: train", "name: Train_Job"))
    line, field, message = one_problem(text)
    assert (line, field) == (8, "workloads[0].name") and "DNS label" in message


def test_environment_names_must_be_dns_labels() -> None:
    text = spec_text(WORKLOAD, environments="environments:\n  Prod: {}\n")
    line, field, message = one_problem(text)
    assert (line, field) == (6, "environments.Prod") and "DNS label" in message


def test_empty_environment_means_defaults() -> None:
    spec = parse_spec(spec_text(WORKLOAD, environments="environments:\n  qa:\n"), "s.yaml")
    assert spec.environments["qa"] == EnvironmentLimits()


def test_profiles_fill_only_what_the_spec_leaves_unset() -> None:
    environments = """
    environments:
      dev: {max_replicas: 4}
      staging:
      prod:
    """
    spec = parse_spec(spec_text(WORKLOAD, environments=textwrap.dedent(environments)), "s.yaml")
    dev, staging, prod = (spec.environments[n] for n in ("dev", "staging", "prod"))
    assert (dev.allow_on_demand, dev.max_commitment, dev.max_gpus_per_workload) == (
        False,
        "none",
        8,
    )
    assert dev.max_replicas == 4  # the spec's value wins over the profile's 2
    assert (staging.mirror, staging.replica_scale, staging.max_commitment) == ("prod", 0.5, "none")
    assert prod == EnvironmentLimits()


def test_staging_mirrors_nothing_without_prod() -> None:
    spec = parse_spec(spec_text(WORKLOAD, environments="environments:\n  staging:\n"), "s.yaml")
    assert spec.environments["staging"].mirror is None


@pytest.mark.parametrize(
    ("environments", "message"),
    [
        ("environments:\n  qa: {mirror: qa}\n", "mirror names another defined environment"),
        ("environments:\n  qa: {mirror: prod}\n", "mirror names another defined environment"),
        (
            "environments:\n  a: {mirror: b}\n  b: {mirror: c}\n  c:\n",
            "'b' mirrors another environment itself",
        ),
    ],
)
def test_bad_mirror(environments: str, message: str) -> None:
    with pytest.raises(SpecError) as exc:
        parse_spec(spec_text(WORKLOAD, environments=environments), "s.yaml")
    (problem,) = exc.value.problems
    assert problem.field.endswith(".mirror") and message in problem.message


def test_replicas_min_above_max() -> None:
    text = spec_text(
        """
        workloads:
          - name: serve
            kind: inference
            gpu: {name: L4}
            replicas: {min: 3, max: 2}
        """
    )
    assert one_problem(text) == (11, "workloads[0].replicas", "min (3) is greater than max (2)")


def test_all_problems_of_a_pass_are_reported_in_line_order() -> None:
    text = spec_text(
        """
        workloads:
          - name: a
            kind: nope
            gpu: {name: H100}
          - name: b
            kind: training
            gpu: {name: H100, count: -1}
            colour: blue
        """
    )
    assert [(line, field) for line, field, _ in problems(text)] == [
        (9, "workloads[0].kind"),
        (13, "workloads[1].gpu.count"),
        (14, "workloads[1].colour"),
    ]


# --- checks across fields and against the catalog --------------------------------------------


def test_duplicate_workload_names() -> None:
    text = spec_text(WORKLOAD + "  - name: train\n    kind: batch\n    gpu: {name: L4}\n")
    assert one_problem(text) == (
        11,
        "workloads[1].name",
        "duplicate workload name 'train' (first used by workloads[0])",
    )


def test_unknown_environment_reference() -> None:
    text = spec_text(WORKLOAD + "    environments: [prod, qa]\n")
    assert one_problem(text) == (
        11,
        "workloads[0].environments[1]",
        "no environment 'qa'; defined: prod",
    )


def test_unknown_region_with_suggestion() -> None:
    text = spec_text(WORKLOAD + "    regions: {aws: [us-east-1, us-eats-1]}\n")
    assert one_problem(text) == (
        11,
        "workloads[0].regions.aws[1]",
        "unknown aws region 'us-eats-1' (did you mean 'us-east-1'?)",
    )


def test_unknown_default_region() -> None:
    text = spec_text("defaults:\n  regions:\n    gcp: [us-central9]\n" + WORKLOAD)
    line, field, message = one_problem(text)
    assert (line, field) == (9, "defaults.regions.gcp[0]")
    assert message.startswith("unknown gcp region 'us-central9'")


def test_regions_for_a_cloud_not_allowed() -> None:
    text = spec_text(WORKLOAD + "    clouds: [aws]\n    regions: {gcp: [us-central1]}\n")
    assert one_problem(text) == (
        12,
        "workloads[0].regions.gcp",
        "regions given for gcp, which is not in clouds ['aws']",
    )


def test_unknown_cloud() -> None:
    line, field, message = one_problem(spec_text(WORKLOAD + "    clouds: [aws, oracle]\n"))
    assert (line, field) == (11, "workloads[0].clouds[1]") and "(got 'oracle')" in message


@pytest.mark.parametrize(
    ("extra", "line", "field", "message"),
    [
        (
            "    always_on: true\n",
            11,
            "workloads[0].always_on",
            "always_on applies to inference (serving) workloads",
        ),
        (
            "    replicas: {min: 1, max: 2}\n",
            11,
            "workloads[0].replicas",
            "replicas apply to inference workloads; use nodes for jobs",
        ),
        (
            "    managed: azureml\n    clouds: [aws]\n",
            11,
            "workloads[0].managed",
            "azureml runs on azure, which is not in clouds ['aws']",
        ),
        (
            "    tags: {owner: someone-else}\n",
            11,
            "workloads[0].tags.owner",
            "'owner' is set by gpufleet from the spec; remove it here",
        ),
        (
            "    tags: {'a&b': x}\n",
            11,
            "workloads[0].tags.a&b",
            "tag keys may not contain < > % & \\ ? (Azure rejects them)",
        ),
        (
            f"    tags: {{team: {'x' * 300}}}\n",
            11,
            "workloads[0].tags.team",
            "tag values are at most 256 characters",
        ),
    ],
)
def test_combinations_that_make_no_sense(extra: str, line: int, field: str, message: str) -> None:
    assert one_problem(spec_text(WORKLOAD + extra)) == (line, field, message)


def test_inference_checks() -> None:
    text = spec_text(
        """
        workloads:
          - name: serve
            kind: inference
            gpu: {params_billions: 7, method: lora}
            nodes: 2
            always_on: true
            replicas: {min: 0, max: 2}
          - name: sm
            kind: inference
            managed: sagemaker
            gpu: {name: A10G}
        """
    )
    assert problems(text) == [
        (
            10,
            "workloads[0].gpu.method",
            "inference is sized for serving; method applies to training and batch",
        ),
        (11, "workloads[0].nodes", "inference scales with replicas, not nodes"),
        (
            13,
            "workloads[0].replicas.min",
            "always_on with replicas.min 0 never runs: give a schedule for when it does, "
            "or min 1 or more",
        ),
        (16, "workloads[1].managed", "sagemaker runs training workloads, not inference"),
    ]


def test_training_by_model_needs_a_method() -> None:
    text = spec_text(WORKLOAD.replace("{name: H100, count: 8}", "{params_billions: 7}"))
    assert one_problem(text) == (
        10,
        "workloads[0].gpu.method",
        "training sized by model needs method: full, lora or qlora",
    )


# --- YAML features and files -------------------------------------------------------------------


def test_anchors_and_merge_keys(write_spec: WriteSpec) -> None:
    path = write_spec(
        spec_text(
            """
            workloads:
              - &base
                name: a
                kind: training
                gpu: {name: L4}
                interruptible: true
              - <<: *base
                name: b
            """
        )
    )
    a, b = load_spec(path).workloads
    assert (a.name, a.interruptible) == ("a", True)
    assert (b.name, b.kind, b.interruptible) == ("b", "training", True)


def test_unreadable_file() -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(Path("/nonexistent/spec.yaml"))
    (problem,) = caught.value.problems
    assert str(problem) == "/nonexistent/spec.yaml:1: file: cannot read: No such file or directory"


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.problems[0].field == "file"


def test_errors_name_the_file(write_spec: WriteSpec) -> None:
    path = write_spec(spec_text(WORKLOAD.replace("H100", "H1000")))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value).startswith(f"{path}:10: workloads[0].gpu.name: unknown GPU")


def scheduled(schedule: str, extra: str = "") -> str:
    return spec_text(
        f"""
        workloads:
          - name: evals
            kind: batch
            gpu: {{name: L4}}
            schedule: {schedule}
        {extra}"""
    )


def test_a_schedule_sets_the_hours() -> None:
    spec = parse_spec(
        scheduled("{cron: '0 2 * * MON', duration_hours: 8, time_zone: America/New_York}"),
        "spec.yaml",
    )
    schedule = spec.workloads[0].schedule
    assert schedule is not None
    assert schedule.weekly().hours_per_month == pytest.approx(8 * 730 / 168)


@pytest.mark.parametrize(
    ("schedule", "field", "message"),
    [
        (
            "{windows: [{days: weekdays, start: '08:00', end: '20:00'}], time_zone: Mars/Base}",
            "workloads[0].schedule.time_zone",
            "unknown time zone 'Mars/Base'",
        ),
        (
            "{windows: [{days: weekdays, start: '8am', end: '20:00'}]}",
            "workloads[0].schedule.windows[0].start",
            "should match pattern",
        ),
        (
            "{windows: [{days: [mon, funday], start: '08:00', end: '20:00'}]}",
            "workloads[0].schedule.windows[0].days[1]",
            "Input should be 'mon', 'tue'",
        ),
        (
            "{windows: [{days: workdays, start: '08:00', end: '20:00'}]}",
            "workloads[0].schedule.windows[0].days",
            "give daily, weekdays, weekends or a list of days",
        ),
        ("{cron: '0 2 * * MON'}", "workloads[0].schedule", "cron and duration_hours go together"),
        (
            "{cron: '0 2 1 * *', duration_hours: 8}",
            "workloads[0].schedule",
            "does not repeat weekly",
        ),
        ("{cron: '0 2 * *', duration_hours: 8}", "workloads[0].schedule", "has 4 fields"),
        ("{cron: '*/5 * * * *', duration_hours: 1}", "workloads[0].schedule", "2016 runs a week"),
        ("{cron: 'sixty * * * *', duration_hours: 1}", "workloads[0].schedule", "is not valid"),
        (
            "{windows: [{start: '08:00', end: '09:00'}], cron: '0 2 * * MON', duration_hours: 1}",
            "workloads[0].schedule",
            "give windows, or cron with duration_hours (not both)",
        ),
    ],
)
def test_a_schedule_gpufleet_cannot_realize_is_one_line(
    schedule: str, field: str, message: str
) -> None:
    (line, found_field, found) = one_problem(scheduled(schedule))
    assert (line, found_field) == (11, field), found
    assert message in found


def test_hours_per_month_must_agree_with_the_schedule() -> None:
    text = scheduled(
        "{windows: [{days: weekdays, start: '08:00', end: '20:00'}]}", "    hours_per_month: 100"
    )
    line, field, message = one_problem(text)
    assert line == 12
    assert field == "workloads[0].hours_per_month"
    assert message.startswith("hours_per_month 100 disagrees with the schedule, which runs 260.7")
    near = scheduled(
        "{windows: [{days: weekdays, start: '08:00', end: '20:00'}]}", "    hours_per_month: 255"
    )
    assert parse_spec(near, "spec.yaml").workloads[0].hours_per_month == 255


def test_always_on_serving_at_zero_needs_a_schedule_and_managed_work_takes_none() -> None:
    business = "{windows: [{days: weekdays, start: '08:00', end: '20:00'}]}"
    text = spec_text(
        f"""
        workloads:
          - name: chat
            kind: inference
            gpu: {{name: L4}}
            always_on: true
            replicas: {{min: 0, max: 4}}
            schedule: {business}
          - name: ranker
            kind: training
            managed: sagemaker
            gpu: {{name: A10G}}
            schedule: {business}
        """
    )
    assert problems(text) == [
        (
            18,
            "workloads[1].schedule",
            "sagemaker starts its own runs; schedule them there, or drop managed to let "
            "gpufleet scale the capacity on this schedule",
        )
    ]


def test_the_docs_spec_example_is_a_valid_spec_with_every_hours_model() -> None:
    """docs/spec.md's annotated example is what users copy: it must parse and plan as it says."""
    from gpufleet.planner.catalog import load_catalog
    from gpufleet.planner.optimizer import plan_spec

    section = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    start = section.index("```yaml") + len("```yaml")
    spec = parse_spec(section[start : section.index("```", start)], "docs/spec.md")
    (prod,) = plan_spec(spec, load_catalog(), ["prod"]).environments
    models = {p.name: p.hours_model for p in prod.placements}
    assert set(models.values()) == {"always_on", "schedule", "on_request"}
    assert not prod.unplaced


def test_a_schedule_azure_could_run_needs_a_zone_azure_knows() -> None:
    spec = (
        (ROOT / "examples" / "workloads.yaml")
        .read_text()
        .replace("time_zone: Europe/Berlin", "time_zone: EST5EDT")
    )
    with pytest.raises(SpecError) as raised:
        parse_spec(spec, "spec.yaml", load_catalog())
    (problem,) = raised.value.problems
    assert problem.field == "workloads[7].schedule.time_zone"
    assert "Azure autoscale has no time zone for 'EST5EDT'" in problem.message
    # Without Azure among its clouds the zone is fine.
    pinned = spec.replace(
        "  - name: office-assistant\n", "  - name: office-assistant\n    clouds: [gcp]\n"
    )
    assert parse_spec(pinned, "spec.yaml", load_catalog())
