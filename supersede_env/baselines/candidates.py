"""Candidate answers to a question, found in plain text: the reference policies' only skill.

A *candidate* is a phrase of the shape the question asks for, in a sentence about what it asks,
that states something of the user's now:

- the **shape** comes from the question's wording (:func:`expected_shape`): "how many" asks for a
  count, "how much" or "rent" for money, "what time" for a clock time, "how long" for a duration,
  "which days" for days of the week; who, which city, what car for a *name*, a run of capitalised
  words ("Toyota Prius", "Priya Raman", "Pixel 8 Pro");
- a sentence is **about** the question when it shares a content word with it, compared by stem
  ("houseplant count" is about "How many houseplants do I have?") and widened by a short table of
  everyday associations (a car is driven, bought, sold; a job has an office and colleagues), or
  when it repeats a candidate an earlier such sentence gave ("I sold the Chevy Malibu and bought a
  Toyota Prius" follows "I drive a Chevy Malibu");
- a sentence is **not of the user now** when it is a question, or speaks of someone else ("my
  sister lives in Denver"), a plan or wish ("maybe next year"), a refusal ("I turned down the
  offer") or the past ("years ago"); its values are skipped (:func:`about_now`).

This is a heuristic over text and nothing more: it reads no gold answer, no annotation, no list of
an episode's values. It is fooled by what fools a reader in a hurry: a change implied without a
cue word, an old value recalled in passing, a decoy phrased in a way the cue list does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import snowballstemmer

Shape = Literal["count", "money", "time", "duration", "days", "name", "any"]


@dataclass(frozen=True)
class Candidate:
    """One phrase that could answer the question, and the sentence it was read from."""

    value: str
    sentence: str
    position: int  # character offset of the value in the text searched (its order of mention)


# -- value shapes ------------------------------------------------------------------------------------
_DAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?"
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty thirty forty fifty").split()
_PATTERNS: dict[str, re.Pattern[str]] = {
    "money": re.compile(r"\$\d[\d,]*(?:\.\d+)?(?:\s?(?:k|K|million))?"),
    "time": re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])", re.I),
    "duration": re.compile(r"\b\d+(?:\.\d+)?\s(?:minutes?|hours?|seconds?|days?|weeks?|months?|years?)"
                           r"(?:\s(?:and\s)?\d+\s(?:seconds?|minutes?))?\b"),
    "days": re.compile(rf"\b{_DAY}(?:(?:,\s|\s(?:and|&)\s){_DAY})*\b"),
    "count": re.compile(r"(?<![\w$.,:])\d+(?![\w:]|[.,]\d)|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I),
}
# A name: capitalised words, joined by digits, model codes and a few small title words
# ("Pixel 8 Pro", "Ford F-150", "A Map of Small Fires", "Tesla Model Y").
_NAME = re.compile(r"\b(?:[A-Z][\w'’.-]*|i[A-Z]\w*)(?:\s(?:(?:of|the|over)\s)?"
                   r"(?:[A-Z][\w'’-]*|i[A-Z]\w*|\d[\w-]*))*")
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll a an the my our we we're we've it it's its this that these those there here he she
    they you your his her their and but or so also oh by since now still after before when while if as at in
    on for to of from with about anyway unrelated side note yes no not just then well okay ok sorry thanks
    hi hello what which who how where why any some every each one another nobody back
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
    saturdays sundays january february march april may june july august september october november december
    session date content user assistant question answer notes""".split()
)

# Question words that say which shape of value is asked for (checked in this order).
_SHAPE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("duration", re.compile(r"\bhow (?:long|many (?:minutes|hours|seconds|days|weeks|months|years))\b"
                            r"|\bpersonal best\b|\bfastest\b", re.I)),
    ("money", re.compile(r"\bhow much\b|\b(?:rent|salary|fee|cost|price|pay|paid|earn|budget)s?\b", re.I)),
    ("time", re.compile(r"\bwhat time\b|\bat what hour\b", re.I)),
    ("days", re.compile(r"\b(?:which|what) days?\b|\bwhat day of the week\b", re.I)),
    ("count", re.compile(r"\bhow many\b|\bnumber of\b", re.I)),
    ("name", re.compile(r"\b(?:who|where|which|what)\b", re.I)),
)

