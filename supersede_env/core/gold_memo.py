"""The gold-memo teacher: an **oracle** that writes the memo a perfect memory would keep.

It is not a model and not a baseline of the prompt: it reads the episode's gold ``states`` (the
current value of every slot after every session), which no policy is ever shown. What it gives:

- an upper bound for reports: what a perfect memo of B characters scores under a memo condition;
- the transcripts that warm-start a model before GRPO (``supersede sft``): every call's exact
  prompt, as the rollout sends it, and the reply a perfect memory would give.

Its replies, per step of the rollout (:mod:`supersede_env.core.rollout`):

- **memo and ledger steps**: one ``topic: value`` line per slot mentioned so far, in the order the
  slots were first mentioned, each with its current value (``home city: Portland``). A memory
  does not know the question to come, so every slot is kept; when the lines do not fit the budget,
  the slot set longest ago is left out first (the rule ``ledger-ops``'s code applies).
- **ledger-ops steps**: ``SET topic: value`` for every slot the session created or changed, or
  ``NONE`` (the code-kept ledger then holds the gold memo).
- **the answer**: the asked slot's value, alone, when its memo holds it; otherwise the terse
  abstention ``It is not in my notes.`` (also on abstention items). Under ``full`` it answers from
  the whole history: the gold answer, or ``You never mentioned it.``. Under ``+contract`` the
  four fields, the value in ANSWER. These are the forms the strict reward pays.

Episodes without gold states (LongMemEval items that carry no annotation) have no gold memo: the
teacher cannot play them (:class:`TeacherError`), and callers record the call as failed.

**Its stale twin** (``keeps_first=True``, named :data:`FIRST_VALUE_NAME`): the same memo, but each fact
keeps the value it was first given; an update is never written. It is the failure this package
measures, played perfectly, and it answers with the value its memo holds (the superseded one). A
warm start taught from a mix of both transcripts holds both habits, as real models do, and leaves
the choice between them to the reward (``supersede sft``'s ``first_value_share``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from supersede_env.core import questions, rollout
from supersede_env.core.conditions import Condition, parse_condition
from supersede_env.core.episode import Episode
from supersede_env.core.errors import ConditionError
from supersede_env.core.model_call import ModelReply
from supersede_env.core.rollout import RolloutState, StepRequest

NAME = "oracle:gold-memo"
FIRST_VALUE_NAME = "oracle:first-value-memo"  # the stale twin: never writes an update
KIND = "oracle: reads the gold states, not a model"
VERSION = 1  # bump when a reply changes (recorded with every run and every exported dataset)
NOT_IN_NOTES = "It is not in my notes."
NEVER_MENTIONED = "You never mentioned it."


class TeacherError(ValueError):
    """The teacher cannot play this episode (no gold states) or this condition (a memory system)."""


@dataclass(frozen=True)
class MemoLine:
    slot: str
    value: str
    set_at: int  # the session (0-based) that last created, updated or restated the value

    @property
    def text(self) -> str:
        return f"{slot_topic(self.slot)}: {self.value}"


def slot_topic(slot: str) -> str:
    """A slot's name as a memo topic: ``home_city`` -> ``home city``."""
    return slot.replace("_", " ")


def gold_lines(episode: Episode, session_index: int, *, keeps_first: bool = False) -> tuple[MemoLine, ...]:
    """Every slot mentioned up to session ``session_index``, first-mentioned first, with its value then
    (``keeps_first``: the value it was first given)."""
    if episode.states is None:
        raise TeacherError(f"episode {episode.id} has no gold states: the gold-memo teacher cannot play it")
    first: dict[str, int] = {}
    set_at: dict[str, int] = {}
    for index, state in enumerate(episode.states[: session_index + 1]):
        for slot in sorted(state.values):  # a session's new slots in a fixed order
            first.setdefault(slot, index)
        for slot, op in state.ops.items():
            if op in ("create", "update", "reinforce") and slot in state.values:
                set_at[slot] = index
    values = episode.states[session_index].values
    order = sorted(first, key=lambda slot: (first[slot], slot))
    if keeps_first:
        return tuple(MemoLine(slot, episode.states[first[slot]].values[slot], first[slot]) for slot in order)
    return tuple(MemoLine(slot, values[slot], set_at.get(slot, first[slot])) for slot in order)


def within_budget(lines: Sequence[MemoLine], budget: int) -> tuple[MemoLine, ...]:
    """The lines that fit ``budget`` characters (joined by newlines), dropping the line set longest ago first."""
    kept = list(lines)
    while kept and len(render(kept)) > budget:
        kept.remove(min(kept, key=lambda line: line.set_at))
    return tuple(kept)


def render(lines: Sequence[MemoLine]) -> str:
    return "\n".join(line.text for line in lines)


def gold_memo(episode: Episode, session_index: int, budget: int, *, keeps_first: bool = False) -> tuple[MemoLine, ...]:
    """The memo after session ``session_index``: every current value (or first value) that fits ``budget``."""
    return within_budget(gold_lines(episode, session_index, keeps_first=keeps_first), budget)


