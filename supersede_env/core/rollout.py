"""The rollout: one episode under one condition, as a pure state machine with one model call a step.

    state = start(episode, condition)
    while (request := next_request(state)) is not None:
        state = advance(state, sampler(request))
    transcript = state.transcript()

Nothing here calls a model: the evaluation harness, the verifiers Env and the GRPO trainer each
drive the same machine with their own sampler, so all three see identical prompts. A step's request
(:class:`StepRequest`) is the model call itself (a :class:`~supersede_env.core.model_call.ChatRequest`,
what backends take) plus where it sits in the rollout. Because the
state is a function of the replies alone, a killed run resumes by replaying recorded replies.

Memo modes take one step per session (the model sees only the current notes and that session) and
then one answer step that sees only the notes; ``full`` takes a single answer step. An episode that
asks many questions (:mod:`.questions`) takes one answer step per question after the memo steps, each
from the same notes; :meth:`RolloutState.transcripts` gives one transcript per question.
Failure rules: an empty reply to a memo step keeps the previous notes (recorded as ``empty``);
a failed call (the sampler gave up after its retries) ends the rollout with status ``failed``, so a
failure is never graded as a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from supersede_env.core import contract, ledger, notes, prompts, questions
from supersede_env.core.conditions import Condition
from supersede_env.core.errors import ConditionError
from supersede_env.core.model_call import ChatRequest, Messages, ModelReply
from supersede_env.core.episode import Episode, Session
from supersede_env.core.grader.place import answer_place

StepKind = Literal["memo", "answer"]
StepStatus = Literal["ok", "empty", "failed"]


@dataclass(frozen=True)
class StepRequest:
    """The next model call of a rollout (``call``, what a backend takes) and where it sits: episode,
    condition, step index and kind. Sampling is the sampler's setting (``call.temperature`` is None)."""

    episode_id: str
    condition: str
    step: int
    kind: StepKind
    call: ChatRequest

    @property
    def messages(self) -> Messages:
        return self.call.messages

    @property
    def max_tokens(self) -> int:
        return self.call.max_tokens

    @property
    def prompt_hash(self) -> str:
        """Identity of the prompt: equal hashes mean the model saw exactly the same input."""
        return self.call.prompt_hash

    @property
    def prompt_chars(self) -> int:
        return self.call.prompt_chars


@dataclass(frozen=True)
class StepRecord:
    """Everything a step did, for records, diagnostics and training."""

    step: int
    kind: StepKind
    status: StepStatus
    prompt_hash: str
    prompt_chars: int
    reply: str | None  # raw reply text, reasoning included
    output: str  # what was kept: the notes (memo) or the answer, reasoning stripped
    notes_before: str
    notes_after: str
    chars_cut: int = 0
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    finish_reason: str | None = None
    ledger_ops: int | None = None
    ignored_lines: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_reply(self) -> ModelReply:
        """The reply as the sampler returned it (what :func:`replay` feeds back)."""
        return ModelReply(text=self.reply, error=self.error, tokens_in=self.tokens_in, tokens_out=self.tokens_out,
                          latency_s=self.latency_s, finish_reason=self.finish_reason)


@dataclass(frozen=True)
class Transcript:
    """A finished rollout. ``status`` is ``failed`` if any call failed; then ``answer`` is None.

    The grader reads ``answer`` (the reply, reasoning stripped) in the policy's ``form``; its answer
    place (:func:`~supersede_env.core.grader.place.answer_place`) is ``graded_text``."""

    episode_id: str
    condition: str
    status: Literal["ok", "failed"]
    steps: tuple[StepRecord, ...]
    answer: str | None
    well_formed: bool  # the answer followed its policy's format (always True for plain)
    form: str = "any"  # the grader's answer form for this policy ("contract": the ANSWER field)

    @property
    def graded_text(self) -> str | None:
        """The answer place the grader reads in ``answer`` (the contract's ANSWER field, a JSON
        answer, ``<answer>`` tags, or the whole answer)."""
        return None if self.answer is None else answer_place(self.answer, self.form).text

    @property
    def memo_steps(self) -> tuple[StepRecord, ...]:
        return tuple(s for s in self.steps if s.kind == "memo")

    @property
    def final_notes(self) -> str:
        memo_steps = self.memo_steps
        return memo_steps[-1].notes_after if memo_steps else ""


