"""The supersede-env episode loop for verifiers (``verifiers.v1``): every model call is its own trace.

``run`` drives the pure rollout (:mod:`supersede_env.core.rollout`) and sends each request as a fresh
agent run: the model sees only that step's prompt (the notes and one session, or the notes and the
question), so each call is one trace and one training sample, which is what lets prime-rl train
every memo step and not only the answer. Memo steps run on the ``memo`` seat and the answer on the
``answer`` seat (both the policy under evaluation or training, by default): the answer seat has
exactly one trace per episode, so what verifiers and prime-rl report per seat for it (reward and
metric means, avg@k, pass@k) counts each episode once.

``finalize`` rebuilds the finished rollout from the replies recorded on the traces (the rollout is
a function of its replies, and :func:`supersede_env.core.rollout.replay` checks every prompt is
unchanged), grades the answer once, and then scores every trace of the episode with the task's own
rewards (``r_cur`` and ``r_stale``, verifiers' reward mechanism, weights included): every model call
of an episode carries the episode's reward. Within a GRPO group (rollouts of one task) every
complete episode makes the same number of calls, so a group baseline over traces equals the mean
over episodes.

A graded episode's metrics go on its answer trace only, so every mean of them counts each episode
once: ``verdict_<label>`` (one-hot over the grader's labels), ``memo_chars`` (final notes),
``chars_cut`` (cut by the budget, all steps), ``well_formed``, ``empty_replies`` and ``model_calls``.
The episode's graded row (the :class:`~supersede_env.core.records.VerdictRecord` ``supersede eval``
writes) goes to ``trace.info["supersede_verdict"]`` and each call's step record (the rollout's
:class:`~supersede_env.core.rollout.StepRecord`) to ``trace.info["supersede_step"]``.

A failed model call ends the rollout and is never graded: its trace keeps the provider error, the
episode's other traces are marked failed too (so no part of a failed episode is averaged or trained
as if it were scored, as prime-rl does on its side), the rewards are left unscored (``None``) and no
metric is recorded; the episode is not ok, so ``--resume`` / ``--env.retries`` redo it.

Each finished episode is logged with its real reward (verifiers' own per-call line is written
before the episode is scored), and the run ends with a per-episode summary.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

import verifiers.v1 as vf

from supersede_env.core import rollout
from supersede_env.core.api_keys import mask_text, mask_values
from supersede_env.core.limits import reply_limit
from supersede_env.core.records import to_dict
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import RolloutState, StepRecord, Transcript
from supersede_env.core.safe_text import clean
from supersede_env.core.verdict import LABELS, Verdict
from supersede_env.verifiers_env.taskset import QUESTIONS_INFO, VERDICT_INFO, SupersedeTask

STEP_INFO = "supersede_step"
# A child of verifiers' library logger: vf-eval and prime-rl route these lines with their own.
logger = logging.getLogger("verifiers.v1.supersede_env")


class SupersedeEnvConfig(vf.EnvConfig):
    """The env's two seats; each runs this package's in-process harness in the ``subprocess``
    runtime by default (the harness calls the model in-process and runs no program, so a sandbox
    would only add start-up time)."""

    memo: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The agent that rewrites the notes after each session (``--env.memo.*``)."""
    answer: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The agent that answers from the notes (``--env.answer.*``); ``full`` uses only this seat."""


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
    """A single call's task. It scores nothing at the call: the env scores the episode's traces."""


@dataclass
class RunSummary:
    """Per-episode figures of the episodes this env finalized in this process (with
    ``--env.retries``, each attempt of a retried episode counts)."""

    episodes: int = 0
    failed: int = 0
    calls: int = 0  # model calls of the graded episodes
    correct: int = 0  # graded episodes whose verdict is correct (Verdict.correct)
    reward: float = 0.0  # summed over graded episodes
    call_reward: float = 0.0  # summed over their calls: what a per-call mean averages
    labels: dict[str, int] = field(default_factory=dict)

    def add(self, traces: list[vf.Trace], verdict: Verdict | None) -> None:
        self.episodes += 1
        if verdict is None:
            self.failed += 1
            return
        self.calls += len(traces)
        self.correct += verdict.correct
        self.reward += traces[-1].reward
        self.call_reward += sum(trace.reward for trace in traces)
        self.labels[verdict.label] = self.labels.get(verdict.label, 0) + 1

    def line(self) -> str:
        graded = self.episodes - self.failed
        if not graded:
            return f"supersede-env: {self.episodes} episodes, none graded ({self.failed} failed)"
        shares = ", ".join(f"{label} {self.labels.get(label, 0) / graded:.3f}" for label in LABELS
                           if self.labels.get(label))
        return (f"supersede-env: {self.episodes} episodes ({graded} graded, {self.failed} failed), "
                f"per episode: accuracy {self.correct / graded:.3f}, "
                f"reward {self.reward / graded:.3f}, {shares}; "
                f"a mean over the {self.calls} model calls (vf-eval's headline reward) "
                f"weights long episodes more: reward {self.call_reward / self.calls:.3f}")


class SupersedeEnv(vf.Env[SupersedeEnvConfig]):
    """Plays an episode one call at a time on its two seats; scores it when it ends."""

    summary: RunSummary | None = None
    secrets: tuple[str, ...] = ()  # the seats' API keys: masked in what this env stores

    async def start(self) -> None:
        self.summary = RunSummary()

    async def stop(self) -> None:
        if self.summary is not None and self.summary.episodes:
            logger.info(self.summary.line())

    async def run(self, task: SupersedeTask, agents: vf.Agents) -> None:
        episode, condition = task.episode, task.condition
        self.secrets = seat_keys(agents)
        mask_keys_in_logs(self.secrets)
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
            seat = agents.answer if request.kind == "answer" else agents.memo
            # Scoring waits for the episode's end (finalize): the answer does not exist yet.
            trace = await seat.run(step_task.defer_scoring())
            limit = reply_limit(request.max_tokens)
            state = rollout.advance(state, reply_from_trace(trace, self.secrets, limit=limit))
            mask_trace(trace, self.secrets, limit=limit)
            trace.info[STEP_INFO] = mask_values(state.steps[-1].to_dict(), self.secrets)

    async def finalize(self, task: SupersedeTask, episode: vf.Episode) -> None:
        state = replayed(task, episode.traces)
        asked = list(zip(state.asked, state.transcripts(), strict=True))  # one unless it asks many questions
        # a failed call fails the whole episode: then the transcript shown is the first failed question's
        transcript = next((t for _, t in asked if t.status != "ok"), asked[0][1])
        traces = sorted(episode.traces, key=lambda trace: trace.info[STEP_INFO]["step"])
        rows = [task.score_transcript(t, q) for q, t in asked] if transcript.status == "ok" else []
        row = rows[0] if rows else None
        verdict = row.grader if row is not None else None
        # A call that ended with no reply and no error (e.g. an agent limit refused it) must still
        # fail the episode, so that it is redone rather than kept as ungraded.
        silent_failure = verdict is None and all(trace.ok for trace in traces)
        if verdict is None:
            failed = next(s for s in transcript.steps if s.status == "failed")
            mark_failed(traces, task, failed)
        else:
            info = mask_values(to_dict(row), self.secrets)  # type: ignore[arg-type]
            many = [mask_values(to_dict(r), self.secrets) for r in rows] if len(rows) > 1 else None
            for trace in traces:
                trace.info[VERDICT_INFO] = info
                if many is not None:
                    trace.info[QUESTIONS_INFO] = many
                await task.score(trace)  # the task's rewards, at the weights the config gives them
            traces[-1].record_metrics(episode_metrics(transcript, verdict))
        log_episode(task, traces, transcript, verdict)
        if self.summary is not None:
            self.summary.add(traces, verdict)
        if silent_failure:
            raise RuntimeError(f"episode {transcript.episode_id}: step {failed.step} got no reply: {failed.error}")


def seat_keys(agents: vf.Agents) -> tuple[str, ...]:
    """The API keys the seats' clients send (verifiers reads them from ``--client.api-key-var``)."""
    from verifiers.v1.configs.client import resolve_api_key

    keys = {resolve_api_key(agent.ctx.client) for agent in (agents.memo, agents.answer)}
    return tuple(sorted(key for key in keys if key and key != "EMPTY"))


