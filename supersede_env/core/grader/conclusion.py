"""Where a reply's conclusion starts, and the part of a long reply the official reader tokenises.

The conclusion starts after the last answer marker ("the answer is", "Answer:", "Step 3: Provide
the answer"), else at the last "therefore"-style marker, else, in a reply over
:data:`SHORT_REPLY` characters, at its last paragraph; a shorter reply is read whole.

A long reply is tokenised only from a paragraph break before its conclusion
(:func:`read_conclusion`): the scanner and every pass of the lexer stop at a paragraph break, so
those tokens are the whole reply's tokens from there on. The break is the last one with more than
list separators between it and the conclusion (tokens, not characters: markup such as "~~" makes
none): the line rivals read the item before the line breaks and separators that precede a value
("Seattle\n\n;\n\nPortland"), so a conclusion that opens its paragraph keeps the paragraph before it.
Reading a long reply whole is the exception (:meth:`.answer.Answer.widened`).
"""

from __future__ import annotations

import itertools
import operator
import re
from bisect import bisect_left
from dataclasses import dataclass

from supersede_env.core.grader.lexicon import LINE_SEPARATORS, WEAK_KEYWORDS
from supersede_env.core.grader.tokens import PUNCT, WORD, Token, tokenize

__all__ = ["PARAGRAPH_BREAK", "SHORT_REPLY", "START_OF", "Reading", "read_conclusion"]

SHORT_REPLY = 600  # a reply this short is read whole: "Not sure.\n\nPortland" is not concluded by its last line
START_OF = operator.attrgetter("start")  # tokens come in text order: their starts can be bisected
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")  # the scanner's paragraph token, exactly


@dataclass(frozen=True, slots=True)
class Reading:
    """The tokens of a reply from ``first_char`` on, and the first token of its conclusion."""

    first_char: int  # 0 (the whole reply) or where a paragraph break starts
    tokens: list[Token]
    start: int  # index in tokens
    strong: bool  # the conclusion follows an explicit answer marker


def read_conclusion(text: str) -> Reading:
    """The reading of a normalised reply: whole when it is short, else from the paragraph break
    before its conclusion."""
    strong = _strong_offset(text)
    if len(text) <= SHORT_REPLY:
        tokens = tokenize(text)
        if strong is not None:
            return Reading(0, tokens, bisect_left(tokens, strong, key=START_OF), True)
        weak = _weak_start(text, tokens)
        return Reading(0, tokens, 0 if weak is None else weak[1], False)
    breaks = [m.start() for m in PARAGRAPH_BREAK.finditer(text)]
    if strong is not None:
        return _reading_from(text, breaks, strong, True)
    weak = _weak_reading(text, breaks)
    if weak is not None:
        return weak
    para = text.rfind("\n\n", 0, max(0, len(text.rstrip()) - 1))
    return _reading_from(text, breaks, para, False) if para > 0 else Reading(0, tokenize(text), 0, False)


def _reading_from(text: str, breaks: list[int], at: int, strong: bool) -> Reading:
    """The reading from the last paragraph break before character ``at`` (or an earlier one, when
    only list separators come between); its conclusion starts at the first token at or after ``at``."""
    first = _break_before(breaks, at)
    tokens = tokenize(text, first)
    start = bisect_left(tokens, at, key=START_OF)
    if first and _separators_only(tokens[:start]):
        first = _earlier_window_start(text, breaks, first)
        tokens = tokenize(text, first)
        start = bisect_left(tokens, at, key=START_OF)
    return Reading(first, tokens, start, strong)


def _break_before(breaks: list[int], at: int) -> int:
    """The last paragraph break before character ``at`` (0 when there is none)."""
    k = bisect_left(breaks, at)
    return breaks[k - 1] if k else 0


def _separators_only(tokens: list[Token]) -> bool:
    """Tokens a line rival's backward walk steps over, all of them ("Seattle\n\n;\n\nPortland")."""
    return all(t.kind == PUNCT and t.text in LINE_SEPARATORS for t in tokens)


def _earlier_window_start(text: str, breaks: list[int], first: int) -> int:
    """The last paragraph break before break ``first`` whose paragraph holds more than list separators."""
    for j in range(bisect_left(breaks, first) - 1, -1, -1):
        if not _separators_only(tokenize(text, breaks[j], breaks[j + 1])):
            return breaks[j]
    return 0


def _weak_reading(text: str, breaks: list[int]) -> Reading | None:
    """The reading from the paragraph of the last "therefore"-style marker; None when there is none.

    Tried from the paragraph of the last place the marker's pattern matches, and from earlier ones
    while the marker found there could depend on what came before: the result is that of
    :func:`_weak_start` on the whole reply."""
    marks = [m.start() for m in _WEAK_MARKER.finditer(text)]  # every match starts at or after one of them
    at = marks[-1] + 1 if marks else 0
    while marks:
        first = _break_before(breaks, at)
        tokens = tokenize(text, first)
        found = _weak_start(text, tokens)
        if found is not None and (first == 0 or found[0] >= 3):  # its three words before are all here
            if first == 0 or not _separators_only(tokens[:found[1]]):
                return Reading(first, tokens, found[1], False)
            # the marker opens its paragraph: read the one before too
            return _reading_from(text, breaks, tokens[found[1]].start, False)
        if first == 0:
            return None
        if found is not None:
            at = first  # one paragraph more
            continue
        earlier = bisect_left(marks, first)
        if not earlier:
            return None  # no match starts before these tokens
        at = marks[earlier - 1] + 1
    return None


