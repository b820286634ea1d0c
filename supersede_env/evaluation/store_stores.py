"""Every store-exposing condition's store after each session, as a list of facts, from a run's records.

- ``memo`` and ``ledger``: the notes after each memo step, one fact per non-empty line; no
  operations are reported (the model rewrites the notes whole);
- ``ledger-ops``: the ledger after each step, one fact per line, and the operations its reply made,
  recomputed from the recorded reply exactly as the rollout applied it
  (:func:`supersede_env.core.memory_builtin.ledger_memory_ops`);
- ``facts`` and a user's ``memory`` system: the memory records (the store it exposed, the operations
  it reported);
- ``full`` and ``rag`` expose no store (the raw text is never superseded) and are not diagnosed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from supersede_env.core import ledger, notes
from supersede_env.core.conditions import Condition
from supersede_env.core.episode import Episode
from supersede_env.core.memory_builtin import ledger_memory_ops
from supersede_env.core.memory_system import MemoryOp
from supersede_env.core.records import MemoryRecord, session_memory
from supersede_env.core.rollout import StepRecord


@dataclass(frozen=True)
class StoreAfter:
    """The store after one session: its facts' texts and, for systems that report them, the operations."""

    facts: tuple[str, ...]
    ops: tuple[MemoryOp, ...] | None


def exposes_store(condition: Condition) -> bool:
    """Whether the diagnostics can open this condition's store (``memory``: when its records hold one)."""
    return condition.is_memo or condition.mode in ("facts", "memory")


def stores_for(episode: Episode, condition: Condition, steps: Sequence[StepRecord],
               memory: Sequence[MemoryRecord]) -> list[StoreAfter] | None:
    """The store after each session (as far as the records go); None when there is none to open."""
    if condition.is_memo:
        memo_steps = [s for s in steps if s.kind == "memo"]
        if condition.mode == "ledger-ops":
            return _ledger_ops_stores(episode, condition, memo_steps)
        return [StoreAfter(_lines(s.notes_after), None) for s in memo_steps]
    if condition.mode in ("facts", "memory"):
        sessions = [session_memory(record) for record in memory]
        if not sessions or any(s.facts is None for s in sessions):
            return None
        return [StoreAfter(tuple(f.text for f in s.facts or ()), s.ops) for s in sessions]
    return None


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _ledger_ops_stores(episode: Episode, condition: Condition, memo_steps: Sequence[StepRecord]) -> list[StoreAfter]:
    out: list[StoreAfter] = []
    lines: tuple[ledger.LedgerLine, ...] = ()
    for index, step in enumerate(memo_steps):
        date = notes.short_date(episode.sessions[index].date) if condition.dates else None
        reply = step.reply or ""
        result = ledger.update(lines, notes.strip_reasoning(reply), budget=condition.for_episode(episode).notes_budget,
                               date=date)
        ops = ledger_memory_ops(lines, reply, result.lines, date)
        lines = result.lines
        out.append(StoreAfter(_lines(step.notes_after), ops))  # the store as recorded
    return out
