"""The answer place: the one reader of where a reply's answer is.

Every driver (the rollout, the evaluation harness, the trainer, the verifiers layer) hands the grader
the whole reply, and :func:`answer_place` alone decides what the answer is; everything else is
evidence, never the answer. In order:

1. reasoning blocks (``<think>...</think>``, an unclosed one too) are removed;
2. a contract reply (``STATUS:`` / ``EVIDENCE:`` / ``ANSWER:`` / ``MISSING:`` / ``LIMITS:`` / ``NEXT:``
   lines) is its ANSWER field(s), and no answer at all without one; a STATUS other than FOUND, a
   MISSING, LIMITS or NEXT field that doubts the answer ("whether this is still current"), or an
   EVIDENCE field that doubts in its own words, is a *doubt* the verdict reports; a STATUS other than FOUND alone, or a MISSING, LIMITS or NEXT field that says anything but
   "nothing", is *unsettled*; its EVIDENCE is kept for the support check
   (:mod:`supersede_env.core.contract`) and read closed-world outside what it quotes
   (:func:`evidence_unread`);
3. a reply that is one JSON object with an ``answer`` key is that value (``null``: no answer); its
   other fields are read after it;
4. ``<answer>...</answer>`` tags are their content, and the text around them is read after it;
5. anything else is the whole reply.

``form="contract"`` (the ``+contract`` policy) requires the ANSWER field: a reply that ignores the
format has no answer. ``outside`` is the text around the place that the form does not account for
(words beside ``<answer>`` tags, JSON fields other than the answer); the strict reward refuses it.
Places over :data:`MAX_ANSWER_CHARS` are read on their last :data:`MAX_ANSWER_CHARS` characters
(where replies conclude) and flagged. Every step is linear in the reply's length.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from supersede_env.core.grader.lexicon import (
    ANSWER_KEYS,
    CAVEAT_FIELDS,
    DOUBT_WORDS,
    EVIDENCE_WORDS,
    TERSE_KNOWN,
    TERSE_KNOWN_STEMS,
)
from supersede_env.core.grader.tokens import PUNCT, WORD, Token, normalise_text, tokenize
from supersede_env.core.notes import strip_reasoning

__all__ = ["MAX_ANSWER_CHARS", "FORMS", "AnswerPlace", "answer_place", "contract_fields", "evidence_unread"]

MAX_ANSWER_CHARS = 4_000  # the longest judged dev answer is 3,832 characters; replies conclude at their end
FORMS = ("any", "contract")


class AnswerPlace(NamedTuple):
    """The text to grade, where it came from, and what else the reply said about it (a named tuple:
    one is built for every grade, and a frozen dataclass takes several times as long to build)."""

    text: str
    source: str  # "reply", "ANSWER field", "JSON answer", "JSON reply", "<answer> tags"
    missing: str | None = None  # why there is no answer ("a contract reply without an ANSWER field")
    cut_from: int | None = None  # the place's length when only its last MAX_ANSWER_CHARS were read
    doubt: str | None = None  # the reply's own status doubts its answer ("STATUS: NOT FOUND")
    outside: str = ""  # text beside the place that the reply's form does not account for
    # a contract's STATUS other than FOUND alone, or a MISSING, LIMITS or NEXT field that says anything
    # but "nothing": words neither reader accounts for (strict does not pay; official is unsure)
    unsettled: str | None = None
    # a contract reply's EVIDENCE field(s), "" when it has none; None for any other form. An answer
    # given in a contract is a success claim, paid only when its evidence supports it (contract.py)
    evidence: str | None = None


# a field label opening a line, markdown around it allowed ("**ANSWER:**", "- Status:")
_FIELD = re.compile(r"[ \t*_#>\-]*(STATUS|EVIDENCE|ANSWER|MISSING)[*_ \t]*:[ \t]*", re.I)
# LIMITS and NEXT are fields only where the contract policy asked for them: in any other reply a line
# "Next: Tuesday" is an answer's words, not a field that ends the ANSWER
_CONTRACT_FIELD = re.compile(r"[ \t*_#>\-]*(STATUS|EVIDENCE|ANSWER|MISSING|LIMITS|NEXT)[*_ \t]*:[ \t]*", re.I)
# FOUND, with any marks around it ("**FOUND**", "“FOUND”", "✅ FOUND"); a question mark doubts it, however
# it is set off ("FOUND?", "FOUND (?)")
_FOUND = re.compile(r"^[^\w?]*found\b(?![^\w?\n]*\?)", re.I)
_FOUND_ALONE = re.compile(r"^[^\w?]*found[^\w?]*$", re.I)
_NOTHING = re.compile(r"^\W*(?:none|nothing|n/?a|no(?:thing)? missing|-)?\W*$", re.I)
# a MISSING field that doubts the answer itself ("whether this is still true", "confirmation")
_UNSURE = re.compile(r"\b(?:whether|if)\b.*\b(?:still|current|true|valid|changed|up[ -]to[ -]date|latest|correct)\b"
                     r"|\bconfirm|\bverif|\bnot sure\b|\buncertain|\bunclear\b", re.I)
_JSON_FENCE = re.compile(r"^\s*```(?:json)?\s*(\{.*\})\s*```\s*$", re.S)


def contract_fields(reply: str, *, contract: bool = True) -> list[tuple[str, str]]:
    """The contract fields of ``reply`` in order, each with its value up to the next field (one
    pass over its lines); ``contract=False`` (a reply no policy asked for fields) reads only the
    four that any reply may carry."""
    pattern = _CONTRACT_FIELD if contract else _FIELD
    fields: list[tuple[str, list[str]]] = []
    for line in reply.split("\n"):
        m = pattern.match(line) if ":" in line else None
        if m is not None:
            fields.append((m.group(1).lower(), [line[m.end():]]))
        elif fields:
            fields[-1][1].append(line)
    return [(name, "\n".join(lines).strip().strip("*").strip()) for name, lines in fields]


# what a field quotes (the notes' words) is not the report's own voice
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”|`[^`\n]*`')


def _doubts_own_words(evidence: str) -> bool:
    """Does the EVIDENCE field doubt in its own words, outside what it quotes ('"city: Busan" (maybe)')?"""
    return any(word in DOUBT_WORDS for word in re.findall(r"[a-z']+", _QUOTED.sub(" ", evidence.lower())))


def evidence_unread(evidence: str, plain: frozenset[str]) -> str | None:
    """The first word of an EVIDENCE field, outside what it quotes, that the grader cannot read: the
    field cites the notes ('session 3: "city: Busan"', 'note: city: Busan', "none") in the words of a
    plain statement (:data:`~.lexicon.TERSE_KNOWN`), of the documents it names, of the question or the
    gold (``plain``), with values, labels and dates; anything else says something about the evidence
    ("I vaguely recall", "per the first session", "(or was it Seoul?)")."""
    tokens = tokenize(normalise_text(_QUOTED.sub(" ", evidence)))
    for k, t in enumerate(tokens):
        if t.kind == PUNCT:
            if t.text == "?":
                return "?"
        elif t.kind == WORD and not (t.text in EVIDENCE_WORDS or t.text in TERSE_KNOWN or t.value in TERSE_KNOWN_STEMS
                                     or t.text in plain or t.value in plain or _note_key(tokens, k)):
            return t.text
    return None


def _note_key(tokens: list[Token], k: int) -> bool:
    """Is word k part of a note's key, at most two words before a colon ("home city: Portland")?"""
    return any(j < len(tokens) and tokens[j].text == ":" for j in (k + 1, k + 2)) and \
        not (k + 1 < len(tokens) and tokens[k + 1].kind != WORD and tokens[k + 1].text != ":")


