"""The evidence contract (after Failure-Transparent Agents): STATUS / EVIDENCE / ANSWER / MISSING /
LIMITS / NEXT, and the rule that makes it more than a format: an answer given in a contract is a
success claim, paid only when its EVIDENCE supports it (holds the answer's value).

Where a reply's answer is, is the grader's business alone (one reader for every driver:
:func:`supersede_env.core.grader.place.answer_place`, which also reads STATUS, MISSING and LIMITS
doubts and keeps the EVIDENCE). This module says what the policy's form asks of a reply: the answer
form the grader must read it in, whether the reply is well formed (all six fields present), and
whether its evidence supports its answer (:func:`evidence_support`).

FTA's finding (unsupported success claims 22.8% -> 0.8%) comes from a report whose evidence is
graded for support; a contract whose EVIDENCE says ``none`` while its STATUS says FOUND is exactly
the unsupported claim it counts.
"""

from __future__ import annotations

import re

from supersede_env.core.conditions import Condition
from supersede_env.core.grader.place import contract_fields

FIELDS = ("status", "evidence", "answer", "missing", "limits", "next")
UNSUPPORTED = "unsupported success claim"  # how a verdict's reason begins when the rule refused the answer


def answer_form(condition: Condition) -> str:
    """The grader's ``form`` for replies under ``condition``: ``contract`` requires the ANSWER field."""
    return "contract" if condition.policy == "contract" else "any"


def well_formed(condition: Condition, reply: str) -> bool:
    """Does ``reply`` follow its policy's form? Plain replies always do; contract replies when all
    six fields are present."""
    if condition.policy != "contract":
        return True
    return set(FIELDS) <= {name for name, _ in contract_fields(reply)}


def evidence_support(evidence: str, values: tuple[str, ...], rivals: tuple[str, ...] = ()) -> str | None:
    """Why ``evidence`` does not support an answer stating one of ``values``; None when it does.

    Support: the evidence holds the value (quoted from the notes, or a session's words). ``none``, an
    empty field, or evidence about something else supports nothing; nor does naming a session alone
    ("none in session 2" names one too): what the grader cannot check is not support. Nor is evidence
    whose latest entry holds one of ``rivals`` instead (:func:`evidence_latest_rival`).
    """
    from supersede_env.core.memo_state import memo_contains  # the diagnostics' own "holds the value"

    text = evidence.strip()
    if not text or re.fullmatch(r"\W*(?:none|nothing|n/?a|no evidence|-)?\W*", text, re.I):
        return "its EVIDENCE is empty" if not text else f"its EVIDENCE is {text[:20]!r}"
    if not any(value and memo_contains(text, value) for value in values):
        return "its EVIDENCE does not hold the value it answers"
    if (rival := evidence_latest_rival(text, values, rivals)) is not None:
        return f"its EVIDENCE's latest entry holds {rival!r}"
    return None


# a quoted entry of an EVIDENCE field, the session it names, and words that make an entry the latest
_QUOTED = re.compile(r'"([^"\n]*)"|“([^”\n]*)”')
_SESSION = re.compile(r"\bsession\s*#?\s*(\d+)", re.I)
_LATEST = re.compile(r"\b(?:latest|most recent|newest|current|currently|now)\b", re.I)
_HISTORY = re.compile(r"\b(?:replac\w*|supersed\w*|old|older|previous|previously|earlier|former|formerly|before|"
                      r"outdated|used to|was|from)\b", re.I)
_ENTRY_BREAK = re.compile(r"[;,\n]")


def evidence_latest_rival(evidence: str, values: tuple[str, ...], rivals: tuple[str, ...]) -> str | None:
    """The rival value that the latest quoted entry of ``evidence`` holds instead of the answer's, or None.

    An EVIDENCE that quotes the notes in order ('session 2: "city: Busan"; session 5: "city: Seoul"') says
    which value is current: the entry marked latest ("(latest)", "now"), else the highest session named
    when every entry names one, else the last written. When that entry holds a rival and not the answer,
    the evidence contradicts the answer it is given for."""
    from supersede_env.core.memo_state import memo_contains

    quotes = list(_QUOTED.finditer(evidence))
    entries = []  # (session or None, marked latest, what it holds: the answer, a rival)
    for i, q in enumerate(quotes):
        before = evidence[quotes[i - 1].end() if i else 0:q.start()]
        after = evidence[q.end():quotes[i + 1].start() if i + 1 < len(quotes) else len(evidence)]
        if i:  # the words between two quotes: up to the first break belong to the earlier one
            before = _ENTRY_BREAK.split(before, 1)[-1]
        after = _ENTRY_BREAK.split(after, 1)[0]
        quoted = q.group(1) if q.group(1) is not None else q.group(2)
        answer = any(value and memo_contains(quoted, value) for value in values)
        rival = next((r for r in rivals if r and memo_contains(quoted, r)), None)
        if (answer or rival is not None) and not _HISTORY.search(before + " " + after):  # 'replacing "city: X"'
            session = _SESSION.search(before + " " + after)
            entries.append((int(session.group(1)) if session else None,
                            bool(_LATEST.search(before + " " + after + " " + quoted)), answer, rival))
    if len(entries) < 2:
        return None
    marked = [e for e in entries if e[1]]
    if marked:
        latest = marked[-1]
    elif all(e[0] is not None for e in entries):
        latest = max(entries, key=lambda e: e[0])
    else:
        latest = entries[-1]
    return latest[3] if not latest[2] else None
