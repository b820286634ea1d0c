"""The backend contract: what every model backend offers the evaluation runner and the trainer.

A backend turns :class:`~supersede_env.core.model_call.ChatRequest` (chat messages, a token limit,
sampling) into :class:`~supersede_env.core.model_call.ModelReply`. Two ways in:

- ``await backend.complete(request)``: one call; the runner drives many of them concurrently
  (its semaphore sets the concurrency). Natural for endpoint backends.
- ``backend.complete_batch(requests)``: many calls at once, replies in request order. Natural for
  in-process backends (``supports_batch`` is True), where one batched
  ``generate`` is what makes them fast. It is synchronous: call it from plain code or a worker
  thread, never from inside a running event loop.

The failure rule, shared by all backends: a call that still fails after its retries returns
``ModelReply.failed(message)``. Backends never raise for model or server failures, never return an
empty string in place of a failure, and never put an API key in a message, ``identity()`` or
``repr``. (Programming errors, such as calling a closed backend, still raise.)

``identity()`` is a JSON-ready dict recorded with every run: ``backend`` (kind), ``model``, and,
where known, ``path``, ``revision`` (a content fingerprint), ``dtype``, ``device`` and the
generation settings.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from supersede_env.core.api_keys import mask_text
from supersede_env.core.model_call import ChatRequest, ModelReply
from supersede_env.core.safe_text import clean

# Longest error text kept in a reply: enough to diagnose, short enough for a JSONL record.
MAX_ERROR_CHARS = 500


class Backend(ABC):
    """Base class of model backends; subclasses implement ``identity``, ``complete`` and
    ``complete_batch`` (each may be written in terms of the other) and, if they hold resources,
    ``aclose``."""

    #: True when ``complete_batch`` runs the requests together (in-process generation).
    supports_batch: bool = False

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """Backend kind, model name and settings, for run records; never a secret."""

    @abstractmethod
    async def complete(self, request: ChatRequest) -> ModelReply:
        """One model call; a failure after retries is ``ModelReply.failed``, never an exception."""

    @abstractmethod
    def complete_batch(self, requests: Sequence[ChatRequest]) -> list[ModelReply]:
        """Replies for ``requests``, in the same order, one per request."""

    async def aclose(self) -> None:  # noqa: B027  (optional hook: a backend may hold nothing)
        """Release connections or memory; the default holds nothing."""

    async def __aenter__(self) -> Backend:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class InstantBackend(Backend):
    """A backend whose reply is computed at once in-process (a reference policy, an oracle): subclasses
    implement ``identity`` and ``reply``; one call and a batch are the same lookup."""

    supports_batch = False  # replies finish at once: the runner's concurrent path writes records in groups

    @abstractmethod
    def reply(self, request: ChatRequest) -> ModelReply:
        """The reply to one request (a failed reply for a prompt it cannot answer)."""

    async def complete(self, request: ChatRequest) -> ModelReply:
        return self.reply(request)

    def complete_batch(self, requests: Sequence[ChatRequest]) -> list[ModelReply]:
        return [self.reply(r) for r in requests]


def failed_reply(error: object, *, started: float | None = None, secrets: Sequence[str] = ()) -> ModelReply:
    """A failed reply with a one-line, length-capped message; every string in ``secrets`` is masked.

    ``started`` is a :func:`time.perf_counter` value; the latency is measured from it.
    """
    message = error if isinstance(error, str) else describe_exception(error)
    message = mask_text(clean(" ".join(message.split())), secrets)
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 3] + "..."
    latency = None if started is None else time.perf_counter() - started
    return ModelReply.failed(message or "unknown error", latency_s=latency)


def describe_exception(exc: object) -> str:
    """``TypeName: message`` (the type alone when the message is empty, as for timeouts)."""
    text = str(exc).strip()
    name = type(exc).__name__
    return f"{name}: {text}" if text else name
