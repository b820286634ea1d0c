"""One episode through a memory system (:mod:`supersede_env.core.memory_system`): reset, one
``ingest`` per session, one ``answer``; every model call the system makes becomes a
:class:`~supersede_env.core.rollout.StepRecord` exactly as in the rollout state machine (kind
``memo`` while ingesting, ``answer`` while answering), and every session a :class:`SessionMemory`
(the operations reported and the store exposed after it).

A system is a black box that calls the model when it likes, so this is a driver, not a state
machine: resuming runs the system again from the start and answers its first calls with the
recorded replies (``recorded``), checking each prompt's hash against the recorded one, then goes
on live (``live``). Nothing is asked twice and nothing recorded is lost, as long as the system is
deterministic given its replies; when it is not, the differing prompt stops the resume.

The driver is a coroutine: a coroutine system (``async def ingest``/``answer``) is awaited on the
caller's event loop, a plain one runs in threads (:mod:`supersede_env.core.memory_threads`); both
send their model calls through the same ``live`` coroutine function.

Failure rules are the rollout's: a failed call fails the pair (never scored), even if the system
caught :class:`~supersede_env.core.memory_system.ModelCallFailed`; an exception raised by the
system itself (``SystemExit``, ``KeyboardInterrupt`` and a ``CancelledError`` of its own included)
fails the pair too, with its message as the error. Cancelling the driver's task stops the system.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from supersede_env.core import contract, notes
from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Episode, Session
from supersede_env.core.memory_system import (AsyncModel, DriverStop, Fact, MemoryOp, ModelCallFailed, Question,
                                              checked_answer, checked_ops, exposed_facts, is_coroutine_system)
from supersede_env.core.memory_threads import ThreadedSystem
from supersede_env.core.model_call import ChatRequest, ModelReply
from supersede_env.core.rollout import StepKind, StepRecord, StepRequest, Transcript

MAX_CALLS_PER_EPISODE = 10_000  # a runaway system (a loop around the model) fails its pair instead


@dataclass(frozen=True)
class SessionMemory:
    """What one session did to a system's memory: its reported operations and (if it exposes one)
    the store after it. ``session`` is 0-based."""

    session: int
    ops: tuple[MemoryOp, ...]
    facts: tuple[Fact, ...] | None


@dataclass(frozen=True)
class SystemRun:
    transcript: Transcript
    sessions: tuple[SessionMemory, ...]
    error: str | None = None  # why the pair failed, when it did


class ResumeMismatch(ValueError):
    """A recorded prompt differs from the one the system sends now."""


@dataclass
class _Calls:
    """The model as a system sees it: recorded replies first, then live calls; each one recorded.

    Calls a system makes at once (``asyncio.gather`` of two) are sent one at a time, in the order
    they were made: each call's step number is its place in the records, and a resume replays them in
    that order. A prompt that differs from the recorded one is remembered (``mismatch``): a system
    that catches the error still stops the resume."""

    episode: Episode
    condition: Condition
    recorded: Sequence[StepRecord]
    live: Callable[[StepRequest], Awaitable[ModelReply]]
    on_call: Callable[[StepRecord, bool], None]
    kind: StepKind = "memo"
    steps: list[StepRecord] = field(default_factory=list)
    failed: bool = False
    mismatch: ResumeMismatch | None = None
    one_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def __call__(self, request: ChatRequest) -> str:
        if not isinstance(request, ChatRequest):
            raise TypeError(f"the model takes a ChatRequest, not {type(request).__name__}")
        async with self.one_at_a_time:
            step, reply, replayed = await self._reply(request)
            return self._recorded(step, reply, replayed)

    async def _reply(self, request: ChatRequest) -> tuple[StepRequest, ModelReply, bool]:
        if len(self.steps) >= MAX_CALLS_PER_EPISODE:
            raise RuntimeError(f"more than {MAX_CALLS_PER_EPISODE} model calls in one episode")
        step = StepRequest(self.episode.id, self.condition.name, len(self.steps), self.kind, request)
        if step.step >= len(self.recorded):
            return step, await self.live(step), False
        recorded = self.recorded[step.step]
        if recorded.prompt_hash != step.prompt_hash:
            self.mismatch = ResumeMismatch(f"episode {self.episode.id} under {self.condition}: call {step.step} "
                                           "prompt differs from the recorded one (episodes, system or prompts changed)")
            raise self.mismatch
        return step, recorded.to_reply(), True

    def _recorded(self, step: StepRequest, reply: ModelReply, replayed: bool) -> str:
        record = _record(step, reply)
        self.steps.append(record)
        self.on_call(record, replayed)
        if record.status == "failed":
            self.failed = True
            raise ModelCallFailed(record.error or "model call failed")
        return record.output


def _record(request: StepRequest, reply: ModelReply) -> StepRecord:
    output = notes.strip_reasoning(reply.text) if reply.text is not None else ""
    status = "failed" if reply.text is None else ("ok" if output else "empty")
    return StepRecord(step=request.step, kind=request.kind, status=status, prompt_hash=request.prompt_hash,
                      prompt_chars=request.prompt_chars, reply=reply.text, output=output, notes_before="",
                      notes_after="", error=reply.error, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                      latency_s=reply.latency_s, finish_reason=reply.finish_reason)


def being_cancelled(exc: BaseException) -> bool:
    """Is ``exc`` the cancellation of the running task (its pair given up, the run ended), which goes
    on? A CancelledError a system raises of its own accord is its failure."""
    current = asyncio.current_task()
    return isinstance(exc, asyncio.CancelledError) and current is not None and current.cancelling() > 0


def raised_by(what: str, exc: BaseException) -> str:
    """The one-line error of a pair whose system (or its factory) raised ``exc``."""
    detail = f": {exc}" if str(exc) else ""
    return " ".join(f"{what} raised {type(exc).__name__}{detail}".split())[:500]


class _OnLoop:
    """A coroutine system with the driver's shape: every method awaitable."""

    def __init__(self, system: Any) -> None:
        self.system = system

    async def reset(self, episode_id: str) -> None:
        self.system.reset(episode_id)

    async def ingest(self, session: Session, model: AsyncModel) -> Sequence[MemoryOp] | None:
        return await self.system.ingest(session, model)

    async def answer(self, question: Question, model: AsyncModel) -> Any:
        return await self.system.answer(question, model)

    async def facts(self) -> tuple[Fact, ...] | None:
        return exposed_facts(self.system)