def _contract_answer(reply: str, required: bool) -> AnswerPlace | None:
    """A reply in the evidence-contract form: its ANSWER field(s), every one of them."""
    if ":" not in reply and not required:
        return None  # no field at all
    fields = contract_fields(reply, contract=required) if ":" in reply else []
    names = {name for name, _ in fields}
    if not required and not (names - {"answer"} or len(fields) > 1):
        return None  # a lone "Answer: ..." line is a conclusion marker, not a contract
    answers = [value for name, value in fields if name == "answer"]
    if not any(answers):
        why = "a contract reply without an ANSWER field" if fields or not required else \
            "a reply without the ANSWER field its policy asks for"
        return AnswerPlace("", "ANSWER field", missing=why)
    # the report's own fields are read as the contract's wherever the reply stands: in a reply no policy
    # asked for fields, "LIMITS:" and "NEXT:" lines are an answer's words, but still the report's limits
    report = fields if required else contract_fields(reply)
    statuses = [value for name, value in report if name == "status"]
    # MISSING, LIMITS and NEXT say where the answer stops holding: a doubt when they doubt the value
    # itself ("whether this is still current", "verify with the user"); anything else but "nothing"
    # is unsettled, words neither reader accounts for ("MISSING: Lyon", "LIMITS: I may have mixed up
    # the sessions")
    caveats = [(name.upper(), value) for name, value in report if name in CAVEAT_FIELDS]
    evidence_fields = [value for name, value in report if name == "evidence"]
    doubt = next((f"STATUS: {v}" for v in statuses if not _FOUND.match(v)), None) or next(
        (f"{name}: {v}" for name, v in caveats if _UNSURE.search(v)), None) or next(
        (f"EVIDENCE: {v}" for v in evidence_fields if _doubts_own_words(v)), None)
    unsettled = next((f"STATUS: {v}" for v in statuses if not _FOUND_ALONE.match(v)), None) or next(
        (f"{name}: {v}" for name, v in caveats if not _NOTHING.match(v)), None)
    evidence = "\n".join(value for name, value in fields if name == "evidence") \
        if any(name == "evidence" for name, _ in fields) else None
    return AnswerPlace("\n".join(a for a in answers if a), "ANSWER field", doubt=doubt, unsettled=unsettled,
                       evidence=evidence)


