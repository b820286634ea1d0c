"""The official reader's view of an answer place (found by :mod:`.place`): :func:`read_answer`
normalises it, tokenises it once (a long reply from the paragraph its conclusion starts in:
below), masks the restated question, turns list numbering ("2. Denver") into labels,
and indexes what matching needs.


**The conclusion.** Where a reply's conclusion starts, and the part of a long reply the official reader tokenises.

The conclusion starts after the last answer marker ("the answer is", "Answer:", "Step 3: Provide
the answer"), else at the last "therefore"-style marker, else, in a reply over
:data:`SHORT_REPLY` characters, at its last paragraph; a shorter reply is read whole.

A long reply is tokenised only from a paragraph break before its conclusion
(:func:`read_conclusion`): the scanner and every pass of the lexer stop at a paragraph break, so
those tokens are the whole reply's tokens from there on. The break is the last one with more than
list separators between it and the conclusion (tokens, not characters: markup such as "~~" makes
none): the line rivals read the item before the line breaks and separators that precede a value
("Seattle

;

Portland"), so a conclusion that opens its paragraph keeps the paragraph before it.
Reading a long reply whole is the exception (:meth:`Answer.widened`).
"""

from __future__ import annotations

import itertools
import operator
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from supersede_env.core.grader.gold import Pattern
from supersede_env.core.grader.lexicon import (
    ABSTAIN_TRIGGERS,
    CUE_STARTS,
    LINE_SEPARATORS,
    QUESTION_WORDS,
    SENTENCE_END,
    SOFT,
    WEAK_KEYWORDS,
)
from supersede_env.core.grader.question import QuestionInfo, echo_key, question_info
from supersede_env.core.grader.tokens import (
    LABEL,
    NUM,
    PUNCT,
    WORD,
    Token,
    cased_text,
    normalise_text,
    tokenize,
    values_equal,
)

__all__ = [
    "Answer", "PARAGRAPH_BREAK", "Reading", "SHORT_REPLY", "START_OF", "Span", "TERSE_REPLY",
    "read_answer", "read_conclusion",
]


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


# A reply this short is the answer and nothing else (a sentence or two: the policy's format): every other
# name or count in it competes with the gold when the source named no other candidate
TERSE_REPLY = 160
Span = tuple[int, int]  # first and last token index of a match


# ---------------------------------------------------------------------------------------------
# 2. The answer read into tokens
# ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Answer:
    """A read answer: tokens, where its conclusion starts, and the tokens that may match."""

    text: str  # normalised
    source: str  # the answer as written when its offsets agree with ``text`` (else ``text``): for evidence
    tokens: list[Token]
    start: int  # first token of the concluding span
    content: list[int]  # token indices (concluding span) that matching may use: a suffix of all_content
    strong: bool  # the conclusion follows an explicit answer marker
    all_content: list[int]  # matchable token indices of the whole answer
    triggers: list[int]  # indices of words that may start an abstention phrase
    cues: list[int]  # indices of tokens that may start a role cue (supersede_env.core.grader.cues)
    unmasked_content: list[int] | None = None  # all_content with the restated question left in
    # find() results on this view, by id(pattern) (with the pattern, so that a reused id never matches)
    find_memo: dict[int, tuple[Pattern, list[Span]]] = field(default_factory=dict)
    word_index: dict[str, list[int]] | None = None  # built on first use
    value_index: list[int] | None = None
    value_groups_index: dict[tuple, list[int]] | None = None
    first_char: int = 0  # where ``tokens`` start in ``text`` (a long reply is read from its conclusion's paragraph)
    question: str | None = None

    @property
    def words(self) -> dict[str, list[int]]:
        """Word stem -> positions in all_content."""
        if self.word_index is None:
            self.word_index = _word_index(self.tokens, self.all_content)
        return self.word_index

    @property
    def values(self) -> list[int]:
        """Positions in all_content of value tokens."""
        if self.value_index is None:
            tokens = self.tokens
            self.value_index = [p for p, i in enumerate(self.all_content) if tokens[i].kind != WORD]
        return self.value_index

    @property
    def value_groups(self) -> dict[tuple, list[int]]:
        """The value tokens' positions in all_content by what a comparison reads of them (kind, value,
        unit, count): a candidate is compared once with each distinct value, not with every token."""
        if self.value_groups_index is None:
            tokens, all_content, groups = self.tokens, self.all_content, {}
            for p in self.values:
                t = tokens[all_content[p]]
                groups.setdefault((t.kind, t.value, t.unit, t.number), []).append(p)
            self.value_groups_index = groups
        return self.value_groups_index

    def unmasked(self) -> Answer | None:
        """The same answer with the restated question kept (a gold taken from the question may be there)."""
        if self.unmasked_content is None:
            return None
        content = self.unmasked_content
        conclusion = content if self.start == 0 else content[bisect_left(content, self.start):]
        return Answer(self.text, self.source, self.tokens, self.start, conclusion, self.strong, content,
                      self.triggers, self.cues, first_char=self.first_char, question=self.question)

    @property
    def concluded(self) -> bool:
        """Does the conclusion start after the reply does (so that the reply can be read wider)?"""
        return self.start > 0 or self.first_char > 0

    @property
    def skip(self) -> int:
        """How many entries of all_content precede the conclusion."""
        return len(self.all_content) - len(self.content)

    @property
    def start_char(self) -> int:
        return self.tokens[self.start].start if self.start < len(self.tokens) else len(self.text)

    def widened(self) -> Answer:
        """The same answer with the whole text as its conclusion."""
        if self.first_char:
            whole = _read(self.text, self.source, Reading(0, tokenize(self.text), 0, False), self.question)
            whole.unmasked_content = None
            return whole
        return Answer(self.text, self.source, self.tokens, 0, self.all_content, False, self.all_content,
                      self.triggers, self.cues, word_index=self.word_index, value_index=self.value_index,
                      value_groups_index=self.value_groups_index)

    def snippet(self, first: int, last: int) -> str:
        """The answer's own words from token ``first`` to token ``last``."""
        return self.source[self.tokens[first].start:self.tokens[last].end]

    @property
    def read_text(self) -> str:
        """The text its tokens cover (from ``first_char``): a test on it is a test on what can match."""
        return self.text[self.first_char:] if self.first_char else self.text

    @property
    def conclusion_text(self) -> str:
        return self.source[self.start_char:]

    def positions(self, g: Token) -> list[int]:
        """Positions in ``content`` whose token equals candidate token ``g``."""
        k = self.skip
        if g.kind == WORD:
            found = self.words.get(g.value)
            if not found:
                return []
            return [p - k for p in found if p >= k] if k else found
        tokens, all_content = self.tokens, self.all_content
        matched = [ps for ps in self.value_groups.values() if values_equal(g, tokens[all_content[ps[0]]])]
        found = matched[0] if len(matched) == 1 else sorted(p for ps in matched for p in ps)
        return [p - k for p in found if p >= k] if k else list(found)