# Words of a question that say nothing about its topic.
_FUNCTION_WORDS = frozenset(
    """a an the i me my mine we our you your is am are was were be been being do does did have has had
    what which who whom whose how where when why many much now currently current still so far yet ever
    to of in on at for with from by about as into than that this these those it its there here and or
    not no any some each every one per right today tell say remind know go going get got use using make
    made take kind sort name way""".split()
)
# Words that go with common personal facts, so that "I just bought a Kia" is about "What car do I
# drive?". Everyday associations, one group a line; a question word pulls in its whole group.
_RELATED_GROUPS = (
    "work job company employer office colleague hired offer career analyst badge onboarding",
    "car drive driving vehicle bought sold traded tires oil wash",
    "phone battery screen camera apps upgraded replaced",
    "book read reading chapter page bookmark novel ending",
    "live city home moved move settled unpacking neighbors",
    "trip vacation travel flights booked packing guidebook",
    "countries country passport map travel",
    "manager boss report meetings",
    "doctor dr appointment checkup clinic",
    "teacher lessons lesson taught",
    "salary pay paycheck raise",
    "rent landlord lease apartment",
    "gym membership",
    "wake alarm morning",
    "commute ride",
    "study practice flashcards",
    "best record race ran",
    "swim swimming pool lanes",
    "volunteer shifts rota",
    "pottery clay studio",
    "houseplants houseplant plants plant",
    "team people reorg",
)
_STEMMER = snowballstemmer.stemmer("english")
_RELATED = tuple(frozenset(_STEMMER.stemWord(w) for w in group.split()) for group in _RELATED_GROUPS)
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_SENTENCE_END = re.compile(r"(?<!\bSt\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bMrs\.)(?<=[.!?;])\s+|\n+")

# Sentences that are not about the user now: someone else's value, a plan or wish, a refusal, the
# past. Their values are never candidates ("my sister lives in Denver", "I almost bought a Kia").
_NOT_NOW = re.compile(
    r"\b(?:never|no longer|didn't|don't|doesn't|wasn't|won't|isn't|haven't|hasn't|decided not|almost|nearly"
    r"|cancel+ed|turned down|ruled (?:it|that) out|fell (?:apart|through)|walked away|said no|instead of"
    r"|if|might|maybe|perhaps|someday|one day|would|could|wish|hope|dream\w*|consider\w*|proposal"
    r"|proposed|eyeing|on my list|thinking (?:about|of)|thought about|love to|plan to"
    r"|my (?:sister|brother|neighbou?r|cousin|mom|mother|dad|father|friend|best friend|roommate|coworker"
    r"|colleague|son|daughter|aunt|uncle)|an? (?:coworker|colleague|friend|neighbou?r|recruiter)"
    r"|(?:he|she|they) (?:is|are|has|have|was|were|just|lives?|works?|makes?|drives?|got)"
    r"|ago|back (?:when|in)|(?:I|we) used to|in (?:college|school)|high school|childhood|as a (?:kid|student|child)"
    r"|when I was|at first|remember when)\b", re.I)


def about_now(sentence: str) -> bool:
    """False for a sentence about someone else, a plan, a refusal or the past (its values are not the
    user's current ones)."""
    return _NOT_NOW.search(sentence) is None


def expected_shape(question: str) -> Shape:
    """The shape of value ``question`` asks for; ``any`` when its wording does not say."""
    for shape, cue in _SHAPE_CUES:
        if cue.search(question):
            return shape  # type: ignore[return-value]
    return "any"


@lru_cache(maxsize=4096)
def question_stems(question: str) -> frozenset[str]:
    """The stems a sentence about ``question`` may share with it: its content words and their related
    words."""
    stems = set(topic_stems(question))
    for group in _RELATED:
        if stems & group:
            stems |= group
    return frozenset(stems)