async def run_system(system: object, episode: Episode, condition: Condition, *, recorded: Sequence[StepRecord] = (),
                     live: Callable[[StepRequest], Awaitable[ModelReply]],
                     on_call: Callable[[StepRecord, bool], None] = lambda record, replayed: None,
                     on_session: Callable[[SessionMemory], None] = lambda memory: None) -> SystemRun:
    """Drive ``system`` through ``episode``; ``live`` sends a call to the model, ``on_call`` sees every
    call (and whether it was replayed), ``on_session`` every session's memory. Raises
    :class:`ResumeMismatch` when a replayed prompt differs."""
    calls = _Calls(episode, condition, recorded, live, on_call)
    driven = _OnLoop(system) if is_coroutine_system(system) else ThreadedSystem(system)
    sessions: list[SessionMemory] = []
    answer: str | None = None
    error: str | None = None
    try:
        await driven.reset(episode.id)
        for index, session in enumerate(episode.sessions):
            ops = checked_ops(await driven.ingest(session, calls))
            if calls.failed:
                break
            memory = SessionMemory(index, ops, await driven.facts())
            sessions.append(memory)
            on_session(memory)
        if not calls.failed:
            calls.kind = "answer"
            reply = await driven.answer(Question(episode.question, episode.question_date), calls)
            answer = notes.strip_reasoning(checked_answer(reply))
    except (ResumeMismatch, DriverStop):
        raise
    except ModelCallFailed:
        pass
    except BaseException as exc:  # noqa: BLE001
        # The system's own bug, exit(), KeyboardInterrupt or any other BaseException it raises fails its
        # pair, recorded, never scored. The run's Ctrl-C is raised out of the event loop itself, never
        # inside a system.
        if being_cancelled(exc):
            raise
        error = raised_by("memory system", exc)
    if calls.mismatch is not None:
        raise calls.mismatch  # the system caught it: the resume stops all the same
    failed_step = next((s for s in calls.steps if s.status == "failed"), None)
    if failed_step is not None:
        error = f"step {failed_step.step}: {failed_step.error or 'model call failed'}"
    status: Literal["ok", "failed"] = "failed" if error is not None or answer is None else "ok"
    form = contract.answer_form(condition)
    if status == "failed":
        transcript = Transcript(episode.id, condition.name, "failed", tuple(calls.steps), None, False, form)
        return SystemRun(transcript, tuple(sessions), error or "the memory system gave no answer")
    well_formed = contract.well_formed(condition, answer or "")
    transcript = Transcript(episode.id, condition.name, "ok", tuple(calls.steps), answer, well_formed, form)
    return SystemRun(transcript, tuple(sessions))
