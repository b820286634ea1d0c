"""Driving the memory-system pairs of a run (``rag``, ``facts``, ``memory``) to their verdicts.

A memory system calls the model when it likes (:mod:`supersede_env.core.memory_rollout`), so each
pair runs in a daemon thread of its own, watched from the event loop (a system that makes no progress
within the step time limit fails its pair; a cancelled run gives every thread up at its next model
call, and a thread that never returns cannot hold the process open), and each of its calls is handed to the event loop, which
sends it to the backend under the run's concurrency gate (in-process backends: one call at a time,
never two threads in one model) and appends its call record before the system sees the reply. Each
session's memory record is appended as the session ends, the verdict when the pair ends.

Resuming (:func:`plan_system_pairs`): a pair with recorded calls is run again from its start with the
recorded replies (checked prompt by prompt) before the plan is made, so a system that no longer sends
the recorded prompts stops the resume before any model call; the run then replays the same replies
and goes on live from the first unrecorded call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from supersede_env.core.conditions import Condition
from supersede_env.evaluation.calls import PriorityGate, complete_batch, safe_complete
from supersede_env.evaluation.judging import judge_verdict, needs_judgement
from supersede_env.core.errors import RecordError
from supersede_env.core.episode import Episode
from supersede_env.core.memory_builtin import builtin_system
from supersede_env.core.memory_rollout import DriverStop, ResumeMismatch, SessionMemory, SystemRun, run_system
from supersede_env.core.memory_system import SystemFactory
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


def _replay_end(request: StepRequest) -> ModelReply:
    raise _ReplayEnd


def plan_system_pairs(episodes: Sequence[Episode], conditions: Sequence[Condition],
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
                _check_replay(factory, episode, condition, steps)
            sessions = len(log.memory_for(episode.id, condition.name)) if log else 0
            tasks.append(SystemPairTask(episode, condition, factory, tuple(steps), sessions,
                                        verdict if needs_judge else None))
    return tasks, finished, failed, replayed


def _check_replay(factory: SystemFactory, episode: Episode, condition: Condition, steps: Sequence[StepRecord]) -> None:
    try:
        system = factory()
    except Exception:  # noqa: BLE001  (the pair runs, and fails with the factory's reason, when it is driven)
        return
    try:
        run_system(system, episode, condition, recorded=steps, live=_replay_end)
    except _ReplayEnd:
        pass
    except ResumeMismatch as exc:
        raise RecordError(f"cannot resume: {exc}") from None


# -- driving --------------------------------------------------------------------------------------
class _PairStopped(DriverStop):
    """Raised inside a system's thread once its pair is given up (the run was cancelled, or the system
    made no progress in time): the system unwinds, and nothing it does after is recorded (a
    BaseException, so a system's own ``except Exception`` does not swallow it)."""


@dataclass
class _Watch:
    """What the event loop knows of one system's thread: when it last made progress, whether it is
    waiting on the model (the model call has its own time limit), and whether it was given up."""

    last_progress: float
    in_model_call: bool = False
    stopped: bool = False


def _thread_result(loop: asyncio.AbstractEventLoop, function: Callable[[], SystemRun]) -> asyncio.Future:
    """Run ``function`` in a daemon thread: a system that never returns cannot hold the process open."""
    future = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(lambda: None if future.done() else outcome())
        except RuntimeError:
            pass  # the loop is closed: the run ended without this pair

    def target() -> None:
        try:
            result = function()
        except _PairStopped:
            return
        except BaseException as exc:  # noqa: BLE001  (handed to the loop, which records the pair's failure)
            settle(lambda error=exc: future.set_exception(error))
        else:
            settle(lambda: future.set_result(result))

    threading.Thread(target=target, name="memory-system", daemon=True).start()
    return future


async def run_system_pairs(tasks: Sequence[SystemPairTask], call: Callable[[StepRequest], Any], *,
                           record_call: Callable[[SystemPairTask, StepRecord], None],
                           record_memory: Callable[[SystemPairTask, SessionMemory], None],
                           finish: Callable[[SystemPairTask, VerdictRecord], Any], concurrency: int,
                           step_timeout: float | None = None) -> None:
    """Run every task in a thread of its own, ``concurrency`` at a time; ``call`` is the coroutine
    function that sends one request to the backend (under the run's gate), ``finish`` the coroutine
    that judges and records a pair's verdict.

    ``step_timeout``: seconds a system may work without progress (a model call, or the end of a
    session) before its pair fails; time spent waiting on the model does not count. A cancelled run
    (Ctrl-C) gives every running pair up at once: their threads are daemons and stop at their next
    model call."""
    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(max(1, concurrency))

    def wait_on_loop(watch: _Watch, coroutine: Any) -> Any:
        """From a system's thread: run ``coroutine`` on the loop and wait for it, unless the pair is given up."""
        if watch.stopped:
            coroutine.close()
            raise _PairStopped
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        while True:
            try:
                return future.result(timeout=0.2)
            except concurrent.futures.TimeoutError:
                if watch.stopped:
                    future.cancel()
                    raise _PairStopped from None

    def drive(task: SystemPairTask, watch: _Watch) -> SystemRun:
        def live(request: StepRequest) -> ModelReply:
            watch.in_model_call = True
            try:
                return wait_on_loop(watch, call(request))
            finally:
                watch.in_model_call = False
                watch.last_progress = time.monotonic()

        async def on_loop(function: Callable[[], Any]) -> Any:
            return function()

        def on_call(step: StepRecord, was_replayed: bool) -> None:
            watch.last_progress = time.monotonic()
            if not was_replayed:
                task.calls_done += 1
                wait_on_loop(watch, on_loop(lambda: record_call(task, step)))

        def on_session(memory: SessionMemory) -> None:
            watch.last_progress = time.monotonic()
            if memory.session >= task.sessions_recorded:
                wait_on_loop(watch, on_loop(lambda: record_memory(task, memory)))

        try:
            system = task.factory()
        except (Exception, KeyboardInterrupt, SystemExit) as exc:  # noqa: BLE001  (fails this pair only)
            return failed_run(task, " ".join(f"memory system factory raised {type(exc).__name__}: {exc}".split())[:500])
        return run_system(system, task.episode, task.condition, recorded=task.recorded, live=live,
                          on_call=on_call, on_session=on_session)

    async def supervise(task: SystemPairTask) -> SystemRun:
        watch = _Watch(last_progress=time.monotonic())
        running = _thread_result(loop, lambda: drive(task, watch))
        try:
            while True:
                done, _ = await asyncio.wait({running}, timeout=_poll_interval(step_timeout))
                if done:
                    return running.result()
                idle = time.monotonic() - watch.last_progress
                if step_timeout is not None and not watch.in_model_call and idle > step_timeout:
                    watch.stopped = True
                    return failed_run(task, f"memory system made no progress in {step_timeout:g} s (its reset, "
                                            "ingest or answer neither returned nor called the model): --memory-timeout")
        finally:
            watch.stopped = True  # a cancelled run (Ctrl-C) gives the thread up too

    async def one(task: SystemPairTask) -> None:
        async with slots:
            result = await supervise(task)
        verdict = task.verdict or pair_verdict(task.episode, result)
        await finish(task, verdict)

    async with asyncio.TaskGroup() as group:
        for task in tasks:
            group.create_task(one(task))


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
        try:
            if batch:
                return (await asyncio.to_thread(complete_batch, backend, [request.call]))[0]
            return await safe_complete(backend, request.call)
        finally:
            gate.release()

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
