"""What a prompt asks for, read from its text alone (the reference policies see nothing else).

supersede-env sends two kinds of prompt (:mod:`supersede_env.core.prompts`):

- a **memo step**: the current notes in ``<notes>...</notes>``, one new session in
  ``<conversation>...</conversation>``, and the budget ("cut off after 300 characters", or for the
  code-kept ledger "The ledger holds 300 characters", the fact store "The store holds 300 characters");
  the ledger-ops prompt asks for ``SET`` lines, the ``facts`` prompt for ``ADD`` / ``UPDATE`` lines;
- an **answer step**: the notes (``<notes>``), the whole history (``### Session N:`` blocks) or the
  passages ``rag`` retrieved (``<passages>``), then
  ``Question: ...`` and ``Answer:``; the evidence contract adds the four-line ``STATUS:`` form.

:func:`read_prompt` returns a :class:`MemoStep` or an :class:`AnswerStep`, or None for any other
prompt (a judge's, a chat message): a reference policy answers only what the environment asks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_EMPTY_NOTES = "(empty)"
_BUDGET = re.compile(r"(?:cut off after|ledger holds|store holds) (\d+) characters")
_QUESTION = re.compile(r"\nQuestion: (?P<question>[^\n]*)\nAnswer:\s*$")


@dataclass(frozen=True)
class MemoStep:
    """Rewrite (or, for ``ledger-ops``, edit) the notes after one new session."""

    notes: str  # "" when the prompt shows "(empty)"
    conversation: str  # the session as "role: text" lines
    budget: int
    form: Literal["memo", "ledger", "ledger-ops", "facts"]


@dataclass(frozen=True)
class AnswerStep:
    """Answer ``question`` from ``evidence``: the notes, or the full history."""

    question: str
    evidence: str
    source: Literal["notes", "history"]
    contract: bool  # the four-line STATUS / EVIDENCE / ANSWER / MISSING form is asked for


def read_prompt(text: str) -> MemoStep | AnswerStep | None:
    """The step a supersede-env prompt asks for, or None when ``text`` is not one."""
    if "<conversation>" in text and "</conversation>" in text and "<notes>" in text:
        budget = _BUDGET.search(text)
        if budget is None:
            return None
        form: Literal["memo", "ledger", "ledger-ops", "facts"] = (
            "ledger-ops" if "SET topic" in text else "facts" if "UPDATE id:" in text
            else "ledger" if "ledger" in text else "memo")
        return MemoStep(_notes(text), _between(text, "<conversation>", "</conversation>"), int(budget[1]), form)
    question = _QUESTION.search(text)
    if question is None:
        return None
    contract = "STATUS:" in text
    if "<passages>" in text and "</passages>" in text:  # rag: retrieved turns, read as the history is
        return AnswerStep(question["question"].strip(), _between(text, "<passages>", "</passages>"), "history",
                          contract)
    if "<notes>" in text and "</notes>" in text:
        return AnswerStep(question["question"].strip(), _notes(text), "notes", contract)
    start = text.find("### Session")
    if start < 0:
        return None
    end = text.rfind("\nCurrent Date:")
    history = text[start:end if end > start else question.start()]
    return AnswerStep(question["question"].strip(), history.strip(), "history", contract)


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].rsplit(end, 1)[0].strip("\n")


def _notes(text: str) -> str:
    notes = text.split("<notes>", 1)[1].split("</notes>", 1)[0].strip("\n")
    return "" if notes.strip() == _EMPTY_NOTES else notes