class _MaskKeys(logging.Filter):
    """Masks the keys in every record a handler emits (verifiers logs a provider's error body, which a
    server that echoes the Authorization header fills with the key)."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            record.msg, record.args = mask_text(message, self.secrets), None
        return True


def mask_keys_in_logs(secrets: tuple[str, ...]) -> None:
    """Put the key filter on the handlers of verifiers' library logger and of the root logger (once)."""
    if not secrets:
        return
    for handler in (*logging.getLogger("verifiers.v1").handlers, *logging.getLogger().handlers):
        if not any(isinstance(f, _MaskKeys) and f.secrets == secrets for f in handler.filters):
            handler.addFilter(_MaskKeys(secrets))


def mask_trace(trace: vf.Trace, secrets: tuple[str, ...], *, limit: int | None = None) -> None:
    """Mask the keys in the texts verifiers keeps on a trace (its messages, its errors and its calls'
    errors, its reply), where a server that echoes the Authorization header puts them, and cut a
    reply over ``limit`` bytes (a failed call: see :func:`reply_from_trace`) to that size. The token ids
    are left as they are: a trainer learns from those, and the text is what a person reads in
    ``traces.jsonl``."""
    for node in trace.nodes:
        message = node.message
        for name in ("content", "reasoning_content"):
            value = getattr(message, name, None)
            if not isinstance(value, str):
                continue
            if limit is not None and node.sampled and len(value) > limit:
                value = value[:limit] + f" [cut: {len(value):,} characters, over the reply limit]"
                setattr(message, name, value)
            if secrets and any(secret in value for secret in secrets):
                setattr(message, name, mask_text(value, secrets))
    if not secrets:
        return
    errors = [*trace.errors, *(call.error for call in trace.calls if call.error is not None)]
    for error in errors:
        if isinstance(error.message, str) and any(secret in error.message for secret in secrets):
            error.message = mask_text(error.message, secrets)
    if trace.root_reply and any(secret in trace.root_reply for secret in secrets):
        trace.root_reply = mask_text(trace.root_reply, secrets)


