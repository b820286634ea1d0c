"""Superseded values of the 78 LongMemEval knowledge-update questions (annotated by this project).

The LongMemEval release gives each knowledge-update question its current answer, never the value
that answer replaced, so on the real benchmark a grader cannot tell a stale answer from a wrong one.
``supersede_env/data/longmemeval_ku_superseded.jsonl`` (data card: ``data/longmemeval.md``) holds,
per question id, what this project read in the evidence sessions:

- an *annotated* item: the asked ``slot`` (a name), its ``superseded`` values oldest first and its
  ``current`` value, each a :class:`Mention`: the value, the haystack ``session_id``, the ``turn``
  index (0-based, in the session's turn list, assistant turns included) and a ``span`` copied
  verbatim from that turn. A value is a substring of its span unless ``derived`` says how it
  follows from it (``No`` from "she's still stuck on her old paper list");
- a *listed* item: no superseded value and a ``reason`` (the question asks the earlier value, the
  gold names both values, a count grew with no earlier figure, an abstention item), with the
  ``evidence`` read.

:func:`annotate` attaches an annotation to one item of any LongMemEval file with these question
ids, checking it against that item first (:func:`check_item`): every span must occur in its named
turn and every superseded value must be stated in a session dated before the current value's. An
annotation that fails (the ``_s`` file dates the two evidence sessions of ``618f13b2`` the wrong way
round) is withheld from that file, and the episode's ``meta`` says why. The LongMemEval reader calls
it (:mod:`supersede_env.core.longmemeval`, which also checks a whole file:
``check_annotations``); ``python -m supersede_env.commands.annotations check FILE...`` prints those
checks and ``... show QUESTION_ID --path FILE`` an item's evidence turns, for annotating.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from supersede_env.core.errors import AnnotationError
from supersede_env.core.episode import GoldState, Session, SlotOp
from supersede_env.core.jsonl import json_lines

RESOURCE = "data/longmemeval_ku_superseded.jsonl"  # inside the supersede_env package
RIVAL_GOLD_WORDS = 8  # a longer gold is an explanation, not one value


@dataclass(frozen=True)
class Mention:
    """Where a value is stated: a verbatim ``span`` of turn ``turn`` of session ``session_id``."""

    value: str
    session_id: str
    turn: int
    span: str
    derived: str | None = None  # how the value follows from the span when it is not a substring of it


@dataclass(frozen=True)
class Annotation:
    question_id: str
    superseded: tuple[Mention, ...]  # oldest first; empty on a listed item
    current: Mention | None  # where the current (gold) value is stated; annotated items only
    slot: str | None  # the asked slot's name; annotated items only
    reason: str | None  # why there is no superseded value; listed items only
    evidence: tuple[Mention, ...] = ()  # what was read for a listed item
    note: str | None = None

    @property
    def stale_values(self) -> tuple[str, ...]:
        return tuple(m.value for m in self.superseded)

    def mentions(self) -> tuple[Mention, ...]:
        return (*self.superseded, *((self.current,) if self.current else ()), *self.evidence)


@dataclass(frozen=True)
class Attachment:
    """What :func:`annotate` adds to one episode."""

    stale_values: tuple[str, ...]
    slot: str | None
    states: tuple[GoldState, ...] | None
    meta: Mapping[str, Any]


# -- reading ---------------------------------------------------------------------------------
def annotations_path() -> Path:
    """The annotation file shipped with the package (also linked from the repository's ``data/``)."""
    return Path(str(resources.files("supersede_env").joinpath(RESOURCE)))


@lru_cache(maxsize=1)
def _shipped() -> Mapping[str, Annotation]:
    return read_annotations(annotations_path())


def load_annotations(path: str | Path | None = None) -> Mapping[str, Annotation]:
    """question id -> annotation, from ``path`` or the shipped file (read once, then cached)."""
    return _shipped() if path is None else read_annotations(path)


def read_annotations(path: str | Path) -> dict[str, Annotation]:
    out: dict[str, Annotation] = {}
    for where, _, raw in json_lines(path, AnnotationError):
        annotation = _parse(raw, where)
        if annotation.question_id in out:
            raise AnnotationError(f"{where}: item {annotation.question_id}: field question_id: duplicate")
        out[annotation.question_id] = annotation
    return out


def _parse(raw: Any, where: str) -> Annotation:
    if not isinstance(raw, Mapping):
        raise AnnotationError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    qid = raw.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise AnnotationError(f"{where}: field question_id: expected a non-empty string")
    known = {"question_id", "slot", "superseded", "current", "reason", "evidence", "note"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise AnnotationError(f"{where}: item {qid}: field {unknown[0]}: unknown field")

    def fail(fieldname: str, problem: str) -> AnnotationError:
        return AnnotationError(f"{where}: item {qid}: field {fieldname}: {problem}")

    def text(key: str) -> str | None:
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise fail(key, "expected a non-empty string")
        return value

    def mentions(key: str) -> tuple[Mention, ...]:
        value = raw.get(key, [])
        if not isinstance(value, list):
            raise fail(key, "expected a list")
        return tuple(_mention(m, f"{key}[{i}]", fail) for i, m in enumerate(value))

    superseded = mentions("superseded")
    current = None if raw.get("current") is None else _mention(raw["current"], "current", fail)
    slot, reason = text("slot"), text("reason")
    if superseded:
        if current is None or slot is None:
            raise fail("current" if current is None else "slot", "missing on an item with superseded values")
        if reason is not None:
            raise fail("reason", "only an item without superseded values gives a reason")
        for i, m in enumerate(superseded):
            if m.value.casefold() == current.value.casefold():
                raise fail(f"superseded[{i}].value", f"{m.value!r} is the current value")
    elif reason is None:
        raise fail("reason", "an item without superseded values must say why")
    return Annotation(qid, superseded, current, slot, reason, mentions("evidence"), text("note"))


def _mention(raw: Any, fieldname: str, fail: Any) -> Mention:
    if not isinstance(raw, Mapping):
        raise fail(fieldname, "expected an object with value, session_id, turn, span")
    for key in ("value", "session_id", "span"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise fail(f"{fieldname}.{key}", "expected a non-empty string")
    turn = raw.get("turn")
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        raise fail(f"{fieldname}.turn", f"expected a turn index (an integer >= 0), got {turn!r}")
    derived = raw.get("derived")
    if derived is not None and (not isinstance(derived, str) or not derived.strip()):
        raise fail(f"{fieldname}.derived", "expected a non-empty string")
    if derived is None and raw["value"].casefold() not in raw["span"].casefold():
        raise fail(f"{fieldname}.value", f"{raw['value']!r} is not in its span (say how it is derived)")
    return Mention(raw["value"], raw["session_id"], turn, raw["span"], derived)


# -- checking against a LongMemEval item ------------------------------------------------------
def check_item(annotation: Annotation, item: Mapping[str, Any], haystack_dates: Sequence[datetime]) -> list[str]:
    """Problems of ``annotation`` against one validated LongMemEval item (empty when it holds);
    ``haystack_dates`` are the item's session dates, parsed, in haystack order.

    Every span must occur verbatim in its named turn; every superseded value must be stated in a
    session dated strictly before the current value's session.
    """
    ids: list[str] = item["haystack_session_ids"]
    problems: list[str] = []
    dates: dict[str, datetime] = {}
    for m in annotation.mentions():
        if ids.count(m.session_id) != 1:
            problems.append(f"session {m.session_id} occurs {ids.count(m.session_id)} times in the item")
            continue
        k = ids.index(m.session_id)
        dates[m.session_id] = haystack_dates[k]
        turns = item["haystack_sessions"][k]
        if m.turn >= len(turns):
            problems.append(f"session {m.session_id} has no turn {m.turn}")
        elif m.span not in turns[m.turn]["content"]:
            problems.append(f"span {m.span!r} is not in session {m.session_id} turn {m.turn}")
    current = annotation.current
    if annotation.superseded and current is not None and current.session_id in dates:
        for m in annotation.superseded:
            if m.session_id in dates and not dates[m.session_id] < dates[current.session_id]:
                problems.append(f"superseded {m.value!r} (session {m.session_id}, "
                                f"{dates[m.session_id]:%Y-%m-%d %H:%M}) is not dated before the current value "
                                f"(session {current.session_id}, {dates[current.session_id]:%Y-%m-%d %H:%M})")
    return problems


def annotate(item: Mapping[str, Any], haystack_dates: Sequence[datetime], sessions: Sequence[Session],
             annotations: Mapping[str, Annotation] | None = None) -> Attachment:
    """Stale values, slot, gold states and a ``meta`` note for one item, given its parsed session dates
    (haystack order) and its built sessions.

    ``sessions`` are the episode's sessions (date order, empty ones dropped) with their ids. States
    are built only where every value is verbatim in its span (a derived "No" is an answer, not
    something a memo would hold).
    """
    table = load_annotations() if annotations is None else annotations
    annotation = table.get(item["question_id"])
    if annotation is None:
        return Attachment((), None, None, {})
    if not annotation.superseded:
        meta: dict[str, Any] = {"stale_annotation": f"none: {annotation.reason}"}
        rivals = evidence_rivals(annotation, str(item["answer"]), str(item["question"]))
        if rivals and not check_item(annotation, item, haystack_dates):
            meta["rivals"] = list(rivals)
        return Attachment((), None, None, meta)
    problems = check_item(annotation, item, haystack_dates)
    if problems:
        return Attachment((), None, None, {"stale_annotation": f"withheld: {problems[0]}"})
    states = None
    if not any(m.derived for m in (*annotation.superseded, annotation.current)):
        states = _states(annotation, sessions)
    return Attachment(annotation.stale_values, annotation.slot, states, {"stale_annotation": "annotated"})


def evidence_rivals(annotation: Annotation, gold: str, question: str) -> tuple[str, ...]:
    """The values a listed item's evidence states that its gold does not hold (the newer status when the
    question asks the previous one, the other trip's catch): not superseded, but rivals an answer must
    not put forward beside the gold (the grader reads them as it reads a synthetic episode's decoys).
    Whether the gold holds a value is the grader's own reading of the gold with that value as the answer.
    A value the question names is its frame, not a rival ("before getting the Air Fryer?"); only a gold
    that is one short value has rivals (an explanation restates its values in other words, and a yes/no
    gold is not a value of the slot)."""
    from supersede_env.core.grader import grade
    from supersede_env.core.grader.gold import parse_gold

    if len(gold.split()) > RIVAL_GOLD_WORDS or parse_gold(gold, None).polarity is not None:
        return ()
    values = (m.value for m in annotation.evidence)
    return tuple(dict.fromkeys(v for v in values if grade(gold, v).label == "wrong" and grade(question, v).label == "wrong"))


def _states(annotation: Annotation, sessions: Sequence[Session]) -> tuple[GoldState, ...]:
    """One gold state per session: the slot's value after it, and what the session did to it."""
    assert annotation.slot is not None and annotation.current is not None
    slot = annotation.slot
    # value in force after each session: the last mention in it (superseded oldest first, then current)
    last_value: dict[str, str] = {}
    for m in (*annotation.superseded, annotation.current):
        last_value[m.session_id] = m.value
    states: list[GoldState] = []
    value: str | None = None
    for session in sessions:
        new = last_value.get(session.id or "")
        op: SlotOp = "none"
        if new is not None:
            op = "create" if value is None else ("update" if new != value else "reinforce")
            value = new
        states.append(GoldState(values={} if value is None else {slot: value}, ops={slot: op}))
    return tuple(states)
