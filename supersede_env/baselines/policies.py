"""Reference policies: deterministic heuristics that play the model's part, for a run with no model.

Like the random and scripted agents RL benchmarks ship, they give every number a floor to be read
against and let the whole pipeline (rollouts, records, grading, statistics, plots) run in seconds.
They are baselines, never models: a run names them ``baseline:NAME (reference policy, not a
model)`` everywhere.

A policy sees exactly what a model sees, the prompt text (:mod:`supersede_env.baselines.reading`),
never the episode's gold answer, superseded values or annotations. It keeps notes from what the user
wrote (never the assistant's replies) and answers with one candidate
(:mod:`supersede_env.baselines.candidates`), the value alone:

- ``recency``: the notes keep the most recent text the user wrote that fits the budget (older turns
  are dropped first, :func:`keep_latest`); the answer is the candidate mentioned **last**. With the
  whole history it answers the latest value; from bounded notes it has lost whatever fell out of
  the budget.
- ``append``: the notes keep every statement that carries a value (a number, a name, a day;
  questions and small talk are left out, :func:`facts`) in the order it came, until the budget is
  full (the harness cuts the rest); the answer is the candidate mentioned **first**. It answers the
  value the user gave first, which after an update is a superseded (stale) one.

On the frozen synthetic split (strict grading) ``recency`` scores about 76% with the full history,
37% from 300-character notes and 73% from 1,000; ``append`` gives a stale answer to most questions.

With nothing to answer from, a policy abstains ("I don't know.", "It is not in my notes."). Under
the evidence contract it writes the four fields, quoting the sentence its value came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from supersede_env.baselines.candidates import Candidate, candidates, has_value, sentences
from supersede_env.baselines.reading import AnswerStep, MemoStep, read_prompt

VERSION = 1  # bump when a policy's replies change (recorded with every run)
KIND = "reference policy, not a model"
EMPTY_NOTES = "(empty)"  # what a memo step replies when nothing is worth keeping yet
_ABSTAIN = {"history": "I don't know.", "notes": "It is not in my notes."}
_NOTE_INDEX = re.compile(r"^note(\d+):", re.M)


@dataclass(frozen=True)
class ReferencePolicy:
    """A named, deterministic reply function over supersede-env prompts."""

    name: str
    description: str
    read: Callable[[str], list[str]]  # a session's text -> what the notes take from it, in order
    keep_notes: Callable[[Sequence[str], int], list[str]]  # (lines oldest first, budget) -> kept
    pick: Callable[[Sequence[Candidate]], Candidate]  # a non-empty list of candidates, in order of mention
    fills_ledger: bool  # ledger-ops: SET only while there is room (keep the first), or always (keep the latest)

    @property
    def spec(self) -> str:
        return f"baseline:{self.name}"

    @property
    def label(self) -> str:
        return f"{self.spec} ({KIND})"

    def reply(self, prompt: str) -> str | None:
        """The reply to one prompt; None when ``prompt`` is not a supersede-env memo or answer step."""
        step = read_prompt(prompt)
        if isinstance(step, MemoStep):
            return self._memo(step)
        if isinstance(step, AnswerStep):
            return self._answer(step)
        return None

    def _memo(self, step: MemoStep) -> str:
        new = self.read(step.conversation)
        if step.form == "ledger-ops":
            return _ledger_ops(step, new, only_while_room=self.fills_ledger)
        if step.form == "facts":
            return _fact_ops(step, new, only_while_room=self.fills_ledger)
        kept = self.keep_notes([*step.notes.splitlines(), *new], step.budget)
        return "\n".join(line for line in kept if line.strip()) or EMPTY_NOTES

    def _answer(self, step: AnswerStep) -> str:
        roles = ("user",) if step.source == "history" else None
        found = candidates(step.question, step.evidence, roles=roles)
        chosen = self.pick(found) if found else None
        answer = chosen.value if chosen else _ABSTAIN[step.source]
        if not step.contract:
            return answer
        if chosen is None:
            return ("STATUS: NOT FOUND\nEVIDENCE: none\nANSWER: not in my notes\n"
                    "MISSING: the fact asked about\nLIMITS: nothing\nNEXT: ask the user")
        return (f'STATUS: FOUND\nEVIDENCE: "{chosen.sentence}"\nANSWER: {answer}\nMISSING: nothing\n'
                "LIMITS: nothing\nNEXT: nothing")


def user_text(conversation: str) -> list[str]:
    """What the user said in one session, one turn a line."""
    return [said.strip() for line in conversation.splitlines()
            if (parts := line.partition(": "))[1] and parts[0] == "user" and (said := parts[2]).strip()]


def facts(conversation: str) -> list[str]:
    """The user's statements in one session that carry a value, one per item, in order."""
    out = []
    for line in conversation.splitlines():
        role, sep, said = line.partition(": ")
        if sep and role == "user":
            out += [s.strip() for _, s in sentences(said) if not s.rstrip().endswith("?") and has_value(s)]
    return out


