"""Remember one computation per thread for as long as it is asked about the same object.

The pack's servicer (``serving.analyzer_servicer``) hands every policy the same props object for one
``Analyze`` request and the same resource list for one ``AnalyzeStack``; converting them to
plain data and working out GPU footprints once, not once per policy, is most of what makes
evaluation fast. The memo keys on the identity of its first argument (and the value of any
others) and holds that object, so an id cannot be reused while remembered; it is per thread
because the gRPC server runs requests on four. Results are shared between policies, which
therefore must not modify them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class SameInputMemo(threading.local, Generic[T]):
    def __init__(self, compute: Callable[..., T]) -> None:
        self._compute = compute
        self._source: Any = None
        self._others: tuple[Any, ...] = ()
        self._result: T | None = None
        self._held = False

    def __call__(self, source: Any, *others: Any) -> T:
        if not self._held or source is not self._source or others != self._others:
            self._result = self._compute(source, *others)
            self._source, self._others, self._held = source, others, True
        return self._result  # type: ignore[return-value]
