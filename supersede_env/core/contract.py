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
from typing import NamedTuple

from supersede_env.core.conditions import Condition
from supersede_env.core.grader.place import contract_fields
from supersede_env.core.grader.roles import cues_in
from supersede_env.core.grader.tokens import normalise_text, tokenize

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
    if (frame := _framed(text, values)) is not None:
        return f"its EVIDENCE gives the value as a plan or someone else's ({frame!r})"
    if (rival := evidence_latest_rival(text, values, rivals)) is not None:
        return f"its EVIDENCE's latest entry holds {rival!r}"
    return None


# the cue kinds that make a quoted value other than the user's fact: a plan or a what-if, someone else's
_NOT_A_FACT = frozenset({"hypo", "other"})


def _framed(evidence: str, values: tuple[str, ...]) -> str | None:
    """The cue of a plan or of someone else in every quoted entry of ``evidence`` that holds the value
    ('session 4: "thinking about Porto"', '"my sister moved to Porto"'), or None: such a quote states no
    fact of the user's. Unquoted evidence is the reply's own words, read as a whole."""
    from supersede_env.core.memo_state import memo_contains

    quotes = [q.group(1) if q.group(1) is not None else q.group(2) for q in _QUOTED.finditer(evidence)] or [evidence]
    frames = []
    for quoted in quotes:
        if not any(value and memo_contains(quoted, value) for value in values):
            continue
        hit = next((h for h in cues_in(tokenize(normalise_text(quoted))) if h.cue.kind in _NOT_A_FACT), None)
        if hit is None:
            return None  # one entry states it plainly
        frames.append(" ".join(hit.cue.words))
    return frames[0] if frames else None


# a quoted entry of an EVIDENCE field, the session it names, and words that make an entry the latest
_QUOTED = re.compile(r'"([^"\n]*)"|“([^”\n]*)”')
_SESSION = re.compile(r"\bsession\s*#?\s*(\d+)", re.I)
_LATEST = re.compile(r"\b(?:latest|most recent|newest|current|currently|now)\b", re.I)
_HISTORY = re.compile(r"\b(?:replac\w*|supersed\w*|old|older|previous|previously|earlier|former|formerly|before|"
                      r"outdated|used to|was|from)\b", re.I)
_ENTRY_BREAK = re.compile(r"[;,\n]")


class _Entry(NamedTuple):
    """One quoted entry of an EVIDENCE field that holds a candidate."""

    session: int | None  # the session it names ('session 5: "..."', '"..." (session 5)')
    latest: bool  # marked latest after it or in its words ('"city: Busan" (latest)', '"city: Busan now"')
    answer: bool  # it holds the answer's value
    rival: str | None  # the rival value it holds, if any


def evidence_latest_rival(evidence: str, values: tuple[str, ...], rivals: tuple[str, ...]) -> str | None:
    """The rival value that the latest quoted entry of ``evidence`` holds instead of the answer's, or None.

    An EVIDENCE that quotes the notes in order ('session 2: "city: Busan"; session 5: "city: Seoul"') says
    which value is current: the entry marked latest ("(latest)", "now"), else the highest session named
    when every entry names one, else the last written. An entry marked history ('replacing "city: X"')
    is none of them. When the latest holds a rival and not the answer, the evidence contradicts the
    answer it is given for."""
    entries = _entries(evidence, values, rivals)
    if len(entries) < 2:
        return None
    if marked := [e for e in entries if e.latest]:
        latest = marked[-1]
    elif all(e.session is not None for e in entries):
        latest = max(entries, key=lambda e: e.session or 0)
    else:
        latest = entries[-1]
    return None if latest.answer else latest.rival


def _entries(evidence: str, values: tuple[str, ...], rivals: tuple[str, ...]) -> list[_Entry]:
    """The quoted entries of ``evidence`` that hold a candidate and are not marked history, in order. The
    words between two quotes up to the first break (``;``, ``,``, a line break) are the earlier one's."""
    from supersede_env.core.memo_state import memo_contains  # the diagnostics' own "holds the value"

    rivals = tuple(r for r in rivals if r and memo_contains(evidence, r))  # most evidence holds none: done
    quotes = list(_QUOTED.finditer(evidence)) if rivals else []
    entries = []
    for i, q in enumerate(quotes):
        before = _ENTRY_BREAK.split(evidence[quotes[i - 1].end() if i else 0:q.start()])[-1]
        after = _ENTRY_BREAK.split(evidence[q.end():quotes[i + 1].start() if i + 1 < len(quotes) else None], 1)[0]
        quoted = q.group(1) if q.group(1) is not None else q.group(2)
        answer = any(value and memo_contains(quoted, value) for value in values)
        rival = next((r for r in rivals if r and memo_contains(quoted, r)), None)
        if (answer or rival is not None) and not _HISTORY.search(f"{before} {after}"):
            session = _SESSION.search(f"{before} {after}")
            entries.append(_Entry(int(session.group(1)) if session else None, bool(_LATEST.search(f"{after} {quoted}")),
                                  answer, rival))
    return entries
