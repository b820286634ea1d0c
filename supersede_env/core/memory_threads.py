"""A plain (blocking) memory system driven from the event loop: each of its method calls runs in a
daemon thread of its own, and each model call it makes from there is handed back to the loop.

The loop never waits on the system's code, so a system that blocks (a sleep, a lock, a slow
library) holds up its own pair only: the run's watch gives it up (``--memory-timeout``) and Ctrl-C
ends the run at once. A system given up is stopped at its next model call (:class:`PairStopped`
rises through its code; a thread that never calls the model again is a daemon and cannot hold the
process open). Coroutine systems (``async def ingest``/``answer``) need none of this: they run on
the loop like the rollouts (:mod:`supersede_env.core.memory_rollout`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from supersede_env.core.episode import Session
from supersede_env.core.memory_system import AsyncModel, DriverStop, Fact, MemoryOp, Question, exposed_facts

T = TypeVar("T")
_POLL_S = 0.2  # how often a thread waiting on the model looks whether its pair was given up


class PairStopped(DriverStop):
    """Raised in a system's thread at its next model call once its pair was given up (the run was
    cancelled, or the system made no progress in time): nothing it does after is recorded."""


class ThreadedSystem:
    """``system``'s methods as coroutines, each call in a daemon thread."""

    def __init__(self, system: Any) -> None:
        self.system = system
        self.stopped = False

    async def reset(self, episode_id: str) -> None:
        await self._in_thread(lambda: self.system.reset(episode_id))

    async def ingest(self, session: Session, model: AsyncModel) -> Sequence[MemoryOp] | None:
        bridge = self._bridge(model, asyncio.get_running_loop())
        return await self._in_thread(lambda: self.system.ingest(session, bridge))

    async def answer(self, question: Question, model: AsyncModel) -> Any:
        bridge = self._bridge(model, asyncio.get_running_loop())
        return await self._in_thread(lambda: self.system.answer(question, bridge))

    async def facts(self) -> tuple[Fact, ...] | None:
        return await self._in_thread(lambda: exposed_facts(self.system))

    def _bridge(self, model: AsyncModel, loop: asyncio.AbstractEventLoop) -> Callable[[Any], str]:
        """The model as the system's thread sees it: a blocking call that runs ``model`` on the loop."""
        def call(request: Any) -> str:
            if self.stopped:
                raise PairStopped
            future = asyncio.run_coroutine_threadsafe(_awaited(model(request)), loop)
            while True:
                try:
                    return future.result(timeout=_POLL_S)
                except concurrent.futures.TimeoutError:
                    if self.stopped:
                        future.cancel()
                        raise PairStopped from None
        return call

    async def _in_thread(self, function: Callable[[], T]) -> T:
        try:
            return await in_daemon_thread(function)
        except asyncio.CancelledError:
            self.stopped = True  # given up: the thread stops at its next model call
            raise


async def in_daemon_thread(function: Callable[[], T]) -> T:
    """``function()`` in a daemon thread of its own, awaited: what it raises is raised here (a
    ``KeyboardInterrupt`` or ``SystemExit`` too); cancelling the wait leaves the thread to itself, and
    a thread that never returns cannot hold the process open (unlike :func:`asyncio.to_thread`'s)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(lambda: None if future.done() else outcome())
        except RuntimeError:
            pass  # the loop is closed: the run ended without this call

    def target() -> None:
        try:
            result = function()
        except BaseException as exc:  # noqa: BLE001  (handed to the loop: the driver decides what it means)
            settle(lambda error=exc: future.set_exception(error))
        else:
            settle(lambda: future.set_result(result))

    threading.Thread(target=target, name="memory-system", daemon=True).start()
    return await future


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
