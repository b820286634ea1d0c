"""Driving the rollouts of a run: every episode x condition pair to its verdict, recorded as it goes.

Two drivers over the same pure state machine (:mod:`supersede_env.core.rollout`):

- **lockstep** for in-process backends (``backend.supports_batch``): each round collects the pending
  request of every unfinished pair, sorts them by prompt length (less padding) and sends them in
  batches of ``batch_size`` to ``backend.complete_batch`` in a worker thread; batching across
  episodes is what makes local generation fast.
- **concurrent** for endpoints: each pair is its own task and advances as soon as its previous
  call returns; a gate bounds the calls in flight and hands each free slot to the waiting pair with
  the most steps left (longest chain first), so no long rollout is left to run alone at the end
  while the other slots idle.

Every call is appended to the run's records when its reply arrives, and a verdict when a pair ends
(after the judge, when there is one; judge calls run concurrently with generation). Resuming
(:func:`plan_pairs`) replays each pair's recorded calls through :func:`rollout.replay`, which
checks every recorded prompt against the one the code would send now, and continues from there:
nothing recorded is lost or asked again. A failed call ends its pair as ``failed``; with
``retry_failed`` the failed call is dropped and the pair continues from that step.

An episode that asks many questions (:mod:`supersede_env.core.questions`) is one rollout: its calls are
recorded under the episode's id, and each question's verdict under that question's id, so a pair of
the report is a question under a condition.

Memory-system conditions (``rag``, ``facts``, ``memory``) are planned and driven by
:mod:`.memory_runner` beside these, over the same backend, gate, records and judge.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from supersede_env.core import questions, rollout
from supersede_env.core.conditions import Condition
from supersede_env.core.errors import RecordError
from supersede_env.core.episode import Episode
from supersede_env.evaluation.calls import PriorityGate, complete_batch, safe_complete
from supersede_env.evaluation.failures import FailureNotices
from supersede_env.evaluation.judging import judge_verdict, needs_judgement
from supersede_env.core.records import CallRecord, RecordWriter, RunLog, VerdictRecord, verdict_record
from supersede_env.core.model_call import limit_batches
from supersede_env.core.rollout import RolloutState, StepRequest
from supersede_env.core.memory_system import SystemFactory
from supersede_env.evaluation.memory_runner import (SystemPairTask, expected_system_calls, plan_system_pairs,
                                                    run_systems, system_factories)


@dataclass
class PairTask:
    """One episode under one condition (its questions' pairs), from wherever its records left it."""

    episode: Episode
    condition: Condition
    state: RolloutState
    # verdicts already recorded for its questions, by question id: final ones (kept as they are), and
    # those the judge must decide again (the grader left them unsure; the judge has not decided); the
    # other questions' verdicts are written when the rollout ends
    recorded: Mapping[str, VerdictRecord] = field(default_factory=dict)
    rejudge: Mapping[str, VerdictRecord] = field(default_factory=dict)

    @cached_property
    def steps_total(self) -> int:
        # asked once a call (the gate's priority): the episode and condition never change, and
        # expected_steps rebuilds the episode's questions each time
        return expected_steps(self.episode, self.condition)

    @property
    def steps_done(self) -> int:
        return len(self.state.steps)


@dataclass(frozen=True)
class RunPlan:
    tasks: tuple[PairTask, ...]  # rollout pairs with work left (calls, grading or judging)
    pairs_total: int
    pairs_finished: int  # pairs whose verdict is already recorded and final
    pairs_failed: int  # ... of which failed (kept as failed: not retried in this run)
    calls_replayed: int
    calls_expected: int  # calls of a run in which nothing fails
    system_tasks: tuple[SystemPairTask, ...] = ()  # memory-system pairs with work left


@dataclass(frozen=True)
class RunStats:
    calls_made: int
    calls_failed: int
    pairs_finished: int
    wall_s: float


def expected_steps(episode: Episode, condition: Condition) -> int:
    if condition.is_system:
        return expected_system_calls(episode, condition)
    answers = len(questions.asked(episode))
    return len(episode.sessions) + answers if condition.is_memo else answers


# -- planning (fresh or resumed) ----------------------------------------------------------------
async def plan_pairs(episodes: Sequence[Episode], conditions: Sequence[Condition], log: RunLog | None = None,
               *, retry_failed: bool = False, judged: bool = False, memory: SystemFactory | None = None) -> RunPlan:
    """The work left for every pair; with ``log``, resumed from its recorded calls and verdicts.
    ``memory``: the factory of the user's memory system (the ``memory`` condition)."""
    tasks: list[PairTask] = []
    system_tasks, finished, failed, replayed = await plan_system_pairs(
        episodes, conditions, system_factories(conditions, memory), log, retry_failed=retry_failed, judged=judged)
    expected = sum(expected_steps(e, c) for c in conditions if c.is_system for e in episodes)
    pairs = sum(1 for c in conditions if c.is_system) * len(episodes)
    for condition in conditions:
        if condition.is_system:
            continue
        for episode in episodes:
            asked = questions.asked(episode)
            pairs += len(asked)
            expected += expected_steps(episode, condition)
            steps = log.steps_for(episode.id, condition.name) if log else ()
            replayed += len(steps)
            verdicts = {q.id: v for q in asked if log and (v := log.verdict_for(q.id, condition.name)) is not None}
            rejudge = {i: v for i, v in verdicts.items() if judged and needs_judgement(v, retry_failed=retry_failed)}
            kept = {i: v for i, v in verdicts.items()
                    if i not in rejudge and not (v.status == "failed" and retry_failed)}
            finished += len(kept)
            failed += sum(v.status == "failed" for v in kept.values())
            if len(kept) == len(asked):  # every question's verdict recorded and final
                continue
            if retry_failed and steps and steps[-1].status == "failed":
                steps = steps[:-1]
            tasks.append(PairTask(episode, condition, _replay(episode, condition, steps), kept, rejudge))
    return RunPlan(tuple(tasks), pairs, finished, failed, replayed, expected, tuple(system_tasks))


def _replay(episode: Episode, condition: Condition, steps: Sequence[rollout.StepRecord]) -> RolloutState:
    try:
        return rollout.replay(episode, condition, steps)
    except ValueError as exc:
        raise RecordError(f"cannot resume: {exc}") from None


# -- recording ------------------------------------------------------------------------------------
class Recorder:
    """Appends call and verdict records; counts what happened (the writer does the durability) and
    tells ``notices`` (the console) about each failed call and judge call as it happens."""

    def __init__(self, writer: RecordWriter, notices: FailureNotices | None = None) -> None:
        self.writer = writer
        self.notices = notices
        self.calls_made = 0
        self.calls_failed = 0
        self.pairs_finished = 0

    def call(self, task: PairTask) -> None:
        self.step(task.episode.id, task.condition.name, task.state.steps[-1])

    def step(self, episode_id: str, condition: str, step: rollout.StepRecord) -> None:
        self.writer.append(CallRecord(episode_id, condition, step))
        self.calls_made += 1
        self.calls_failed += step.status == "failed"
        if step.status == "failed" and self.notices is not None:
            self.notices.heard("model", step.error or "unknown error")

    def verdict(self, verdict: VerdictRecord) -> None:
        self.writer.append(verdict)
        self.pairs_finished += 1
        if verdict.judge is not None and verdict.judge.label is None and self.notices is not None:
            self.notices.heard("judge", verdict.judge.error or "unknown error")


# -- progress -------------------------------------------------------------------------------------
ProgressMode = Literal["bar", "lines"]


class Progress:
    """Progress through rich: a live bar on a terminal (``"bar"``); without one (a log file, CI,
    ``nohup``), a plain line every ``interval`` seconds (``"lines"``), printed by the same rich
    console from the same task's counts: pairs done of total, failed pairs, calls per second and the
    time left. ``None``: nothing is shown."""

    def __init__(self, mode: ProgressMode | None, *, calls_total: int, calls_done: int, pairs_total: int,
                 pairs_done: int, pairs_failed: int = 0, description: str = "eval", interval: float = 30.0) -> None:
        self.mode = mode
        self.interval = interval
        self.description = description
        self.pairs_total = pairs_total
        self.pairs_done = pairs_done
        self.pairs_failed = pairs_failed
        self.calls_total = calls_total
        self._calls_at_start = calls_done
        self._started = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None
        if mode is None:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("calls"), TimeElapsedColumn(), TimeRemainingColumn(),
            TextColumn("{task.fields[failed]}"),
            console=Console(stderr=True), transient=False,
            auto_refresh=mode == "bar",
        )
        self._task = self._bar.add_task(description, total=calls_total, completed=calls_done, failed="")

    def __enter__(self) -> Progress:
        if self.mode == "bar":
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.mode == "bar":
            self._bar.stop()
        elif self.mode == "lines" and exc[0] is None:
            self.print_line()

    def advance(self, steps: int = 1, *, failed: int = 0) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=steps, failed=f"[red]{failed} failed" if failed else "")

    def pair_done(self, *, failed: bool) -> None:
        self.pairs_done += 1
        self.pairs_failed += failed

    def line(self) -> str:
        """One plain progress line (what ``"lines"`` mode prints). The rate is the average since this
        process started: lockstep batches advance in bursts, which a short sliding window misreads."""
        task = self._bar.tasks[0] if self._bar is not None else None
        calls_done = int(task.completed) if task is not None else self._calls_at_start
        elapsed = time.perf_counter() - self._started
        speed = (calls_done - self._calls_at_start) / elapsed if elapsed > 0 else 0.0
        left = self.calls_total - calls_done
        eta = "done" if left <= 0 else (_duration(left / speed) if speed > 0 else "unknown")
        return (f"supersede eval {self.description}: {self.pairs_done}/{self.pairs_total} pairs done, "
                f"{self.pairs_failed} failed; {calls_done}/{self.calls_total} calls, {speed:.2f} calls/s, "
                f"ETA {eta}")

    def print_line(self) -> None:
        self._bar.console.print(self.line(), markup=False, highlight=False, soft_wrap=True)

    async def tick(self) -> None:
        """Print a line every ``interval`` seconds until cancelled (``"lines"`` mode)."""
        while True:
            await asyncio.sleep(self.interval)
            self.print_line()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


