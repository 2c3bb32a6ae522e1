"""Text from outside (a user's program, a spec, a cloud's answer) made safe for a terminal:
control characters and escape sequences shown as escapes instead of acted on."""

from __future__ import annotations

import re

# As regular-expression class ranges, for every format that must keep them out (terminal,
# markdown, workflow commands, JUnit): DEL and the C1 controls; the bidirectional overrides and
# isolates, which make text read other than it is (a name shown reversed).
C1_CONTROLS = "\x7f-\x9f"
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
# C0 and C1 controls and DEL: what moves a cursor, clears a screen or starts an escape sequence.
# A carriage return ending a CRLF line is harmless; alone it rewrites the line shown.
_CONTROLS = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{C1_CONTROLS}{BIDI_CONTROLS}]|\r(?!\n)")


def escape_controls(text: str) -> str:
    """``text`` with every control character but tab, newline and a CRLF's carriage return as
    a ``\\xNN`` escape."""
    return _CONTROLS.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
