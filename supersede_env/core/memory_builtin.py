"""The built-in memory systems, on the contract of :mod:`supersede_env.core.memory_system`: coroutine
systems, run on the event loop like the rollouts.

- :class:`RagSystem` (``rag:B``, ``rag:B:turns``): code archives the raw sessions, each one a
  passage (``:turns``: each turn a passage), headed by its session's date. No model call while
  ingesting. At question time the BM25 top passages for the question that fit in B characters
  (:func:`supersede_env.core.retrieval.select`), in date order, are the model's only context. It
  exposes no store: the archive is the raw text, never superseded.
- :class:`NotesSystem` (``memo``, ``ledger``, ``ledger-ops``): the memo modes on the contract,
  with the rollout's own prompts and notes rule.
- :class:`FactsSystem` (``facts:B``): FEB-30's system-under-test shape. After each session the model
  sees the store (one ``fN: fact`` line each) and the session and replies with operations::

      ADD: fact            a new fact (code gives it the next id)
      UPDATE fN: fact      new text for fact fN
      DELETE fN            remove fact fN
      NOOP [fN]            nothing changes (with an id: fN is repeated, unchanged)

  Code parses and applies them in order and records each one (lenient like the ledger: list markers
  and case are ignored; an operation on an unknown id, or any other line, is ignored and counted,
  never guessed at). Budget: the rendered store must fit in B characters; while it does not, the
  fact written longest ago is evicted (recorded as ``evict``); a single fact longer than the whole
  budget is cut. The answer sees the store alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from supersede_env.core import ledger, notes, prompts, retrieval
from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Session, session_text
from supersede_env.core.memory_system import AsyncModel, Fact, MemoryOp, Question
from supersede_env.core.model_call import ChatRequest
from supersede_env.core.rollout import update_notes


class RagSystem:
    """Raw sessions archived by code; BM25 passages within the budget at question time."""

    def __init__(self, condition: Condition) -> None:
        self.condition = condition
        self.passages: list[retrieval.Passage] = []

    def reset(self, episode_id: str) -> None:
        self.passages = []

    async def ingest(self, session: Session, model: AsyncModel) -> Sequence[MemoryOp]:
        self.archive(session)
        return ()

    def archive(self, session: Session) -> None:
        """Add ``session``'s passages (no model call: ``ingest`` is this)."""
        header = f"({session.date})\n" if session.date else ""
        if self.condition.passages == "turns":
            texts = [f"{header}{turn.role}: {turn.content}" for turn in session.turns]
        else:
            texts = [header + session_text(session)]
        for text in texts:
            self.passages.append(retrieval.Passage(len(self.passages), text))

    def context(self, question: str) -> str:
        return retrieval.render(retrieval.select(self.passages, question, self.condition.budget or 0))

    async def answer(self, question: Question, model: AsyncModel) -> str:
        messages = prompts.retrieved_answer_messages(self.condition, self.context(question.text), question.text,
                                                     question.date)
        return await model(ChatRequest(messages, self.condition.answer_max_tokens))


# -- facts ------------------------------------------------------------------------------------------
_LIST_MARK = r"^\s*(?:[-*\u2022]\s*|\d+[.)]\s*)?"
_ADD = re.compile(_LIST_MARK + r"add\b\s*:?\s*(?P<text>.+)$", re.I)
_UPDATE = re.compile(_LIST_MARK + r"update\s+\[?(?P<id>f\d+)\]?\s*:?\s*(?P<text>.+)$", re.I)
_DELETE = re.compile(_LIST_MARK + r"(?:delete|del|remove)\s+\[?(?P<id>f\d+)\]?\.?\s*$", re.I)
_NOOP = re.compile(_LIST_MARK + r"(?:noop|none|no changes?|nothing)\b\.?\s*(?:\[?(?P<id>f\d+)\]?)?\.?\s*$", re.I)