@dataclass(frozen=True)
class RolloutState:
    episode: Episode
    condition: Condition
    notes: str = ""
    lines: tuple[ledger.LedgerLine, ...] = ()  # the code-kept ledger (ledger-ops only)
    steps: tuple[StepRecord, ...] = ()
    failed: bool = False
    questions: tuple[Episode, ...] = ()  # what the answer steps ask, in order (questions.asked; set by start)

    @property
    def asked(self) -> tuple[Episode, ...]:
        return self.questions or (self.episode,)

    @property
    def answers(self) -> int:
        return sum(1 for s in self.steps if s.kind == "answer")

    @property
    def done(self) -> bool:
        return self.failed or self.answers >= len(self.asked)

    @property
    def session_index(self) -> int:
        """Index of the next session to show (memo modes)."""
        return sum(1 for s in self.steps if s.kind == "memo")

    def transcript(self) -> Transcript:
        """The transcript of a rollout that asks one question (:meth:`transcripts` for many)."""
        if len(self.asked) != 1:
            raise RuntimeError(f"rollout of {self.episode.id} asks {len(self.asked)} questions: use transcripts()")
        return self.transcripts()[0]

    def transcripts(self) -> tuple[Transcript, ...]:
        """One transcript per question: the memo steps and that question's answer step. When a call
        failed, every question it left unanswered is ``failed`` (its steps end at the failed call)."""
        if not self.done:
            raise RuntimeError(f"rollout of {self.episode.id} under {self.condition} is not finished")
        form = contract.answer_form(self.condition)
        shared = tuple(s for s in self.steps if s.kind == "memo")  # a failed memo call among them
        failed = tuple(s for s in self.steps if s.kind == "answer" and s.status == "failed")  # another question's
        answer_steps = [s for s in self.steps if s.kind == "answer"]
        out = []
        for index, question in enumerate(self.asked):
            step = answer_steps[index] if index < len(answer_steps) else None
            if step is None or step.status == "failed":
                steps = shared + (step,) if step is not None else shared + failed
                out.append(Transcript(question.id, self.condition.name, "failed", steps, None, False, form))
                continue
            well_formed = contract.well_formed(self.condition, step.output)
            out.append(Transcript(question.id, self.condition.name, "ok", shared + (step,), step.output,
                                  well_formed, form))
        return tuple(out)


def start(episode: Episode, condition: Condition) -> RolloutState:
    if condition.is_system:  # rag, facts, memory: supersede_env.core.memory_rollout drives them
        raise ConditionError(f"{condition} is a memory system: it runs in supersede eval only; the rollout (the "
                             "verifiers environment, the trainer) takes full, memo, ledger and ledger-ops")
    asked = questions.asked(episode)
    return RolloutState(episode=episode, condition=condition.for_episode(episode),
                        questions=asked if len(asked) > 1 else ())


def next_request(state: RolloutState) -> StepRequest | None:
    """The next call to make, or None when the rollout is finished."""
    if state.done:
        return None
    index = state.session_index
    step = len(state.steps)
    if state.condition.is_memo and index < len(state.episode.sessions):
        messages = prompts.memo_step_messages(state.condition, state.notes, state.episode.sessions[index])
        return StepRequest(state.episode.id, state.condition.name, step, "memo",
                           ChatRequest(messages, state.condition.memo_max_tokens))
    messages = prompts.answer_messages(state.condition, state.asked[state.answers], state.notes)
    return StepRequest(state.episode.id, state.condition.name, step, "answer",
                       ChatRequest(messages, state.condition.answer_max_tokens))


def advance(state: RolloutState, reply: ModelReply, request: StepRequest | None = None) -> RolloutState:
    """Apply the reply to the pending request; returns the new state. ``request``: the
    ``next_request(state)`` the caller already holds (the one it sent), so that the prompt is built
    and hashed once a step, not again here."""
    if request is None:
        request = next_request(state)
        if request is None:
            raise RuntimeError(f"rollout of {state.episode.id} under {state.condition} is already finished")
    elif state.done or request.step != len(state.steps):
        raise RuntimeError(f"rollout of {state.episode.id} under {state.condition}: the request is for step "
                           f"{request.step}, the rollout is at step {len(state.steps)}"
                           + (" and finished" if state.done else ""))
    return _apply(state, request, reply)


