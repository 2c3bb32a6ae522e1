"""yaml_input reads plain data: implicit scalars outside the core schema are strings (no dates,
no merge or value markers where no key is), as YAML 1.2 and Pulumi's reader have them."""

from __future__ import annotations

import datetime

import pytest

from gpufleet.yaml_input import YamlInputError, parse_yaml


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 2026-11-24", {"a": "2026-11-24"}),
        ("a: 2026-11-24 10:00:00", {"a": "2026-11-24 10:00:00"}),
        ("a: =", {"a": "="}),
        ("a: <<", {"a": "<<"}),
        ("- <<\n- =", ["<<", "="]),
        ("a: 12\nb: true\nc: ~\nd: 1.5", {"a": 12, "b": True, "c": None, "d": 1.5}),
    ],
)
def test_implicit_scalars_are_core_schema_values(text: str, expected: object) -> None:
    data = parse_yaml(text, "f.yaml").data
    assert data == expected
    assert not any(isinstance(v, datetime.date) for v in _leaves(data))


def test_a_merge_key_still_merges_and_an_explicit_timestamp_is_refused() -> None:
    assert parse_yaml("b: &b {x: 1}\nc:\n  <<: *b\n  y: 2\n", "f").data["c"] == {"x": 1, "y": 2}
    with pytest.raises(YamlInputError, match="f:1: a: tag !!timestamp is not supported"):
        parse_yaml("a: !!timestamp 2026-11-24", "f")


def _leaves(data: object) -> list[object]:
    if isinstance(data, dict):
        return [leaf for value in data.values() for leaf in _leaves(value)]
    if isinstance(data, list):
        return [leaf for value in data for leaf in _leaves(value)]
    return [data]


def test_more_values_than_the_limit_stop_the_read_at_the_first_one_over() -> None:
    from gpufleet.yaml_input import MAX_YAML_VALUES

    text = "a: 1\nx:\n" + "- 1\n" * MAX_YAML_VALUES
    with pytest.raises(YamlInputError) as raised:
        parse_yaml(text, "f.yaml")
    # The root mapping, a, 1, x and its list are 5 values: item MAX - 4 is one too many.
    line = 2 + MAX_YAML_VALUES - 4
    limit = f"{MAX_YAML_VALUES:,}"
    message = f"more than {limit} values (the limit is {limit})"
    assert str(raised.value) == f"f.yaml:{line}: yaml: {message}"


def test_running_out_of_memory_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufleet import yaml_input

    def no_memory(*_: object, **__: object) -> object:
        raise MemoryError

    monkeypatch.setattr(yaml_input.yaml, "parse", no_memory)
    with pytest.raises(YamlInputError, match=r"^f.yaml:1: yaml: too large to read: out of memory$"):
        parse_yaml("a: 1", "f.yaml")