# Concluding-span markers. STRONG: everything after the last one is the answer. Its alternatives,
# named: "starts" below tries the pattern only where one of them matches.
_FINAL_ANSWER = r"final\s+answer"
_THE_ANSWER_IS = r"the\s+answer\s+(?:to\s+[^\n:]{0,100}?)?(?:is|would\s+be|will\s+be)\b"
_MY_ANSWER_IS = r"my\s+(?:final\s+)?answer\s+(?:is|would\s+be|will\s+be)"
_ANSWER_COLON = r"\banswer\s*(?:\*\*)?\s*:"
_ANSWER_HEADING = r"\s*(?:\*\*|#+\s*)?\s*(?:final\s+)?answer\s*(?:\*\*)?\s*(?=\n)"
_ANSWER_STEP = (r"[^\n]{0,40}step\s*\d+\s*[:.-]?\s*(?:\*\*)?\s*(?:provide|give|determine|draw|answer|final|state|"
                r"choose|select|formulate)")
_CONCLUSION_HEADING = r"\s*(?:\*\*|#+\s*)\s*conclusion"
_STRONG_MARKER = re.compile(
    rf"(?:{_FINAL_ANSWER}|{_THE_ANSWER_IS}|{_MY_ANSWER_IS}|{_ANSWER_COLON}"
    rf"|(?:^|\n){_ANSWER_HEADING}|(?:^|\n){_ANSWER_STEP}[^\n]*|(?:^|\n){_CONCLUSION_HEADING}[^\n]*)"
)
_WEAK_MARKER = re.compile(
    r"\b(?:therefore|thus|hence|in\s+conclusion|to\s+conclude|in\s+summary|to\s+summarize|overall|"
    r"(?:i|we)\s+(?:can|could|will|would)\s+(?:confidently\s+)?(?:conclude|say|infer|determine)|"
    r"(?:this|which)\s+means|based\s+on\s+(?:this|these|the\s+above|the\s+(?:extracted\s+)?information|"
    r"the\s+(?:analysis|reasoning|chat\s+history|available\s+information)))\b"
)
_STEP_HEADING_AFTER = r"[^\n]{0,10}step\s*\d"
_STEP_HEADING = re.compile(rf"(?:^|\n){_STEP_HEADING_AFTER}")
# Where a match of each marker can begin besides the start of the text (trying the pattern only
# there is many times faster than a search): the words its other alternatives start with, and the
# line breaks where a line-opening alternative matches.
_STRONG_MARKER_STARTS = re.compile(r"final(?=\s+answer)|the(?=\s+answer)|my(?=\s+(?:final\s+)?answer)|answer"
                                   rf"|\n(?={_ANSWER_HEADING}|{_ANSWER_STEP}|{_CONCLUSION_HEADING})")
_STEP_HEADING_STARTS = re.compile(rf"\n(?={_STEP_HEADING_AFTER})")


def _markers(marker: re.Pattern[str], starts: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """``marker.finditer(text)``, tried only where ``starts`` says a match can begin (much faster)."""
    found = []
    resume = 0  # like finditer: a match never starts inside the previous one
    for pos in itertools.chain((0,), (s.start() for s in starts.finditer(text))):
        if pos >= resume and (m := marker.match(text, pos)) is not None:
            found.append(m)
            resume = m.end()
    return found


def _strong_offset(text: str) -> int | None:
    """End of the last answer marker ("the answer is", "Answer:", "Step N: Provide the answer"),
    unless more reasoning steps follow it ("Here's the answer: Step 1 ..." is a preamble)."""
    if "answer" not in text and "conclusion" not in text:
        return None
    last_step = -1
    if "step" in text:
        for step in _markers(_STEP_HEADING, _STEP_HEADING_STARTS, text):
            last_step = step.start()
    for m in reversed(_markers(_STRONG_MARKER, _STRONG_MARKER_STARTS, text)):
        if last_step >= m.end() or not text[m.end():].strip(" *:#\n\t"):
            continue  # a preamble before more steps, or a trailing "Answer:" with nothing after it
        return m.end()
    return None


def _weak_start(text: str, tokens: list[Token]) -> tuple[int, int] | None:
    """The last "therefore"-style marker, checked at each of its keywords and the three words before:
    (the keyword's index, the marker's first token)."""
    keywords = [i for i, t in enumerate(tokens) if t.kind == WORD and t.text in WEAK_KEYWORDS]
    for i in reversed(keywords):
        for j in range(max(0, i - 3), i + 1):
            if tokens[j].kind == WORD and _WEAK_MARKER.match(text, tokens[j].start) is not None:
                return i, j
    return None