def _apply(state: RolloutState, request: StepRequest, reply: ModelReply) -> RolloutState:
    """:func:`advance` for a caller that already holds ``next_request(state)`` (built only once)."""
    common = dict(
        step=request.step,
        kind=request.kind,
        prompt_hash=request.prompt_hash,
        prompt_chars=request.prompt_chars,
        reply=reply.text,
        notes_before=state.notes,
        error=reply.error,
        tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out,
        latency_s=reply.latency_s,
        finish_reason=reply.finish_reason,
    )
    if reply.text is None:
        record = StepRecord(status="failed", output="", notes_after=state.notes, **common)
        return replace(state, steps=state.steps + (record,), failed=True)
    if request.kind == "answer":
        output = notes.strip_reasoning(reply.text)
        record = StepRecord(status="ok" if output else "empty", output=output, notes_after=state.notes, **common)
        return replace(state, steps=state.steps + (record,))
    return _advance_memo(state, reply.text, common)


@dataclass(frozen=True)
class NotesUpdate:
    """What one memo step's reply does to the notes (and, under ``ledger-ops``, the code-kept lines)."""

    status: StepStatus
    notes: str
    lines: tuple[ledger.LedgerLine, ...]
    chars_cut: int = 0
    ledger_ops: int | None = None
    ignored_lines: int | None = None


def update_notes(condition: Condition, notes_before: str, lines: tuple[ledger.LedgerLine, ...], session: Session,
                 text: str) -> NotesUpdate:
    """The notes after ``session`` given the reply ``text``: the rule every memo mode applies (also
    :class:`supersede_env.core.memory_builtin.NotesSystem`, the same modes on the memory-system contract)."""
    budget = condition.notes_budget
    if condition.mode == "ledger-ops":
        result = ledger.update(lines, notes.strip_reasoning(text), budget=budget,
                               date=notes.short_date(session.date) if condition.dates else None)
        # An empty reply is a legitimate "no change" here: the code keeps the ledger either way.
        return NotesUpdate("ok", ledger.render(result.lines), result.lines, result.chars_cut, len(result.ops),
                           result.ignored_lines)
    written = notes.clean_notes(text)
    if not written:
        return NotesUpdate("empty", notes_before, lines)
    kept, cut = notes.apply_budget(written, budget)
    return NotesUpdate("ok", kept, lines, cut)


def _advance_memo(state: RolloutState, text: str, common: dict[str, Any]) -> RolloutState:
    update = update_notes(state.condition, state.notes, state.lines, state.episode.sessions[state.session_index], text)
    record = StepRecord(status=update.status, output=update.notes if update.status == "ok" else "",
                        notes_after=update.notes, chars_cut=update.chars_cut, ledger_ops=update.ledger_ops,
                        ignored_lines=update.ignored_lines, **common)
    return replace(state, notes=update.notes, lines=update.lines, steps=state.steps + (record,))


BatchSampler = Callable[[Sequence[StepRequest]], Sequence[ModelReply]]


def run_lockstep(states: Sequence[RolloutState], sample_batch: BatchSampler,
                 on_step: Callable[[StepRequest, ModelReply, RolloutState], None] | None = None,
                 ) -> list[RolloutState]:
    """Advance many rollouts together: every round sends all pending requests as one batch.

    Used by in-process generation, where batching across episodes is what makes it fast.
    ``on_step`` sees each request, its reply and the new state (e.g. to append a record).
    """
    current = list(states)
    while True:
        pending = [(i, req) for i, st in enumerate(current) if (req := next_request(st)) is not None]
        if not pending:
            return current
        replies = sample_batch([req for _, req in pending])
        if len(replies) != len(pending):
            raise RuntimeError(f"sampler returned {len(replies)} replies for {len(pending)} requests")
        for (i, request), reply in zip(pending, replies, strict=True):
            current[i] = _apply(current[i], request, reply)
            if on_step is not None:
                on_step(request, reply, current[i])


def replay(episode: Episode, condition: Condition, steps: Sequence[StepRecord]) -> RolloutState:
    """Rebuild a state from recorded steps (their prompt hashes and replies), checking each prompt is unchanged.

    Raises ValueError when a recorded prompt differs from the one the code would send now (the
    episode, condition or prompts changed since the run started), so a resume never mixes runs.
    """
    state = start(episode, condition)
    for recorded in steps:
        request = next_request(state)
        if request is None:
            raise ValueError(f"episode {episode.id} under {condition}: more recorded calls than steps")
        if request.prompt_hash != recorded.prompt_hash:
            raise ValueError(
                f"episode {episode.id} under {condition}: step {request.step} prompt differs from the "
                "recorded one (episodes, condition or prompts changed since this run started)"
            )
        state = _apply(state, request, recorded.to_reply())
    return state
