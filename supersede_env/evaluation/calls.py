"""Sending calls to a backend: the error rules (a backend that raises is recorded as a failed call,
never fatal) and the gate that hands free call slots to the pairs with the most steps left. Shared by
the rollout driver (:mod:`.runner`) and the memory-system driver (:mod:`.memory_runner`)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Any

from supersede_env.backends.base import MAX_ERROR_CHARS
from supersede_env.core.model_call import ChatRequest, ModelReply


async def safe_complete(backend: Any, request: ChatRequest) -> ModelReply:
    """Backends return failed replies rather than raise; an exception anyway is recorded, not fatal."""
    started = time.perf_counter()
    try:
        return await backend.complete(request)
    except Exception as exc:  # noqa: BLE001  (recorded as a failed call, never dropped)
        return ModelReply.failed(raised(exc), latency_s=time.perf_counter() - started)


def raised(exc: Exception) -> str:
    """The one-line, length-capped error of a backend that raised instead of returning a failed reply."""
    return " ".join(f"backend raised {type(exc).__name__}: {exc}".split())[:MAX_ERROR_CHARS]


class PriorityGate:
    """A semaphore whose free slot goes to the waiter with the highest priority (FIFO among equals).

    With many rollouts of different lengths sharing a fixed number of slots, serving the pairs with
    the most steps left first keeps every slot busy until the end (longest-processing-time-first
    scheduling); a FIFO semaphore leaves the last long rollouts running alone.
    """

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (-priority, next(self._order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # the slot was handed over just as we were cancelled: pass it on
            raise

    def release(self) -> None:
        while self._waiters:
            _, _, future = heapq.heappop(self._waiters)
            if not future.done():
                future.set_result(None)
                return
        self._free += 1


def complete_batch(backend: Any, requests: list[ChatRequest]) -> list[ModelReply]:
    started = time.perf_counter()
    try:
        replies = list(backend.complete_batch(requests))
    except Exception as exc:  # noqa: BLE001  (every request of the batch is recorded as failed)
        message = raised(exc)
        return [ModelReply.failed(message, latency_s=time.perf_counter() - started) for _ in requests]
    if len(replies) != len(requests):
        message = f"backend returned {len(replies)} replies for {len(requests)} requests"
        return [ModelReply.failed(message) for _ in requests]
    return replies
