"""The supersede-env episode loop for verifiers 0.4.0: every model call is its own trace.

``run`` drives the pure rollout (:mod:`supersede_env.rollout`) and sends each request as a fresh
``agents.agent.run(step_task)``: the model sees only that step's prompt (the notes and one
session, or the notes and the question), so each call is one trace and one training sample, which
is what lets prime-rl train every memo step and not only the answer.

``finalize`` rebuilds the finished rollout from the replies recorded on the traces (the rollout is
a function of its replies, and :func:`supersede_env.rollout.replay` checks every prompt is
unchanged), grades the answer once, and records the episode's rewards and metrics on every trace:

- rewards ``r_cur`` (weight 1) and ``r_stale`` (weight lambda), so ``trace.reward`` is
  ``r_cur + lambda * r_stale``;
- metrics ``verdict_<label>`` (one-hot over current / stale / hedged / abstained / wrong),
  ``memo_chars`` (final notes), ``chars_cut`` (cut by the budget, all steps), ``well_formed``,
  ``failed_calls``, ``empty_replies`` and ``model_calls``; the verdict's label and reason also go
  to ``trace.info["supersede_verdict"]`` and each call's step record to ``trace.info["supersede_step"]``.

A failed model call ends the rollout and is never graded: its trace keeps the provider error
(``trace.ok`` is False, so the episode is not ok and ``--resume`` / ``--env.retries`` redo it), the
rewards are left unscored (``None``, verifiers' mark for "scoring did not run") and
``failed_calls`` counts it.
"""

from __future__ import annotations

from typing import Any, Literal

import verifiers.v1 as vf

from supersede_env import rollout
from supersede_env.grader import LABELS as VERDICT_LABELS
from supersede_env.grader import Verdict
from supersede_env.rollout import ModelReply, RolloutState, StepRecord, Transcript
from supersede_env.verifiers_env.taskset import SupersedeTask

STEP_INFO = "supersede_step"
VERDICT_INFO = "supersede_verdict"
REWARDS: tuple[str, ...] = ("r_cur", "r_stale")


class SupersedeEnvConfig(vf.EnvConfig):
    """The env's one seat; its harness defaults to this package's in-process harness."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The memory agent under evaluation or training (``--env.agent.*``). Its runtime defaults to
    ``subprocess``: the harness calls the model in-process and runs no program, so a sandbox
    would only add start-up time."""


class StepData(vf.TaskData):
    """One model call of a rollout: the prompt the pure rollout built for it, and where it sits."""

    episode_id: str
    """Id of the episode this call belongs to."""
    condition: str
    """Canonical condition name, e.g. ``memo:300``."""
    step: int
    """Position of the call in the rollout (0 = first session)."""
    kind: Literal["memo", "answer"]
    """``memo`` rewrites the notes from one session; ``answer`` answers from the notes."""
    max_tokens: int
    """Output limit the rollout sets for this step (``--sampling.max-tokens`` overrides it)."""


class StepTask(vf.Task[StepData]):
    """A single call's task. It scores nothing itself: the episode's env records the rewards."""


class SupersedeEnv(vf.Env[SupersedeEnvConfig]):
    """One agent plays an episode one call at a time; rewards are settled when the episode ends."""

    async def run(self, task: SupersedeTask, agents: vf.Agents) -> None:
        episode, condition = task.episode, task.condition
        state = rollout.start(episode, condition)
        while (request := rollout.next_request(state)) is not None:
            step_task = StepTask(
                StepData(
                    idx=task.data.idx,
                    id=f"{episode.id}/{request.step}",
                    name=f"{episode.id} [{condition.name}] {request.kind} {request.step}",
                    prompt=[dict(message) for message in request.messages],
                    # e.g. a GEPA-tuned ``--env.taskset.system-prompt``; the harness sends it first
                    system_prompt=task.data.system_prompt,
                    episode_id=episode.id,
                    condition=condition.name,
                    step=request.step,
                    kind=request.kind,
                    max_tokens=request.max_tokens,
                ),
                task.config,
            )
            trace = await agents.agent.run(step_task)
            state = rollout.advance(state, reply_from_trace(trace))
            trace.info[STEP_INFO] = state.steps[-1].to_dict()

    async def finalize(self, task: SupersedeTask, episode: vf.Episode) -> None:
        transcript = replayed(task, episode.traces).transcript()
        metrics = rollout_metrics(transcript)
        verdict = task.score_transcript(transcript) if transcript.status == "ok" else None
        metrics |= verdict_metrics(verdict)
        for trace in episode.traces:
            trace.metrics.update(metrics)
            if verdict is None:
                trace.rewards.update(dict.fromkeys(REWARDS))  # None: scoring did not run
            else:
                record_verdict(trace, verdict, task.data.stale_penalty)
        if transcript.status != "ok" and all(trace.ok for trace in episode.traces):
            # A call that ended with no reply and no error (e.g. an agent limit refused it) must
            # still fail the episode, so that it is redone rather than kept as ungraded.
            failed = next(s for s in transcript.steps if s.status == "failed")
            raise RuntimeError(f"episode {transcript.episode_id}: step {failed.step} got no reply: {failed.error}")