# -- driving --------------------------------------------------------------------------------------
async def run_pairs(plan: RunPlan, backend: Any, writer: RecordWriter, *, judge: Any = None,
                    concurrency: int = 16, batch_size: int = 16, progress: ProgressMode | bool | None = None,
                    description: str = "eval", progress_interval: float = 30.0,
                    notices: FailureNotices | None = None, memory_timeout: float | None = None) -> RunStats:
    """Run every planned pair to its verdict; lockstep batches for in-process backends.

    ``progress``: ``"bar"``, ``"lines"`` or None (True means ``"bar"``, for older callers);
    ``notices``: where failed calls are said as they happen (the console); ``memory_timeout``: seconds a
    memory system may work without progress before its pair fails (:mod:`.memory_runner`)."""
    mode: ProgressMode | None = "bar" if progress is True else (progress or None)  # type: ignore[assignment]
    recorder = Recorder(writer, notices)
    started = time.perf_counter()
    done_calls = plan.calls_expected - sum(t.steps_total - t.steps_done for t in (*plan.tasks, *plan.system_tasks))
    judge_gate = asyncio.Semaphore(concurrency)
    with Progress(mode, calls_total=plan.calls_expected, calls_done=done_calls, pairs_total=plan.pairs_total,
                  pairs_done=plan.pairs_finished, pairs_failed=plan.pairs_failed, description=description,
                  interval=progress_interval) as bar:
        ticker = asyncio.create_task(bar.tick()) if mode == "lines" else None
        try:
            if getattr(backend, "supports_batch", False):
                await _run_lockstep(plan.tasks, backend, recorder, bar, judge, judge_gate, batch_size)
            else:
                await _run_concurrent(plan.tasks, backend, recorder, bar, judge, judge_gate, concurrency)
            if plan.system_tasks:
                await run_systems(plan.system_tasks, backend, recorder, bar, judge, judge_gate, concurrency,
                                  step_timeout=memory_timeout)
        finally:
            if ticker is not None:
                ticker.cancel()
    return RunStats(recorder.calls_made, recorder.calls_failed, recorder.pairs_finished,
                    time.perf_counter() - started)


