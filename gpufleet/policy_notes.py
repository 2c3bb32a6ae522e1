"""What the policy pack tells ``gpufleet check`` beyond violations, in the Analyzer protocol's
own fields, so that the Pulumi CLI reads the same answers without knowing of them.

A violation the policy config suppresses is not reported; the pack says it suppressed it in a
not-applicable note (``PolicyNotApplicable.reason``), which the engine records and ignores.
For a resource policy the note belongs to the resource analyzed; a stack policy's note has no
resource of its own in the protocol, so it carries the URN in its reason. Both are read back by
``checks.check_run`` into the report's suppressed results.

A finding the policy config downgrades (``advisory: [{type | resource, reason}]``) or one that
only a value unknown during a preview keeps from being decided is reported at the advisory
level whatever the policy's own level; its message says why (``downgraded``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

SUPPRESSED_PREFIX = "suppressed: "
# A stack policy's suppression: the prefix, then {"urn": ..., "reason": ...} as JSON (a URN may
# hold any character, so nothing simpler splits it from the reason).
STACK_SUPPRESSED_PREFIX = "suppressed in stack: "


@dataclass(frozen=True)
class SuppressedNote:
    reason: str
    urn: str | None  # None: the resource the note was given for


def suppressed_note(reason: str, urn: str | None = None) -> str:
    """The not-applicable reason saying a violation was suppressed, and why."""
    if urn is None:
        return f"{SUPPRESSED_PREFIX}{reason}"
    return STACK_SUPPRESSED_PREFIX + json.dumps({"urn": urn, "reason": reason})


def read_suppressed_note(note: str) -> SuppressedNote | None:
    """A suppression note back (None for any other not-applicable reason)."""
    if note.startswith(STACK_SUPPRESSED_PREFIX):
        try:
            found = json.loads(note.removeprefix(STACK_SUPPRESSED_PREFIX))
        except ValueError:
            return None
        if not isinstance(found, dict):
            return None
        urn, reason = found.get("urn"), found.get("reason")
        if isinstance(urn, str) and isinstance(reason, str):
            return SuppressedNote(reason, urn)
        return None
    if note.startswith(SUPPRESSED_PREFIX):
        return SuppressedNote(note.removeprefix(SUPPRESSED_PREFIX), None)
    return None


def downgraded(message: str, reason: str) -> str:
    """A finding's message once the policy config has made it advisory."""
    return f"{message} (advisory by the policy config: {reason})"
