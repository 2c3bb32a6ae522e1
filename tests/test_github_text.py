"""Untrusted names in GitHub markdown and workflow commands: nothing in a name can format,
break out of a table cell or the details, mention someone, or start another command."""

from __future__ import annotations

import re

import pytest

from gpufleet.github_text import command_data, command_property, markdown_code, markdown_text

HOSTILE = [
    "a|b",
    "</details><script>x</script>",
    "`tick` and ``two``",
    "[click](https://evil.example) ![img](x)",
    "@octocat and @org/team",
    "**bold** _it_ ~~gone~~ $x^2$",
    "line\nbreak\r\nand\u2028more",
    "\\|still a pipe",
    "esc\x1b[31mred\x07",
    "https://evil.example www.evil.example",
    "abc\u202edcba",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_is_literal_on_one_line(name: str) -> None:
    text = markdown_text(name)
    assert "\n" not in text and "\r" not in text and "\u2028" not in text
    assert "\x1b" not in text and "\x07" not in text
    # Every pipe is escaped (an odd run of backslashes before it): the cell does not end.
    assert all(len(run) % 2 == 1 for run in re.findall(r"(\\*)\|", text))
    assert "<" not in text and ">" not in text  # no tag opens or closes
    assert not re.search(r"@[A-Za-z]", text)  # no mention
    assert "://" not in text and "www." not in text  # no autolink
    assert "\u202e" not in text  # reads as it is
    for mark in "`*_~[]$":
        assert all(len(run) % 2 == 1 for run in re.findall(rf"(\\*){re.escape(mark)}", text))


def test_code_is_an_html_element_with_the_name_made_literal() -> None:
    assert markdown_code("train`x`|y") == "<code>train\\`x\\`\\|y</code>"
    assert markdown_code("pretrain-llm-node-0") == "<code>pretrain-llm-node-0</code>"


def test_plain_names_read_as_they_are() -> None:
    assert markdown_text("chat-serving (us-east-1): 2 x g6.xlarge, 50% used") == (
        "chat-serving (us-east-1): 2 x g6.xlarge, 50% used"
    )


def test_workflow_command_text_cannot_start_another_command() -> None:
    assert command_data("a%b\n::error::x\r") == "a%25b%0A::error::x%0D"
    assert command_property("dev,title=x::y") == "dev%2Ctitle=x%3A%3Ay"


@pytest.mark.parametrize(
    "text", ["esc\x1b[31mred\x07", "osc\x1b]0;title\x07", "csi\x9b2J", "a\u202eb"]
)
def test_workflow_command_text_carries_no_terminal_escapes(text: str) -> None:
    """The job log, and a terminal running gpufleet, would act on an escape in a name."""
    for escaped in (command_data(text), command_property(text)):
        assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e]", escaped), repr(escaped)
    assert "\u202e" not in markdown_text("x\x9by")
    assert markdown_text("x\x9by") == "xy"