def _flatten(value: object, depth: int = 0) -> str:
    """A JSON value as plain text ("key: value" lines), so that its words read as an answer's would."""
    if depth > 3:
        return ""
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_flatten(v, depth + 1)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flatten(v, depth + 1) for v in value)
    return "none" if value is None else str(value)


def _as_dict(value: object) -> object:
    """object_pairs_hook gives pairs for every object: back to dicts (duplicates were read already)."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return {k: _as_dict(v) for k, v in value}
    if isinstance(value, list):
        return [_as_dict(v) for v in value]
    return value


def _is_answer_key(key: object) -> bool:
    return isinstance(key, str) and key.strip().lower() in ANSWER_KEYS


def _json_answer(reply: str) -> AnswerPlace | None:
    """A reply that is one JSON object. With an answer key (every one of them, duplicates included),
    that value is the answer and the other fields follow it as plain lines (an "alternatives" or a
    "confidence: low" field speaks about the answer); without one, the whole object as plain lines."""
    stripped = reply.strip()
    fenced = _JSON_FENCE.match(stripped) if stripped.startswith("```") else None
    body = fenced.group(1) if fenced else stripped
    if not (body.startswith("{") and body.endswith("}")) or len(body) > MAX_ANSWER_CHARS:
        return None
    try:
        pairs = json.loads(body, object_pairs_hook=lambda items: items)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to parse: read as text
        return None
    if not isinstance(pairs, list):
        return None
    answers = [v for k, v in pairs if _is_answer_key(k)]
    others = "\n".join(f"{k}: {_flatten(_as_dict(v))}" for k, v in pairs if not _is_answer_key(k))
    if not answers:
        return AnswerPlace(others, "JSON reply")
    given = [_flatten(_as_dict(v)) for v in answers if v is not None and not (isinstance(v, str) and not v.strip())]
    if not given:
        return AnswerPlace("", "JSON answer", missing="a JSON reply whose answer is empty")
    text = "\n".join(given) + (f"\n{others}" if others else "")  # read on, as the answer's next lines
    return AnswerPlace(text, "JSON answer", outside=others)


_OPEN, _CLOSE = "<answer>", "</answer>"


def _tagged_answer(reply: str) -> AnswerPlace | None:
    """``<answer>...</answer>``: the tagged text, every tag of it (found with plain searches, so a
    reply of many unclosed tags stays linear)."""
    lowered = reply.lower()
    start = lowered.find(_OPEN)
    if start == -1:
        return None
    found, outside = [], [reply[:start]]
    while start != -1:
        end = lowered.find(_CLOSE, start + len(_OPEN))
        if end == -1:
            outside.append(reply[start:])
            break
        found.append(reply[start + len(_OPEN):end].strip())
        nxt = lowered.find(_OPEN, end + len(_CLOSE))
        outside.append(reply[end + len(_CLOSE):nxt if nxt != -1 else len(reply)])
        start = nxt
    rest = " ".join(p.strip() for p in outside if p.strip())
    if not any(found):
        return AnswerPlace("", "<answer> tags", missing="empty <answer> tags", outside=rest)
    # what the reply says beside its tags is read after the answer, as a JSON reply's other fields are
    text = "\n".join(f for f in found if f) + (f"\n{rest}" if rest else "")
    return AnswerPlace(text, "<answer> tags", outside=rest)


def answer_place(reply: str, form: str = "any") -> AnswerPlace:
    """The designated answer of ``reply`` (see the module docstring)."""
    if "<" in reply:
        reply = strip_reasoning(reply)
        if not reply:
            return AnswerPlace("", "reply", missing="a reply of reasoning only")
    place = _contract_answer(reply, form == "contract")
    if place is None:
        place = (("{" in reply and _json_answer(reply)) or ("<" in reply and _tagged_answer(reply))
                 or AnswerPlace(reply, "reply"))
    if len(place.text) > MAX_ANSWER_CHARS:
        return AnswerPlace(place.text[-MAX_ANSWER_CHARS:], place.source, place.missing, len(place.text), place.doubt,
                           place.outside, place.unsettled)
    return place
