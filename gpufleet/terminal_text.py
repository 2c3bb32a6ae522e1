"""Text from outside (a user's program, a spec, a cloud's answer) made safe for a terminal:
control characters and escape sequences shown as escapes instead of acted on."""

from __future__ import annotations

import re

# C0 and C1 controls and DEL: what moves a cursor, clears a screen or starts an escape sequence.
# A carriage return ending a CRLF line is harmless; alone it rewrites the line shown.
# The bidirectional overrides and isolates make text read other than it is (a name shown
# reversed), so they are escaped too.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def escape_controls(text: str) -> str:
    """``text`` with every control character but tab, newline and a CRLF's carriage return as
    a ``\\xNN`` escape."""
    return _CONTROLS.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
