"""Text from outside (a user's program, a spec, a cloud's answer) made safe for a terminal:
control characters and escape sequences shown as escapes instead of acted on."""

from __future__ import annotations

import re

# C0 and C1 controls and DEL: what moves a cursor, clears a screen or starts an escape sequence.
# A carriage return ending a CRLF line is harmless; alone it rewrites the line shown.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def escape_controls(text: str) -> str:
    """``text`` with every control character but tab, newline and a CRLF's carriage return as
    a ``\\xNN`` escape."""
    return _CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", text)
