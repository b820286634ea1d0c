"""The code-kept ledger of the ``ledger-ops`` mode.

The replication's hypothesis for long conversations: code should store the lines and the model
should emit only the lines that change. The model replies with operations::

    SET topic: value      new topic, or new value for an existing topic (matched case-insensitively)
    DEL topic             remove a topic
    NONE                  nothing changes

Lenient on purpose (small models): list markers and case are ignored, and a bare ``topic: value``
line counts as SET. Any other line is ignored and counted, never guessed at.

Budget policy: the rendered ledger (one ``topic: value`` line each, plus `` (date)`` when dates
are shown) must fit in the budget. While it does not, the line set longest ago is evicted (least
recently set first; a SET of an existing topic refreshes it). A single line longer than the whole
budget is cut to the budget. Evicted and cut characters are reported as ``chars_cut``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OP = re.compile(r"^\s*(?:[-*\u2022]\s*|\d+[.)]\s*)?(?P<verb>set|del|delete|remove)\b\s*:?\s*(?P<rest>.*)$", re.I)
_BARE = re.compile(r"^\s*(?:[-*\u2022]\s*|\d+[.)]\s*)?(?P<topic>[^:]{1,60}):\s*(?P<value>.+)$")
_NONE = re.compile(r"^\s*(?:none|no changes?|nothing)\.?\s*$", re.I)


@dataclass(frozen=True)
class LedgerLine:
    topic: str
    value: str
    date: str | None = None

    def render(self) -> str:
        return f"{self.topic}: {self.value}" + (f" ({self.date})" if self.date else "")


@dataclass(frozen=True)
class LedgerOp:
    verb: str  # "set" | "del"
    topic: str
    value: str = ""


@dataclass(frozen=True)
class LedgerUpdate:
    lines: tuple[LedgerLine, ...]
    ops: tuple[LedgerOp, ...]
    ignored_lines: int
    chars_cut: int


def parse_ops(text: str) -> tuple[list[LedgerOp], int]:
    """Operations in a model reply, and how many non-empty lines were not operations."""
    ops: list[LedgerOp] = []
    ignored = 0
    for raw in text.splitlines():
        line = raw.strip().strip("`")
        if not line or _NONE.match(line):
            continue
        match = _OP.match(line)
        if match:
            verb = "set" if match["verb"].lower() == "set" else "del"
            rest = match["rest"].strip()
            if verb == "set":
                topic, sep, value = rest.partition(":")
                if sep and topic.strip() and value.strip():
                    ops.append(LedgerOp("set", topic.strip(), value.strip()))
                    continue
            elif rest:
                ops.append(LedgerOp("del", rest.rstrip(".").strip()))
                continue
            ignored += 1
            continue
        bare = _BARE.match(line)
        if bare:
            ops.append(LedgerOp("set", bare["topic"].strip(), bare["value"].strip()))
        else:
            ignored += 1
    return ops, ignored


def render(lines: tuple[LedgerLine, ...] | list[LedgerLine]) -> str:
    return "\n".join(line.render() for line in lines)


def apply_ops(
    lines: tuple[LedgerLine, ...], ops: list[LedgerOp], *, budget: int, date: str | None = None
) -> tuple[tuple[LedgerLine, ...], int]:
    """Apply operations in order, then enforce the budget. Lines are kept oldest-set first."""
    current = list(lines)
    for op in ops:
        key = op.topic.casefold()
        current = [line for line in current if line.topic.casefold() != key]
        if op.verb == "set":
            current.append(LedgerLine(op.topic, op.value, date))
    before = len(render(current))
    while current and len(render(current)) > budget:
        if len(current) == 1:
            only = current[0]
            overflow = len(only.render()) - budget
            value = only.value[: max(0, len(only.value) - overflow)]
            current = [LedgerLine(only.topic, value, only.date)]
            if len(render(current)) > budget:  # topic and date alone exceed the budget
                current = []
            break
        current.pop(0)
    return tuple(current), before - len(render(current))


def update(lines: tuple[LedgerLine, ...], reply: str, *, budget: int, date: str | None = None) -> LedgerUpdate:
    ops, ignored = parse_ops(reply)
    new_lines, cut = apply_ops(lines, ops, budget=budget, date=date)
    return LedgerUpdate(lines=new_lines, ops=tuple(ops), ignored_lines=ignored, chars_cut=cut)
