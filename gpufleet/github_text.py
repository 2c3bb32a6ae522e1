"""Untrusted text (resource, stack and workload names; messages quoting them) handed to GitHub:
in markdown (a pull-request comment, a job summary) and in workflow commands (``::error``);
and the sizes GitHub takes of each.

A name comes from the program under review, so in markdown it must not be able to end a table
cell or the collapsed details, open a link or an image, start an HTML tag, render as math, or
mention someone (``@org/team`` in a name would notify them on every push); in a workflow
command it must not end the command or start another.
"""

from __future__ import annotations

import html
import re

from gpufleet.terminal_text import BIDI_CONTROLS, C1_CONTROLS

# Annotations GitHub shows per step, of each of error, warning and notice (and 50 a job): past
# those it drops the rest unseen.
ANNOTATIONS_PER_KIND = 10
# What GitHub accepts of one step's summary file (it reports "supports content up to a size of
# 1024k" when refusing one, and then shows none of it).
SUMMARY_LIMIT = 1024 * 1024
# What GitHub accepts of a pull-request comment's body (characters; counted here in UTF-8 bytes,
# which are never fewer).
COMMENT_LIMIT = 65_536

# Characters that format inline in GitHub markdown; a backslash makes each literal. An
# underscore between letters or digits never emphasizes, so "on_demand" stays as it is.
_INLINE = re.compile(r"([\\`*\[\]|~$!#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
# Control characters, and the bidirectional overrides that make text read other than it is.
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f{C1_CONTROLS}{BIDI_CONTROLS}]")
# What GitHub turns into a link without brackets: a URL scheme, "www.".
_AUTOLINK = re.compile(r"(?<=:)//|(?<=www)\.", re.I)
# Between "@" and a name: GitHub does not see a mention; readers see nothing.
_ZERO_WIDTH_SPACE = "\u200b"


def markdown_text(value: str) -> str:
    """``value`` as literal inline text, on one line, safe in a table cell."""
    one_line = _CONTROL.sub("", " ".join(value.splitlines()))
    escaped = html.escape(one_line, quote=False)  # <, > and & as entities: no tags
    escaped = _INLINE.sub(r"\\\1", escaped)
    escaped = _AUTOLINK.sub(lambda m: _ZERO_WIDTH_SPACE + m.group(0), escaped)
    return escaped.replace("@", "@" + _ZERO_WIDTH_SPACE)


def markdown_code(value: str) -> str:
    """``value`` set as code. An HTML ``<code>`` element rather than a backtick span, which
    no escaping can protect from a backtick in the name."""
    return f"<code>{markdown_text(value)}</code>"


def command_data(value: str) -> str:
    """``value`` as a workflow command's message (after ``::``). Line breaks are kept, as the
    runner decodes them; other control characters are dropped: the job log would act on a
    terminal escape (colours, a hidden line) and a terminal running the command too."""
    escaped = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _CONTROL.sub("", escaped)


def command_property(value: str) -> str:
    """``value`` as a workflow command's property (``title=...``)."""
    return command_data(value).replace(":", "%3A").replace(",", "%2C")


def size_of(lines: list[str]) -> int:
    """Bytes of ``lines`` joined by newlines, with one more for the line after."""
    return sum(len(line.encode()) + 1 for line in lines)


def lines_that_fit(lines: list[str], room: int) -> int:
    """How many of ``lines``, from the first, fit in ``room`` bytes."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line.encode()) + 1
        if used > room:
            return count
    return len(lines)