@dataclass(frozen=True)
class FactOp:
    verb: str  # add | update | delete | noop
    fact_id: str | None
    text: str = ""


def parse_fact_ops(text: str) -> tuple[list[FactOp], int]:
    """The operations in a reply, and how many non-empty lines were not operations."""
    ops: list[FactOp] = []
    ignored = 0
    for raw in text.splitlines():
        line = raw.strip().strip("`")
        if not line:
            continue
        if match := _UPDATE.match(line):
            ops.append(FactOp("update", match["id"].lower(), match["text"].strip()))
        elif match := _DELETE.match(line):
            ops.append(FactOp("delete", match["id"].lower()))
        elif match := _NOOP.match(line):
            ops.append(FactOp("noop", match["id"].lower() if match["id"] else None))
        elif match := _ADD.match(line):
            ops.append(FactOp("add", None, match["text"].strip()))
        else:
            ignored += 1
    return ops, ignored


def render_store(facts: Sequence[Fact]) -> str:
    return "\n".join(f"{fact.id}: {fact.text}" for fact in facts)


@dataclass(frozen=True)
class StoreUpdate:
    facts: tuple[Fact, ...]
    ops: tuple[MemoryOp, ...]
    ignored: int
    next_id: int


def apply_fact_ops(facts: Sequence[Fact], ops: Sequence[FactOp], *, budget: int, next_id: int) -> StoreUpdate:
    """Apply ``ops`` in order (facts are kept oldest-written first), then enforce the budget."""
    current = list(facts)
    done: list[MemoryOp] = []
    ignored = 0
    for op in ops:
        index = next((i for i, f in enumerate(current) if f.id == op.fact_id), None)
        if op.verb == "add":
            fact = Fact(f"f{next_id}", op.text)
            next_id += 1
            current.append(fact)
            done.append(MemoryOp("add", fact.id, None, fact.text))
        elif op.verb == "noop":
            if op.fact_id is not None and index is None:
                ignored += 1
            elif index is not None:
                done.append(MemoryOp("noop", op.fact_id, current[index].text, current[index].text))
        elif index is None:
            ignored += 1  # an update or delete of a fact that is not there: not guessed at
        elif op.verb == "update":
            old = current.pop(index)
            current.append(Fact(old.id, op.text))  # rewritten now: evicted last
            done.append(MemoryOp("update", old.id, old.text, op.text))
        else:
            old = current.pop(index)
            done.append(MemoryOp("delete", old.id, old.text, None))
    while current and len(render_store(current)) > budget:
        if len(current) == 1:
            only = current[0]
            room = budget - len(f"{only.id}: ")
            current = [Fact(only.id, only.text[:room])] if room > 0 else []
            done.append(MemoryOp("evict", only.id, only.text, current[0].text if current else None))
            break
        evicted = current.pop(0)
        done.append(MemoryOp("evict", evicted.id, evicted.text, None))
    return StoreUpdate(tuple(current), tuple(done), ignored, next_id)


class FactsSystem:
    """A store of facts the model edits with ADD / UPDATE / DELETE / NOOP; code applies and bounds it."""

    def __init__(self, condition: Condition) -> None:
        self.condition = condition
        self.store: tuple[Fact, ...] = ()
        self.next_id = 1
        self.ignored_lines = 0

    def reset(self, episode_id: str) -> None:
        self.store, self.next_id, self.ignored_lines = (), 1, 0

    async def ingest(self, session: Session, model: AsyncModel) -> Sequence[MemoryOp]:
        messages = prompts.facts_update_messages(self.condition, render_store(self.store), session)
        reply = await model(ChatRequest(messages, self.condition.memo_max_tokens))
        ops, ignored = parse_fact_ops(notes.strip_reasoning(reply))
        result = apply_fact_ops(self.store, ops, budget=self.condition.budget or 0, next_id=self.next_id)
        self.store, self.next_id = result.facts, result.next_id
        self.ignored_lines += ignored + result.ignored
        return result.ops

    def facts(self) -> Sequence[Fact]:
        return self.store

    async def answer(self, question: Question, model: AsyncModel) -> str:
        messages = prompts.notes_answer_messages(self.condition, render_store(self.store), question.text, None)
        return await model(ChatRequest(messages, self.condition.answer_max_tokens))


