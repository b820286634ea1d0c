"""Failures said as they happen: the first failure of each kind goes to the console with its reason.

A run goes on through failed calls (each is recorded, its pair reported as failed), but a user
watching the console must not learn only at the end, or from the report, that every call is
refused. :class:`FailureNotices` hears every failed attempt of the model and judge endpoints (an
attempt that timed out is heard after that one timeout, not after all retries) and every failed
call of any backend, and prints one line the first time a kind of failure is seen::

    supersede eval: model call failed: HTTP 401 from http://127.0.0.1:8000/v1/chat/completions: ...
        (the first failure of this kind; the run goes on and records every failure)

Kinds are coarse on purpose (:func:`failure_kind`: the HTTP status, "no reply in time", the
connection error's type...), so a thousand failed calls of one cause print one line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

from supersede_env.core.safe_text import for_console

_HTTP = re.compile(r"^HTTP (\d{3})\b")
_REQUEST = re.compile(r"^request error: (\w+)")
_RAISED = re.compile(r"^backend raised (\w+)")
LINE_CHARS = 300


def failure_kind(message: str) -> str:
    """The kind of a failure message: what two failures of the same cause have in common."""
    text = re.sub(r"^step \d+: ", "", message.strip())
    for pattern, label in ((_HTTP, "HTTP {}"), (_REQUEST, "request error ({})"), (_RAISED, "backend raised {}")):
        match = pattern.match(text)
        if match:
            return label.format(match[1])
    if text.startswith("no reply within"):
        return "no reply in time"
    return " ".join(text.split(":", 1)[0].split()[:6]) or "unknown error"


class FailureNotices:
    """Prints the first failure of each kind for each caller (``model``, ``judge``)."""

    def __init__(self, prefix: str = "supersede eval", stream: TextIO | None = None) -> None:
        self.prefix = prefix
        self.stream = stream
        self._seen: set[tuple[str, str]] = set()
        self._closed = False

    def close(self) -> None:
        """Say nothing more: the run is over, and calls still in flight fail because it closes them
        (a memory system's thread waiting on the model when the disk filled up), not because of the model."""
        self._closed = True

    def listener(self, who: str) -> Callable[[str], None]:
        """A callback for a backend's ``on_failed_attempt``."""
        return lambda message: self.heard(who, message)

    def heard(self, who: str, message: str) -> None:
        key = (who, failure_kind(message))
        if self._closed or key in self._seen:
            return
        self._seen.add(key)
        text = for_console(" ".join(message.split()))
        if len(text) > LINE_CHARS:
            text = text[: LINE_CHARS - 3] + "..."
        print(f"{self.prefix}: {who} call failed: {text} (the first failure of this kind; the run goes on and "
              "records every failure)", file=self.stream or sys.stderr, flush=True)
