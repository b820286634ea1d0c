"""A small memory system on supersede-env's contract: a dict of facts keyed by subject.

After each session the model is asked which subjects the conversation sets or drops (``SET subject:
value`` / ``DEL subject`` lines); code keeps one value per subject (case-insensitive), reports an
ADD for a new subject, an UPDATE for a changed value, a NOOP for a value said again and a DELETE
for a dropped subject, and keeps the store within BUDGET characters by dropping the subject set
longest ago. The answer is the model's, from the store alone.

Run it through the harness, paired with the built-in conditions:

    supersede eval --memory examples/memory_system.py:factory --conditions full,memo:300 \\
        --episodes data/synthetic_eval.jsonl --model baseline:recency --out runs/dict-store

(or ``--memory examples.memory_system:factory`` from the repository root). ``factory`` is called
once per episode x condition pair; the system must be deterministic given the model's replies so
that a killed run can resume.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from supersede_env.core.episode import Session
from supersede_env.core.memory_system import Fact, MemoryOp, Model, Question
from supersede_env.core.model_call import ChatRequest

BUDGET = 300
_SET = re.compile(r"^\s*(?:[-*]\s*)?set\s+(?P<subject>[^:]{1,60}):\s*(?P<value>.+)$", re.I)
_DEL = re.compile(r"^\s*(?:[-*]\s*)?del(?:ete)?\s+(?P<subject>.{1,60})$", re.I)

INGEST = """You keep a ledger of facts about a user, one line per subject, kept for you by code.
Your current ledger:
<notes>
{notes}
</notes>

A new conversation:
<conversation>
{session}
</conversation>

Reply only with the changes this conversation makes, one per line:
SET topic: value   (a new subject, or a new value for a subject already in the ledger)
DEL topic          (a subject that is no longer true)
Reply NONE if nothing changes. The ledger holds {budget} characters."""

ANSWER = """Your notes about the user:
<notes>
{notes}
</notes>

Answer the user's question using only your notes. Answer briefly with the current value alone.

Question: {question}
Answer:"""


class DictStore:
    """One value per subject; the subject set longest ago is dropped first when the budget is full."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self.store: dict[str, tuple[str, str]] = {}  # casefolded subject -> (subject, value), oldest first

    def reset(self, episode_id: str) -> None:
        self.store = {}

    def render(self) -> str:
        return "\n".join(f"{subject}: {value}" for subject, value in self.store.values()) or "(empty)"

    def ingest(self, session: Session, model: Model) -> Sequence[MemoryOp]:
        conversation = "\n".join(f"{turn.role}: {turn.content}" for turn in session.turns)
        prompt = INGEST.format(notes=self.render(), session=conversation, budget=self.budget)
        reply = model(ChatRequest(({"role": "user", "content": prompt},), max_tokens=120))
        ops: list[MemoryOp] = []
        for line in reply.splitlines():
            if match := _SET.match(line):
                ops.append(self._set(match["subject"].strip(), match["value"].strip()))
            elif (match := _DEL.match(line)) and match["subject"].strip().casefold() in self.store:
                subject, value = self.store.pop(match["subject"].strip().casefold())
                ops.append(MemoryOp("delete", subject, f"{subject}: {value}", None))
        while len(self.render()) > self.budget and self.store:
            key = next(iter(self.store))
            subject, value = self.store.pop(key)
            ops.append(MemoryOp("evict", subject, f"{subject}: {value}", None))
        return ops

    def _set(self, subject: str, value: str) -> MemoryOp:
        key = subject.casefold()
        old = self.store.pop(key, None)
        self.store[key] = (subject, value)  # set now: dropped last
        after = f"{subject}: {value}"
        if old is None:
            return MemoryOp("add", subject, None, after)
        before = f"{old[0]}: {old[1]}"
        return MemoryOp("noop" if old[1] == value else "update", subject, before, after)

    def facts(self) -> Sequence[Fact]:
        return [Fact(subject, f"{subject}: {value}") for subject, value in self.store.values()]

    def answer(self, question: Question, model: Model) -> str:
        prompt = ANSWER.format(notes=self.render(), question=question.text)
        return model(ChatRequest(({"role": "user", "content": prompt},), max_tokens=64))


def factory() -> DictStore:
    return DictStore()
