"""Driving the memory-system pairs of a run (``rag``, ``facts``, ``memory``) to their verdicts.

Each pair is a task on the event loop (:func:`supersede_env.core.memory_rollout.run_system`): the
built-in systems and a user's coroutine system run on the loop like the rollouts; a user's plain
system runs its methods in daemon threads (:mod:`supersede_env.core.memory_threads`), so it may
block. Every model call goes to the backend under the run's concurrency gate (in-process backends:
one call at a time) and its call record is appended before the system sees the reply. A watch gives
up a pair whose system makes no progress within the step time limit (time waiting on the model does
not count); a cancelled run (Ctrl-C) cancels every pair's task. Each session's memory record is
appended as the session ends, the verdict when the pair ends.

Resuming (:func:`plan_system_pairs`): a pair with recorded calls is run again from its start with the
recorded replies (checked prompt by prompt) before the plan is made, so a system that no longer sends
the recorded prompts stops the resume before any model call; the run then replays the same replies
and goes on live from the first unrecorded call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from supersede_env.core.conditions import Condition
from supersede_env.evaluation.calls import PriorityGate, complete_batch, safe_complete
from supersede_env.evaluation.judging import judge_verdict, needs_judgement
from supersede_env.core.errors import RecordError
from supersede_env.core.episode import Episode
from supersede_env.core.memory_builtin import builtin_system
from supersede_env.core.memory_rollout import (ResumeMismatch, SessionMemory, SystemRun, being_cancelled, raised_by,
                                              run_system)
from supersede_env.core.memory_system import DriverStop, SystemFactory
from supersede_env.core.memory_threads import PairStopped, in_daemon_thread
from supersede_env.core.model_call import ModelReply
from supersede_env.core.records import RunLog, VerdictRecord, memory_record, verdict_record
from supersede_env.core.rollout import StepRecord, StepRequest


@dataclass
class SystemPairTask:
    """One episode under one memory-system condition, with what its records already hold."""

    episode: Episode
    condition: Condition
    factory: SystemFactory
    recorded: tuple[StepRecord, ...] = ()
    sessions_recorded: int = 0
    verdict: VerdictRecord | None = None  # a graded pair that only needs its judge call again
    calls_done: int = 0

    @property
    def steps_total(self) -> int:
        return expected_system_calls(self.episode, self.condition)

    @property
    def steps_done(self) -> int:
        return len(self.recorded) + self.calls_done


def expected_system_calls(episode: Episode, condition: Condition) -> int:
    """Calls of a pair in which nothing fails: ``rag`` answers in one; ``facts`` (and, as an estimate
    for progress only, a user's system) one per session and one to answer."""
    return 1 if condition.mode == "rag" else len(episode.sessions) + 1


def system_factories(conditions: Sequence[Condition], memory: SystemFactory | None) -> dict[str, SystemFactory]:
    """The factory of every memory-system condition: the built-ins' own, the user's for ``memory``."""
    out: dict[str, SystemFactory] = {}
    for condition in conditions:
        if condition.mode == "memory":
            if memory is None:
                raise RecordError(f"condition {condition}: no memory system given (--memory package.module:factory)")
            out[condition.name] = memory
        elif condition.is_system:
            out[condition.name] = (lambda c: lambda: builtin_system(c))(condition)
    return out


class _ReplayEnd(DriverStop):
    """Raised at the first unrecorded call while checking a replay (a BaseException: a system's own
    ``except Exception`` does not swallow it)."""


async def _replay_end(request: StepRequest) -> ModelReply:
    raise _ReplayEnd


async def plan_system_pairs(episodes: Sequence[Episode], conditions: Sequence[Condition],
                      factories: Mapping[str, SystemFactory], log: RunLog | None, *, retry_failed: bool,
                      judged: bool) -> tuple[list[SystemPairTask], int, int, int]:
    """The memory-system pairs with work left; also (finished, failed, replayed calls) counts."""
    tasks: list[SystemPairTask] = []
    finished = failed = replayed = 0
    for condition in conditions:
        if not condition.is_system:
            continue
        for episode in episodes:
            steps = log.steps_for(episode.id, condition.name) if log else ()
            verdict = log.verdict_for(episode.id, condition.name) if log else None
            replayed += len(steps)
            needs_judge = judged and needs_judgement(verdict, retry_failed=retry_failed)
            if verdict is not None and not needs_judge and not (verdict.status == "failed" and retry_failed):
                finished += 1
                failed += verdict.status == "failed"
                continue
            if retry_failed and steps and steps[-1].status == "failed":
                steps = steps[:-1]
            factory = factories[condition.name]
            if steps:
                await _check_replay(factory, episode, condition, steps)
            sessions = len(log.memory_for(episode.id, condition.name)) if log else 0
            tasks.append(SystemPairTask(episode, condition, factory, tuple(steps), sessions,
                                        verdict if needs_judge else None))
    return tasks, finished, failed, replayed


async def _check_replay(factory: SystemFactory, episode: Episode, condition: Condition,
                        steps: Sequence[StepRecord]) -> None:
    try:
        system = factory()
    except Exception:  # noqa: BLE001  (the pair runs, and fails with the factory's reason, when it is driven)
        return
    try:
        await run_system(system, episode, condition, recorded=steps, live=_replay_end)
    except _ReplayEnd:
        pass
    except ResumeMismatch as exc:
        raise RecordError(f"cannot resume: {exc}") from None


# -- driving --------------------------------------------------------------------------------------
@dataclass
class _Watch:
    """What the loop knows of one pair's system: when it last made progress, whether it is waiting on
    the model (the model call has its own time limit), and whether it was given up."""

    last_progress: float
    in_model_call: bool = False
    stopped: bool = False

    def progress(self) -> None:
        if self.stopped:
            raise PairStopped  # a pair given up records nothing more
        self.last_progress = time.monotonic()


async def run_system_pairs(tasks: Sequence[SystemPairTask], call: Callable[[StepRequest], Any], *,
                           record_call: Callable[[SystemPairTask, StepRecord], None],
                           record_memory: Callable[[SystemPairTask, SessionMemory], None],
                           finish: Callable[[SystemPairTask, VerdictRecord], Any], concurrency: int,
                           step_timeout: float | None = None) -> None:
    """Run every task, ``concurrency`` at a time; ``call`` is the coroutine function that sends one
    request to the backend (under the run's gate), ``finish`` the coroutine that judges and records a
    pair's verdict.

    ``step_timeout``: seconds a system may work without progress (a model call, or the end of a
    session) before its pair fails; time spent waiting on the model does not count."""
    slots = asyncio.Semaphore(max(1, concurrency))

    async def one(task: SystemPairTask) -> None:
        async with slots:  # the watch starts with the pair: waiting for a slot is no stall
            watch = _Watch(last_progress=time.monotonic())
            result = await _watched(task, watch, _drive(task, watch, call, record_call, record_memory), step_timeout)
        verdict = task.verdict or pair_verdict(task.episode, result)
        await finish(task, verdict)

    async with asyncio.TaskGroup() as group:
        for task in tasks:
            group.create_task(one(task))


async def _drive(task: SystemPairTask, watch: _Watch, call: Callable[[StepRequest], Any],
                 record_call: Callable[[SystemPairTask, StepRecord], None],
                 record_memory: Callable[[SystemPairTask, SessionMemory], None]) -> SystemRun:
    """One pair through its system: every call sent and recorded, every session's memory recorded,
    each of them progress for the watch."""
    async def live(request: StepRequest) -> ModelReply:
        watch.progress()
        watch.in_model_call = True
        try:
            return await call(request)
        finally:
            watch.in_model_call = False
            watch.last_progress = time.monotonic()

    def on_call(step: StepRecord, was_replayed: bool) -> None:
        watch.progress()
        if not was_replayed:
            task.calls_done += 1
            record_call(task, step)

    def on_session(memory: SessionMemory) -> None:
        watch.progress()
        if memory.session >= task.sessions_recorded:
            record_memory(task, memory)

    try:  # the factory is the user's code, which may block: in a thread of its own
        system = await in_daemon_thread(task.factory)
    except BaseException as exc:  # noqa: BLE001  (fails this pair only, but the pair's own stop goes on)
        if isinstance(exc, DriverStop) or being_cancelled(exc):
            raise
        return failed_run(task, raised_by("memory system factory", exc))
    return await run_system(system, task.episode, task.condition, recorded=task.recorded, live=live,
                            on_call=on_call, on_session=on_session)


async def _watched(task: SystemPairTask, watch: _Watch, drive: Coroutine[Any, Any, SystemRun],
                   step_timeout: float | None) -> SystemRun:
    """``drive`` in a task of its own, given up when the system makes no progress in ``step_timeout``
    seconds (the pair fails); finished, given up or cancelled with the run, the system is stopped."""
    running = asyncio.get_running_loop().create_task(drive)
    running.add_done_callback(_retrieved)
    try:
        while True:
            done, _ = await asyncio.wait({running}, timeout=_poll_interval(step_timeout))
            if done:
                if running.cancelled():  # the system cancelled its own task: its failure, recorded
                    return failed_run(task, "memory system cancelled its own pair (asyncio.CancelledError)")
                return running.result()
            idle = time.monotonic() - watch.last_progress
            if step_timeout is not None and not watch.in_model_call and idle > step_timeout:
                return failed_run(task, f"memory system made no progress in {step_timeout:g} s (its reset, "
                                        "ingest or answer neither returned nor called the model): --memory-timeout")
    finally:
        watch.stopped = True
        running.cancel()


def _retrieved(task: asyncio.Task) -> None:
    """A pair given up may end later with its stop (or anything): nothing to report, nothing to log."""
    if not task.cancelled():
        task.exception()


def _poll_interval(step_timeout: float | None) -> float:
    return 1.0 if step_timeout is None else min(1.0, max(0.05, step_timeout / 10))


def failed_run(task: SystemPairTask, error: str) -> SystemRun:
    """The failed result of a pair the system could not finish (it stalled, or could not be built)."""
    from supersede_env.core.contract import answer_form
    from supersede_env.core.rollout import Transcript

    transcript = Transcript(task.episode.id, task.condition.name, "failed", task.recorded, None, False,
                            answer_form(task.condition))
    return SystemRun(transcript, (), error)


def pair_verdict(episode: Episode, result: SystemRun) -> VerdictRecord:
    """The graded row of a finished system pair (a failed one keeps the system's error)."""
    verdict = verdict_record(episode, result.transcript)
    return replace(verdict, error=result.error) if result.error is not None else verdict


async def run_systems(tasks: Sequence[SystemPairTask], backend: Any, recorder: Any, bar: Any,
                      judge: Any, judge_gate: asyncio.Semaphore, concurrency: int,
                      step_timeout: float | None = None) -> None:
    """The memory-system pairs (:mod:`.memory_runner`): their calls through the same gate (an
    in-process backend takes one at a time), recorded as they come."""
    batch = getattr(backend, "supports_batch", False)
    gate = PriorityGate(1 if batch else concurrency)

    async def call(request: StepRequest) -> ModelReply:
        await gate.acquire(0)
        if not batch:
            try:
                return await safe_complete(backend, request.call)
            finally:
                gate.release()
        # an in-process model is free again only when its thread is done, even if this call was
        # cancelled meanwhile (a system's own time limit): never two threads in one model
        worker = asyncio.ensure_future(asyncio.to_thread(complete_batch, backend, [request.call]))
        worker.add_done_callback(lambda _: gate.release())
        return (await asyncio.shield(worker))[0]

    def record_call(task: SystemPairTask, step: StepRecord) -> None:
        recorder.step(task.episode.id, task.condition.name, step)
        bar.advance(1, failed=recorder.calls_failed)

    def record_memory(task: SystemPairTask, memory: Any) -> None:
        recorder.writer.append(memory_record(task.episode.id, task.condition.name, memory))

    async def finish(task: SystemPairTask, verdict: VerdictRecord) -> None:
        if judge is not None and needs_judgement(verdict):
            async with judge_gate:
                verdict = replace(verdict, judge=await judge_verdict(judge, task.episode, verdict))
        recorder.verdict(verdict)
        bar.pair_done(failed=verdict.status == "failed")

    await run_system_pairs(tasks, call, record_call=record_call, record_memory=record_memory, finish=finish,
                           concurrency=concurrency, step_timeout=step_timeout)
