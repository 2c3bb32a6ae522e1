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