def _word_index(tokens: list[Token], content: list[int]) -> dict[str, list[int]]:
    words: dict[str, list[int]] = {}
    for p, i in enumerate(content):
        t = tokens[i]
        if t.kind == WORD:
            words.setdefault(t.value, []).append(p)
    return words


def _echoed(tokens: list[Token], run: list[int], keys: list[object], grams: frozenset[tuple], masked: set[int],
            question_echo: set[int]) -> None:
    """Mark the 4-grams of ``run`` that restate the question. A restatement of the question itself (it
    holds "or" or a question word) goes to ``question_echo`` too: it never counts as an answer,
    whereas a restated option ("the meeting with Rachel happened first") may."""
    out: set[int] = set()
    for k, gram in enumerate(zip(keys, keys[1:], keys[2:], keys[3:])):
        if gram in grams:
            out.update(range(run[k], run[k + 3] + 1))
    masked.update(out)
    for i in out:
        if tokens[i].kind == WORD and tokens[i].text in QUESTION_WORDS:
            question_echo.update(out)
            break


def _numbering(tokens: list[Token], text: str) -> dict[int, float]:
    """Small whole numbers opening lines, followed by "." or ")" and more text: index -> number."""
    found: dict[int, float] = {}
    n = len(tokens)
    for i, t in enumerate(tokens):
        if t.kind != NUM or t.unit is not None or i + 2 >= n:
            continue
        if tokens[i + 1].kind != PUNCT or tokens[i + 1].text not in (".", ")"):
            continue
        if i > 0 and not (tokens[i - 1].kind == PUNCT and tokens[i - 1].text in ("\n", "\n\n")):
            continue
        if not text[t.start:t.end].isdigit() or t.value > 99:
            continue
        follower = tokens[i + 2]
        if follower.kind == PUNCT and follower.text in ("\n", "\n\n"):
            continue
        found[i] = t.value
    return found


def _label_numbering(tokens: list[Token], text: str, first_char: int) -> None:
    """List numbering becomes labels, when the reply numbers at least two lines in sequence
    ("1. Oranges\\n2. Lemons"; the lines before ``first_char`` count too). A lone "64. That is the
    latest value" is a value, not numbering."""
    found = _numbering(tokens, text)
    numbers = set(found.values())
    if first_char and any(v + 1 not in numbers and v - 1 not in numbers for v in numbers):
        numbers |= _numbering_before(text, first_char)
    for i, v in found.items():
        if v + 1 in numbers or v - 1 in numbers:
            tokens[i] = tokens[i]._replace(kind=LABEL)


def _numbering_before(text: str, end: int) -> set[float]:
    """The numbers of the numbered lines of text[:end], read a paragraph at a time (the paragraphs
    that may hold one)."""
    bounds = [0, *(m.start() for m in PARAGRAPH_BREAK.finditer(text, 0, end)), end]
    numbers: set[float] = set()
    for lo, hi in zip(bounds, bounds[1:]):
        if _LINE_DIGIT.search(text, lo, hi):
            numbers.update(_numbering(tokenize(text, lo, hi), text).values())
    return numbers