# -- the memo modes on the contract ------------------------------------------------------------------
def ledger_memory_ops(before: Sequence[ledger.LedgerLine], reply: str, after: Sequence[ledger.LedgerLine],
                      date: str | None) -> tuple[MemoryOp, ...]:
    """The operations a ``ledger-ops`` reply performed on the ledger ``before``, ending in ``after``:
    ``SET`` of a new topic is an add, of a topic already there an update (a noop when the value is the
    same), ``DEL`` of a topic there a delete, and lines the budget pushed out are evictions."""
    parsed, _ = ledger.parse_ops(notes.strip_reasoning(reply))
    current = {line.topic.casefold(): line for line in before}
    ops: list[MemoryOp] = []
    for op in parsed:
        key = op.topic.casefold()
        old = current.get(key)
        if op.verb == "set":
            new = ledger.LedgerLine(op.topic, op.value, date)
            kind = "add" if old is None else ("noop" if old.value == op.value else "update")
            ops.append(MemoryOp(kind, op.topic, old.render() if old else None, new.render()))  # type: ignore[arg-type]
            current[key] = new
        elif old is not None:
            ops.append(MemoryOp("delete", op.topic, old.render(), None))
            del current[key]
    kept = {line.topic.casefold() for line in after}
    return tuple(ops) + tuple(MemoryOp("evict", line.topic, line.render(), None)
                              for key, line in current.items() if key not in kept)


class NotesSystem:
    """``memo``, ``ledger`` and ``ledger-ops`` on the contract: the rollout's own prompts and notes rule
    (:func:`supersede_env.core.rollout.update_notes`), so a run of it sends the very prompts the
    rollout sends. The harness, the verifiers environment and the trainer drive these modes through
    the rollout state machine (batched); this is the same memory for code written against the contract."""

    def __init__(self, condition: Condition) -> None:
        if not condition.is_memo:
            raise ValueError(f"{condition} is not a memo mode (memo, ledger or ledger-ops)")
        self.condition = condition
        self.notes = ""
        self.lines: tuple[ledger.LedgerLine, ...] = ()

    def reset(self, episode_id: str) -> None:
        self.notes, self.lines = "", ()

    async def ingest(self, session: Session, model: AsyncModel) -> Sequence[MemoryOp]:
        messages = prompts.memo_step_messages(self.condition, self.notes, session)
        reply = await model(ChatRequest(messages, self.condition.memo_max_tokens))
        update = update_notes(self.condition, self.notes, self.lines, session, reply)
        ops: tuple[MemoryOp, ...] = ()
        if self.condition.mode == "ledger-ops":
            date = notes.short_date(session.date) if self.condition.dates else None
            ops = ledger_memory_ops(self.lines, reply, update.lines, date)
        self.notes, self.lines = update.notes, update.lines
        return ops

    def facts(self) -> Sequence[Fact]:
        return [Fact(str(i + 1), line.strip()) for i, line in enumerate(self.notes.splitlines()) if line.strip()]

    async def answer(self, question: Question, model: AsyncModel) -> str:
        messages = prompts.notes_answer_messages(self.condition, self.notes, question.text, question.date)
        return await model(ChatRequest(messages, self.condition.answer_max_tokens))


def builtin_system(condition: Condition) -> RagSystem | FactsSystem:
    """A fresh built-in system for ``condition`` (``rag`` or ``facts``)."""
    if condition.mode == "rag":
        return RagSystem(condition)
    if condition.mode == "facts":
        return FactsSystem(condition)
    raise ValueError(f"{condition} is not a built-in memory system (rag or facts)")