async def _finish(task: PairTask, recorder: Recorder, bar: Progress, judge: Any,
                  judge_gate: asyncio.Semaphore) -> None:
    """Grade a finished rollout and record a verdict for each of its questions not yet final; the judge
    sees only what the grader left unsure."""
    for question, transcript in zip(task.state.asked, task.state.transcripts(), strict=True):
        if question.id in task.recorded:
            continue  # recorded and final: counted as finished by the plan
        verdict = task.rejudge.get(question.id) or verdict_record(question, transcript)
        if judge is not None and needs_judgement(verdict):
            async with judge_gate:
                verdict = replace(verdict, judge=await judge_verdict(judge, question, verdict))
        recorder.verdict(verdict)
        bar.pair_done(failed=verdict.status == "failed")


def _after_call(task: PairTask, recorder: Recorder, bar: Progress) -> None:
    recorder.call(task)
    # a failed call ends the pair early: its remaining steps will never run
    skipped = task.steps_total - task.steps_done if task.state.failed else 0
    bar.advance(1 + skipped, failed=recorder.calls_failed)


async def _run_concurrent(tasks: Sequence[PairTask], backend: Any, recorder: Recorder, bar: Progress,
                          judge: Any, judge_gate: asyncio.Semaphore, concurrency: int) -> None:
    gate = PriorityGate(concurrency)

    async def drive(task: PairTask) -> None:
        while (request := rollout.next_request(task.state)) is not None:
            await gate.acquire(task.steps_total - task.steps_done)
            try:
                reply = await safe_complete(backend, request.call)
            finally:
                gate.release()
            task.state = rollout.advance(task.state, reply, request)
            _after_call(task, recorder, bar)
        await _finish(task, recorder, bar, judge, judge_gate)

    async with asyncio.TaskGroup() as group:
        for task in tasks:
            group.create_task(drive(task))