# -- what the notes keep ---------------------------------------------------------------------------
def keep_latest(lines: Sequence[str], budget: int) -> list[str]:
    """The most recent lines whose joined length fits ``budget`` (the last one cut from its start)."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = len(line) + (1 if kept else 0)
        if used + cost > budget:
            if not kept:
                kept.append(line[-budget:])
            break
        kept.append(line)
        used += cost
    return kept[::-1]


def keep_all(lines: Sequence[str], budget: int) -> list[str]:
    """Every line, in order: the harness keeps the first ``budget`` characters."""
    return list(lines)


def _ledger_ops(step: MemoStep, new: Sequence[str], *, only_while_room: bool) -> str:
    """``SET noteN: statement`` per new statement (the code-kept ledger evicts the oldest when full);
    with ``only_while_room``, only the statements that still fit."""
    numbers = [int(n) for n in _NOTE_INDEX.findall(step.notes)]
    start = max(numbers, default=0) + 1
    used = len(step.notes)
    ops = []
    for offset, statement in enumerate(new):
        line = f"note{start + offset}: {statement}"
        if only_while_room and used + len(line) + 1 > step.budget:
            break
        used += len(line) + 1
        ops.append(f"SET {line}")
    return "\n".join(ops) or "NONE"


_FACT_LINE = re.compile(r"^(f\d+): ", re.M)


def _fact_ops(step: MemoStep, new: Sequence[str], *, only_while_room: bool) -> str:
    """``ADD: statement`` per new statement. With ``only_while_room``, only those that still fit
    (``append``); else the oldest facts are deleted to make room for them (``recency``). A
    statement already in the store word for word is a ``NOOP`` on its fact."""
    facts = [(m[1], line[len(m[0]):]) for line in step.notes.splitlines() if (m := _FACT_LINE.match(line))]
    used = len(step.notes)
    ops: list[str] = []
    for statement in new:
        same = next((fid for fid, text in facts if text == statement), None)
        if same is not None:
            ops.append(f"NOOP {same}")
            continue
        cost = len(statement) + 6  # "fNN: " and a newline
        if only_while_room and used + cost > step.budget:
            break
        while not only_while_room and facts and used + cost > step.budget:
            fid, text = facts.pop(0)
            used -= len(fid) + 3 + len(text)
            ops.append(f"DELETE {fid}")
        used += cost
        ops.append(f"ADD: {statement}")
    return "\n".join(ops) or "NOOP"


POLICIES: dict[str, ReferencePolicy] = {
    policy.name: policy
    for policy in (
        ReferencePolicy(
            "recency",
            "notes keep the most recent text the user wrote that fits the budget; the answer is the "
            "candidate mentioned last",
            read=user_text, keep_notes=keep_latest, pick=lambda found: found[-1], fills_ledger=False,
        ),
        ReferencePolicy(
            "append",
            "notes keep every statement that carries a value, in order, until the budget is full; the "
            "answer is the candidate mentioned first",
            read=facts, keep_notes=keep_all, pick=lambda found: found[0], fills_ledger=True,
        ),
    )
}


def get_policy(name: str) -> ReferencePolicy:
    """The reference policy called ``name``; KeyError names the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown reference policy {name!r}; known: {', '.join(POLICIES)}") from None