def reply_from_trace(trace: vf.Trace) -> ModelReply:
    """What one agent run returned, as the rollout's reply; a failed run is a failed reply."""
    latency = sum(call.time.duration for call in trace.calls) or None
    if not trace.ok:
        error = trace.last_error
        message = f"{error.type}: {error.message}" if error is not None else "agent run failed"
        return ModelReply.failed(" ".join(message.split()), latency_s=latency)
    replies = trace.assistant_messages
    if not replies:
        return ModelReply.failed(f"no model reply (stopped: {trace.stop_condition})", latency_s=latency)
    usage = trace.usage
    last_call = next((call for call in reversed(trace.calls) if call.error is None), None)
    return ModelReply(
        text=replies[-1].content or "",
        tokens_in=usage.input_tokens if usage is not None else None,
        tokens_out=usage.completion_tokens if usage is not None else None,
        latency_s=latency,
        finish_reason=last_call.finish_reason if last_call is not None else None,
    )


def replayed(task: SupersedeTask, traces: list[vf.Trace]) -> RolloutState:
    """The rollout rebuilt from the step records ``run`` left on the traces, prompts checked."""
    records = []
    for trace in traces:
        raw = trace.info.get(STEP_INFO)
        if raw is None:
            raise ValueError(f"trace {trace.id} of episode {task.data.id} carries no {STEP_INFO} record")
        records.append(StepRecord(**raw))
    records.sort(key=lambda record: record.step)
    replies = [(record.prompt_hash, _reply_of(record)) for record in records]
    state = rollout.replay(task.episode, task.condition, replies)
    if not state.done:
        raise ValueError(f"episode {task.data.id}: the rollout stopped after {len(records)} calls, unfinished")
    return state


def _reply_of(record: StepRecord) -> ModelReply:
    return ModelReply(text=record.reply, error=record.error, tokens_in=record.tokens_in,
                      tokens_out=record.tokens_out, latency_s=record.latency_s,
                      finish_reason=record.finish_reason)


def rollout_metrics(transcript: Transcript) -> dict[str, float | None]:
    """Episode-level facts about the rollout itself, whatever its verdict (``well_formed`` is
    None when no answer was given)."""
    return {
        "memo_chars": float(len(transcript.final_notes)),
        "chars_cut": float(sum(step.chars_cut for step in transcript.steps)),
        "well_formed": float(transcript.well_formed) if transcript.status == "ok" else None,
        "failed_calls": float(sum(step.status == "failed" for step in transcript.steps)),
        "empty_replies": float(sum(step.status == "empty" for step in transcript.steps)),
        "model_calls": float(len(transcript.steps)),
    }


def verdict_metrics(verdict: Verdict | None) -> dict[str, float | None]:
    """One-hot of the verdict's label; all None when the rollout failed and was never graded."""
    if verdict is None:
        return dict.fromkeys((f"verdict_{label}" for label in VERDICT_LABELS), None)
    return {f"verdict_{label}": float(verdict.label == label) for label in VERDICT_LABELS}


def record_verdict(trace: vf.Trace, verdict: Verdict, stale_penalty: float) -> None:
    """The episode's rewards on one trace: ``r_cur`` at weight 1, ``r_stale`` at weight lambda."""
    trace.record_reward("r_cur", verdict.r_cur, 1.0)
    trace.record_reward("r_stale", verdict.r_stale, stale_penalty)
    trace.info[VERDICT_INFO] = _verdict_info(verdict)


def _verdict_info(verdict: Verdict) -> dict[str, Any]:
    return {"label": verdict.label, "reason": verdict.reason, "r_cur": verdict.r_cur, "r_stale": verdict.r_stale}
