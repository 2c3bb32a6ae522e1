"""GCP label keys and values from tag keys and values (no pydantic: the policy pack uses it).

GCP labels allow only lowercase letters, digits, ``_`` and ``-``, at most 63 characters, keys
starting with a letter (cloud.google.com/compute/docs/labeling-resources). The mapping is
deterministic: lowercase, any other character becomes ``_``, a key not starting with a letter
gets a ``k`` in front, then cut to 63.
"""

from __future__ import annotations

import re

_LABEL_INVALID = re.compile(r"[^a-z0-9_-]")
LABEL_MAX = 63


def gcp_label_value(text: str) -> str:
    return _LABEL_INVALID.sub("_", text.lower())[:LABEL_MAX]


def gcp_label_key(text: str) -> str:
    key = _LABEL_INVALID.sub("_", text.lower())
    if not key[:1].isalpha():
        key = f"k{key}"
    return key[:LABEL_MAX]