@lru_cache(maxsize=4096)
def topic_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words (function words left out)."""
    words = [w.replace("’", "'") for w in _WORD.findall(text.lower())]
    return frozenset(_STEMMER.stemWord(w.split("'")[0]) for w in words if w not in _FUNCTION_WORDS)


def sentences(text: str) -> list[tuple[int, str]]:
    """``text`` cut into sentences (and lines), each with its start offset."""
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[start:match.start()].strip():
            out.append((start, text[start:match.start()]))
        start = match.end()
    if text[start:].strip():
        out.append((start, text[start:]))
    return out


def values_in(sentence: str, shape: Shape) -> list[tuple[int, str]]:
    """The phrases of ``shape`` in ``sentence``, with their offsets, in order."""
    if shape == "any":
        found = [v for s in ("money", "time", "duration", "days", "count", "name") for v in values_in(sentence, s)]
        return _outermost(found)
    if shape == "name":
        return [v for m in _NAME.finditer(sentence) if (v := _name(m.start(), m.group()))]
    taken = _spans(sentence, [s for s in ("money", "time", "duration", "days") if s != shape])
    return [(m.start(), m.group()) for m in _PATTERNS[shape].finditer(sentence)
            if not any(a <= m.start() < b for a, b in taken)]


def has_value(sentence: str) -> bool:
    """Does ``sentence`` state anything a question could ask for (a number, a name, a day)?"""
    return bool(values_in(sentence, "any"))


def candidates(question: str, text: str, *, roles: tuple[str, ...] | None = None) -> list[Candidate]:
    """Every candidate answer to ``question`` in ``text``, in order of mention.

    With ``roles``, only lines written as ``role: ...`` for one of them are read (``("user",)``: what
    the user said, not the assistant's advice); other lines (headers, dates) are skipped.
    """
    shape = expected_shape(question)
    wanted = question_stems(question)
    seen: set[str] = set()
    found: list[Candidate] = []
    for offset, sentence in _readable(text, roles):
        if sentence.rstrip().endswith("?") or not about_now(sentence):
            continue  # a question asks, it does not state; nor does a plan, a refusal, the past
        values = values_in(sentence, shape)
        if not values:
            continue
        about = bool(wanted & topic_stems(sentence)) or any(_key(v) in seen for _, v in values)
        if not about:
            continue
        for start, value in values:
            seen.add(_key(value))
            found.append(Candidate(value, sentence.strip(), offset + start))
    return found


# -- helpers -------------------------------------------------------------------------------------------
def _readable(text: str, roles: tuple[str, ...] | None) -> list[tuple[int, str]]:
    """The sentences of ``text`` worth reading, with offsets into ``text``."""
    if roles is None:
        return sentences(text)
    out: list[tuple[int, str]] = []
    position = 0
    for line in text.splitlines(keepends=True):
        role, sep, said = line.partition(": ")
        if sep and role in roles:
            base = position + len(role) + len(sep)
            out += [(base + start, s) for start, s in sentences(said)]
        position += len(line)
    return out


def _name(start: int, phrase: str) -> tuple[int, str] | None:
    """A name phrase with leading sentence words ("Also", "My") and trailing punctuation dropped."""
    words = phrase.split(" ")
    while words and (words[0].lower().strip(".,'’") in _NOT_NAMES or words[0].lower().endswith("'s")):
        start += len(words[0]) + 1
        words = words[1:]
    while words and words[-1].lower() in ("of", "the", "over"):
        words = words[:-1]
    text = " ".join(words).rstrip(".,;:!'’")
    if not text or text[0].isdigit():
        return None
    return start, text


def _spans(sentence: str, shapes: list[str]) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for s in shapes for m in _PATTERNS[s].finditer(sentence)]


def _outermost(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Values sorted by position, without those inside a longer one ("5" inside "$1,250")."""
    found = sorted(set(found), key=lambda v: (v[0], -len(v[1])))
    out: list[tuple[int, str]] = []
    for start, value in found:
        if out and start < out[-1][0] + len(out[-1][1]):
            continue
        out.append((start, value))
    return out


def _key(value: str) -> str:
    return " ".join(value.lower().split())