async def _run_lockstep(tasks: Sequence[PairTask], backend: Any, recorder: Recorder, bar: Progress,
                        judge: Any, judge_gate: asyncio.Semaphore, batch_size: int) -> None:
    async with asyncio.TaskGroup() as judging:
        for task in tasks:
            if task.state.done:
                judging.create_task(_finish(task, recorder, bar, judge, judge_gate))
        while True:
            pending = [(t, r) for t in tasks if (r := rollout.next_request(t.state)) is not None]
            if not pending:
                break
            for chunk in _batches(pending, batch_size):
                replies = await asyncio.to_thread(complete_batch, backend, [r.call for _, r in chunk])
                for (task, request), reply in zip(chunk, replies, strict=True):
                    task.state = rollout.advance(task.state, reply, request)
                    _after_call(task, recorder, bar)
                    if task.state.done:
                        judging.create_task(_finish(task, recorder, bar, judge, judge_gate))


def _batches(pending: list[tuple[PairTask, StepRequest]], batch_size: int
             ) -> list[list[tuple[PairTask, StepRequest]]]:
    """One round's requests as batches (:func:`limit_batches`: one token limit per batch, similar prompt
    lengths together, sizes balanced)."""
    return limit_batches(pending, limit=lambda item: item[1].max_tokens, length=lambda item: item[1].prompt_chars,
                         max_size=batch_size)