# a numbered line: at the start of the text, or after a line break (two patterns: one that starts
# with "\n" is searched many times faster than one that starts with "(?:^|\n)")
_NUMBERED_FIRST_LINE = re.compile(r"[ \t*#>_-]*\d{1,2}[.)]")
_NUMBERED_LINE = re.compile(r"\n[ \t*#>_-]*\d{1,2}[.)]")
# a digit after only what the scanner skips at a line's start: every numbered line of _numbering matches
_LINE_DIGIT = re.compile(r"(?:^|\n)[ \t\r\f\v*#`_~>]*\d")
_WORD_FLAGS: dict[str, int] = {}
_TRIGGER, _SOFT_WORD, _CUE = 1, 2, 4


def _word_flags(w: str) -> int:
    flags = _WORD_FLAGS.get(w)
    if flags is None:
        flags = ((_TRIGGER if (w in ABSTAIN_TRIGGERS or w.endswith("n't")) else 0)
                 | (_SOFT_WORD if w in SOFT else 0)
                 | (_CUE if (w in CUE_STARTS or w.endswith("n't")) else 0))
        if len(_WORD_FLAGS) < 100_000:
            _WORD_FLAGS[w] = flags
    return flags


def _cased_or(text: str, answer: str) -> str:
    """The reply as written, folded like ``text`` but with its capitals, or ``text`` when they differ in length."""
    cased = cased_text(answer)
    return cased if len(cased) == len(text) else text


def read_answer(answer: str, question: str | None) -> Answer:
    """Tokenise once and index what matching needs."""
    text = normalise_text(answer)
    # the capitals of a short reply mark its names (rivals the source never named); folding again costs
    source = answer if len(answer) == len(text) else _cased_or(text, answer) if len(text) <= SHORT_REPLY else text
    return _read(text, source, read_conclusion(text), question)


def _read(text: str, source: str, reading: Reading, question: str | None) -> Answer:
    tokens, start = reading.tokens, reading.start
    if _NUMBERED_FIRST_LINE.match(text) or _NUMBERED_LINE.search(text):
        _label_numbering(tokens, text, reading.first_char)
    content, triggers, cues = _index(tokens)
    info = question_info(question)
    unmasked_content = None
    if info.keys:
        masked, question_echo = _restatements(tokens, info)
        if masked:  # drop the restated question (kept aside: a gold may be worded like the question)
            unmasked_content = [i for i in content if i not in question_echo] if question_echo else content
            content = [i for i in content if i not in masked]
    conclusion = content if start == 0 else content[bisect_left(content, start):]
    return Answer(text, source, tokens, start, conclusion, reading.strong, content, triggers, cues,
                  unmasked_content, first_char=reading.first_char, question=question)


def _index(tokens: list[Token]) -> tuple[list[int], list[int], list[int]]:
    """The indices of the tokens matching may use (not punctuation, labels or soft words), of the
    words that may start an abstention phrase, and of the tokens that may start a role cue."""
    content: list[int] = []
    triggers: list[int] = []
    cues: list[int] = []
    word_flags = _WORD_FLAGS
    for i, t in enumerate(tokens):
        kind = t.kind
        if kind == WORD:
            flags = word_flags.get(t.text)
            if flags is None:
                flags = _word_flags(t.text)
            if flags:
                if flags & _CUE:
                    cues.append(i)
                if flags & _TRIGGER:
                    triggers.append(i)
                if flags & _SOFT_WORD:
                    continue
            content.append(i)
        elif kind == PUNCT:
            if t.text in CUE_STARTS:
                cues.append(i)
        elif kind != LABEL:
            content.append(i)
    return content, triggers, cues


def _restatements(tokens: list[Token], info: QuestionInfo) -> tuple[set[int], set[int]]:
    """The tokens that restate the question (runs of four or more of its words or values within a
    sentence holding one of its 4-grams), and those of them that restate the question itself."""
    question_keys = info.keys
    # a value is compared by (kind, repr(value)): without such a key no value can echo the question
    values_echo = any(type(k) is tuple and len(k) == 2 and type(k[1]) is str for k in question_keys)
    masked: set[int] = set()
    question_echo: set[int] = set()
    run: list[int] = []  # consecutive tokens that all occur in the question (a restatement?)
    run_keys: list[object] = []
    for i, t in enumerate(tokens):
        kind = t.kind
        if kind == PUNCT:
            if run and t.text in SENTENCE_END:  # a restatement does not run across sentences
                if len(run) >= 4:
                    _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
                run, run_keys = [], []
            continue
        key = t.value if kind == WORD else echo_key(t) if values_echo else None
        if key is not None and key in question_keys:
            run.append(i)
            run_keys.append(key)
        elif run:
            if len(run) >= 4:
                _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
            run, run_keys = [], []
    if len(run) >= 4:
        _echoed(tokens, run, run_keys, info.grams, masked, question_echo)
    return masked, question_echo
