"""One model call, as every backend takes it and gives it back, and how calls are batched.

:class:`ChatRequest` is what a model is asked (chat messages, a token limit, sampling); it knows
nothing of rollouts. The rollout wraps it with its own bookkeeping
(:class:`supersede_env.core.rollout.StepRequest`: episode, condition, step), the judge sends it as it is.
:class:`ModelReply` is what comes back; ``text`` is None exactly when the call failed.

:func:`limit_batches` is the one way calls are grouped for in-process generation: one token limit
per batch (a batch decodes to its largest limit), similar prompt lengths together (less padding),
sizes balanced (no batch of 2 after one of 16), and, when asked, no batch over a padded-token cap.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["Messages", "ChatRequest", "ModelReply", "limit_batches"]

Messages = tuple[dict[str, str], ...]
T = TypeVar("T")


@dataclass(frozen=True)
class ChatRequest:
    """Chat messages, the most tokens to generate, and the sampling temperature (None: the backend's
    own setting, which is how rollouts leave it; the judge asks for 0)."""

    messages: Messages
    max_tokens: int
    temperature: float | None = None

    @property
    def prompt_chars(self) -> int:
        return sum(len(m["content"]) for m in self.messages)

    @cached_property
    def prompt_hash(self) -> str:
        """Identity of the prompt: equal hashes mean the model saw exactly the same input (computed once:
        encoding a long prompt is not free)."""
        blob = json.dumps([list(self.messages), self.max_tokens], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class ModelReply:
    """What a backend returns. ``text`` is None exactly when the call failed after its retries.

    ``payload`` carries backend data that never goes into records (token ids, logprobs for training).
    """

    text: str | None
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    finish_reason: str | None = None
    payload: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def failed(cls, error: str, *, latency_s: float | None = None) -> ModelReply:
        return cls(text=None, error=error, latency_s=latency_s)


def limit_batches(items: Sequence[T], *, limit: Callable[[T], int], length: Callable[[T], int], max_size: int,
                  max_padded: int | None = None) -> list[list[T]]:
    """``items`` in batches: one ``limit`` (token limit) per batch, sorted by ``length`` within it, as few
    batches of at most ``max_size`` as that allows with their sizes balanced; with ``max_padded``, a
    batch is cut further so that its size times its longest ``length`` stays within it."""
    groups: dict[int, list[T]] = {}
    for item in items:
        groups.setdefault(limit(item), []).append(item)
    batches: list[list[T]] = []
    for _, members in sorted(groups.items(), key=lambda kv: kv[0]):
        members = sorted(members, key=length)
        count = -(-len(members) // max_size)
        size = -(-len(members) // count)
        for start in range(0, len(members), size):
            batches += _within_padding(members[start:start + size], length, max_padded)
    return batches


def _within_padding(batch: list[T], length: Callable[[T], int], cap: int | None) -> list[list[T]]:
    if cap is None:
        return [batch]
    out: list[list[T]] = []
    current: list[T] = []
    for item in batch:  # sorted by length: the newest is the longest
        if current and (len(current) + 1) * length(item) > cap:
            out.append(current)
            current = []
        current.append(item)
    return out + [current] if current else out