def teacher_conditions(text: str) -> tuple[Condition, ...]:
    """Comma-separated conditions the teacher can play (memo modes and full); ConditionError otherwise."""
    conditions = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        condition = parse_condition(part)
        if condition.is_system:
            raise ConditionError(f"{condition} is a memory system; the teacher plays memo conditions and full")
        conditions.append(condition)
    if not conditions:
        raise ConditionError("no condition given")
    return tuple(conditions)


def teacher_text(episode: Episode, condition: Condition, request: StepRequest, *, keeps_first: bool = False) -> str:
    """The teacher's reply to ``request`` (a step of ``episode`` under ``condition``); ``keeps_first``:
    its stale twin's."""
    if condition.is_system:
        raise TeacherError(f"{condition} is a memory system; the gold-memo teacher plays memo conditions and full")
    condition = condition.for_episode(episode)
    if request.kind == "memo":
        return _memo_reply(episode, condition, request.step, keeps_first)
    # the answer steps follow the memo steps, one per question the episode asks (core/questions.py)
    index = request.step - (len(episode.sessions) if condition.is_memo else 0)
    return _answer_reply(questions.asked(episode)[index], condition, keeps_first)


def _memo_reply(episode: Episode, condition: Condition, session_index: int, keeps_first: bool) -> str:
    budget = condition.notes_budget
    if condition.mode == "ledger-ops":
        now = {line.slot: line for line in gold_lines(episode, session_index, keeps_first=keeps_first)}
        before = ({line.slot: line.value for line in gold_lines(episode, session_index - 1, keeps_first=keeps_first)}
                  if session_index else {})
        changed = [line for slot, line in now.items() if before.get(slot) != line.value]
        return "\n".join(f"SET {line.text}" for line in changed) or "NONE"
    return render(gold_memo(episode, session_index, budget, keeps_first=keeps_first)) or "(empty)"


def _answer_reply(episode: Episode, condition: Condition, keeps_first: bool) -> str:
    if condition.mode == "full":
        value = None if episode.abstention else episode.answer
        if keeps_first and value is not None:  # the value the asked fact was first given
            first = {line.slot: line.value for line in gold_lines(episode, len(episode.sessions) - 1, keeps_first=True)}
            value = first.get(episode.slot or "", value)
        missing = NEVER_MENTIONED
    else:
        last = len(episode.sessions) - 1
        held = {line.slot: line.value for line in gold_memo(episode, last, condition.notes_budget,
                                                            keeps_first=keeps_first)}
        value = None if episode.abstention else held.get(episode.slot or "")
        missing = NOT_IN_NOTES
        if value is not None and value != episode.answer and not keeps_first:
            raise TeacherError(f"episode {episode.id}: gold state of {episode.slot} is {value!r}, "
                               f"the answer is {episode.answer!r}")
    if condition.policy == "contract":
        if value is None:
            return "STATUS: NOT FOUND\nEVIDENCE: none\nANSWER: not in my notes\nMISSING: the fact asked about"
        evidence = f"{slot_topic(episode.slot or '')}: {value}"
        return f'STATUS: FOUND\nEVIDENCE: "{evidence}"\nANSWER: {value}\nMISSING: nothing'
    return value if value is not None else missing


def teacher_rollout(episode: Episode, condition: Condition) -> RolloutState:
    """The whole rollout of ``episode`` under ``condition`` with the teacher's replies."""
    state = rollout.start(episode, condition)
    while (request := rollout.next_request(state)) is not None:
        state = rollout.advance(state, ModelReply(text=teacher_text(episode, condition, request),
                                                  finish_reason="stop"))
    return state


def teacher_calls(episode: Episode, condition: Condition, *,
                  keeps_first: bool = False) -> Iterator[tuple[StepRequest, str]]:
    """Every call of the teacher's rollout (``keeps_first``: its stale twin's): the request exactly as
    sent, and the reply."""
    state = rollout.start(episode, condition)
    while (request := rollout.next_request(state)) is not None:
        text = teacher_text(episode, condition, request, keeps_first=keeps_first)
        yield request, text
        state = rollout.advance(state, ModelReply(text=text, finish_reason="stop"))


def prompt_table(episodes: Sequence[Episode], conditions: Sequence[Condition]) -> Mapping[str, str | None]:
    """``prompt hash -> reply`` for every call of the teacher's rollouts (None: two episodes send the same
    prompt and want different replies). What lets the teacher answer a bare prompt, as a backend does."""
    table: dict[str, str | None] = {}
    for condition in conditions:
        if condition.is_system:  # a memory system's prompts are its own: the oracle does not play them
            continue
        for episode in episodes:
            if episode.states is None and condition.mode != "full":
                continue
            for request, text in teacher_calls(episode, condition):
                key = request.prompt_hash
                table[key] = text if table.get(key, text) == text else None
    return table
