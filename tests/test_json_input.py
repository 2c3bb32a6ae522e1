"""Reading user-supplied JSON files: nothing gets past as a traceback, a hang or a non-number."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpufleet import json_input
from gpufleet.json_input import JsonInputError, read_json_file


def test_a_document_and_its_text(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": [1, 2.5, "x"]}\n', encoding="utf-8")
    assert read_json_file(path, what="a thing") == ({"a": [1, 2.5, "x"]}, '{"a": [1, 2.5, "x"]}\n')


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1,\n "b": }', "a.json:2: json: not valid JSON: Expecting value"),
        (b'{"a":\n "\xff"}', "a.json:2: file: not UTF-8 text (byte 0xff)"),
        (b"[" * 101 + b"]" * 101, "a.json:1: json: not a thing: nested more than 100 levels"),
        (b'{"price": NaN}', "not valid JSON: NaN is not a finite number"),
        (b'{"price": -Infinity}', "not valid JSON: -Infinity is not a finite number"),
        (b'{"price": 1e999}', "not valid JSON: 1e999 is not a finite number"),
        (b"[" * 100_000 + b"]" * 100_000, "not a thing: nested too deeply"),
        (b'{"n": ' + b"9" * 5000 + b"}", "not a thing: a number too long to read"),
    ],
)
def test_one_line_for_what_is_not_json(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(content)
    with pytest.raises(JsonInputError) as raised:
        read_json_file(path, what="a thing")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(JsonInputError, match="not a regular file"):
            read_json_file(path, what="a thing")
    with pytest.raises(JsonInputError, match="cannot read: No such file"):
        read_json_file(tmp_path / "missing.json", what="a thing")


def test_a_file_over_the_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_input, "MAX_JSON_BYTES", 10)
    path = tmp_path / "a.json"
    path.write_text('{"a": "0123456789"}', encoding="utf-8")
    with pytest.raises(JsonInputError, match="too large to be a thing"):
        read_json_file(path, what="a thing")


def test_a_symlink_to_a_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("[1]", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    assert read_json_file(tmp_path / "link.json", what="a thing")[0] == [1]


@pytest.mark.parametrize(
    "content",
    [
        "[" + "1," * json_input.MAX_JSON_VALUES + "1]",
        "{" + ",".join(f'"k{i}":1' for i in range(json_input.MAX_JSON_VALUES + 1)) + "}",
    ],
    ids=["list", "object"],
)
def test_too_many_values_are_refused_before_parsing(tmp_path: Path, content: str) -> None:
    path = tmp_path / "a.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(JsonInputError) as raised:
        read_json_file(path, what="a thing")
    assert str(raised.value).startswith(f"{path}:1: json: too many values to be a thing (up to ")
    assert str(raised.value).endswith(f"the limit is {json_input.MAX_JSON_VALUES:,})")


def test_a_smaller_limit_for_a_kind_of_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"a": "0123456789"}', encoding="utf-8")
    message = r"too large to be a thing \(19 bytes; the limit is 10"
    with pytest.raises(JsonInputError, match=message):
        read_json_file(path, what="a thing", limit=10)


def test_running_out_of_memory_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*_: object, **__: object) -> object:
        raise MemoryError

    monkeypatch.setattr(json_input.json, "loads", no_memory)
    path = tmp_path / "a.json"
    path.write_text("[1]", encoding="utf-8")
    with pytest.raises(JsonInputError) as raised:
        read_json_file(path, what="a thing")
    assert str(raised.value) == f"{path}:1: json: too large to read as a thing: out of memory"


def test_top_level_lines_in_one_pass() -> None:
    text = '{\n "a": 1,\n "b": {"x": [1,\n 2]},\n "c": "\\n"\n, "a": 2}'
    assert json_input.top_level_lines(text) == {"a": 2, "b": 3, "c": 5}
    assert json_input.top_level_lines("[1]") == {}
    assert json_input.top_level_lines('{"a": 1, "b": }') == {"a": 1}