def reply_from_trace(trace: vf.Trace, secrets: tuple[str, ...] = (), *,
                     limit: int | None = None) -> ModelReply:
    """What one agent run returned, as the rollout's reply; a failed run is a failed reply, and so is a
    reply over ``limit`` bytes of UTF-8 (the bound ``supersede eval`` puts on a reply body). The text is
    made safe here, where it enters (:mod:`supersede_env.core.safe_text`), and the keys masked in it,
    so the rollout, its next prompt and ``trace.info`` all hold the same masked text."""
    latency = sum(call.time.duration for call in trace.calls) or None
    if not trace.ok:
        error = trace.last_error
        message = f"{error.type}: {error.message}" if error is not None else "agent run failed"
        return ModelReply.failed(mask_text(clean(" ".join(message.split())), secrets), latency_s=latency)
    replies = trace.assistant_messages
    if not replies:
        return ModelReply.failed(f"no model reply (stopped: {trace.stop_condition})", latency_s=latency)
    text = replies[-1].content or ""
    if limit is not None and len(text) > limit // 4 and len(text.encode("utf-8", "surrogatepass")) > limit:
        return ModelReply.failed(f"reply larger than {limit:,} bytes (the limit for this call's tokens; see "
                                 "docs/evaluation.md)", latency_s=latency)
    usage = trace.usage
    last_call = next((call for call in reversed(trace.calls) if call.error is None), None)
    return ModelReply(
        text=mask_text(clean(text), secrets),
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
    state = rollout.replay(task.episode, task.condition, records)
    if not state.done:
        raise ValueError(f"episode {task.data.id}: the rollout stopped after {len(records)} calls, unfinished")
    return state


def episode_metrics(transcript: Transcript, verdict: Verdict) -> dict[str, float]:
    """Facts about a graded episode: its verdict (one-hot over the grader's labels) and its rollout."""
    return {
        **{f"verdict_{label}": float(verdict.label == label) for label in LABELS},
        "memo_chars": float(len(transcript.final_notes)),
        "chars_cut": float(sum(step.chars_cut for step in transcript.steps)),
        "well_formed": float(transcript.well_formed),
        "empty_replies": float(sum(step.status == "empty" for step in transcript.steps)),
        "model_calls": float(len(transcript.steps)),
    }


def mark_failed(traces: list[vf.Trace], task: SupersedeTask, failed: rollout.StepRecord) -> None:
    """A failed episode: rewards unscored (``None``, verifiers' mark for "scoring did not run") on
    every trace, and the calls that succeeded marked failed with the reason."""
    names = [fn.__name__ for fn in task.hooks("reward")]
    reason = vf.Error(type="EpisodeFailed", message=f"step {failed.step} of this episode failed: {failed.error}")
    for trace in traces:
        trace.rewards.update(dict.fromkeys(names))
        if trace.ok:
            trace.ok = False
            trace.errors = [*trace.errors, reason]


def log_episode(task: SupersedeTask, traces: list[vf.Trace], transcript: Transcript,
                verdict: Verdict | None) -> None:
    if verdict is None:
        failed = next(s for s in transcript.steps if s.status == "failed")
        logger.warning("episode failed: task=%s id=%s step %d of %d: %s", task.data.idx, task.data.id,
                       failed.step, len(transcript.steps), failed.error)
        return
    logger.info("episode done: task=%s id=%s reward=%.3f verdict=%s calls=%d", task.data.idx, task.data.id,
                traces[-1].reward, verdict.label, len(traces))

