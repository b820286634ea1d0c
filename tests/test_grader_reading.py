"""The official reader reads a long reply from the paragraph break at or before its conclusion, and
the scanner reads plain texts without its pattern: both are shortcuts that must give exactly what
the whole reading gives. These tests compare each shortcut with the long way, on generated replies
(lists numbered across paragraphs, markers at paragraph starts, values next to breaks) and, where
``../shared`` is present, on every judged dev answer.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supersede_env.core.grader import answer as answer_module
from supersede_env.core.grader import grade
from supersede_env.core.grader.answer import (
    PARAGRAPH_BREAK,
    SHORT_REPLY,
    START_OF,
    Reading,
    _read,
    _strong_offset,
    _weak_start,
    read_answer,
    read_conclusion,
)
from supersede_env.core.grader.tokens import normalise_text, scan, tokenize
from tests.grader_cases import dev_rows
from tests.shared_data import DEV_FILE, missing_reason


def _key(tokens):
    return [(t.kind, repr(t.value), t.start, t.end, t.text, t.number, t.unit) for t in tokens]


def _whole_start(text: str, tokens) -> int:
    """Where the conclusion starts, found on the whole reply's tokens (the rule, read the long way)."""
    strong = _strong_offset(text)
    if strong is not None:
        return bisect_left(tokens, strong, key=START_OF)
    weak = _weak_start(text, tokens)
    if weak is not None:
        return weak[1]
    if len(text) <= SHORT_REPLY:
        return 0
    para = text.rfind("\n\n", 0, max(0, len(text.rstrip()) - 1))
    return 0 if para <= 0 else bisect_left(tokens, para, key=START_OF)


def _assert_reads_as_whole(answer: str, question: str | None = None) -> None:
    text = normalise_text(answer)
    whole = tokenize(text)
    reading = read_conclusion(text)
    skipped = bisect_left(whole, reading.first_char, key=START_OF)
    assert _key(reading.tokens) == _key(whole[skipped:]), "the window's tokens are the whole reply's"
    assert reading.start + skipped == _whole_start(text, whole), "the conclusion starts where it does whole"
    a = read_answer(answer, question)
    b = _read(text, a.source, Reading(0, whole, _whole_start(text, whole), a.strong), question)
    k = skipped
    assert [t.kind for t in a.tokens] == [t.kind for t in b.tokens[k:]], "list numbering is read the same"
    assert a.content == [i - k for i in b.content if i >= k]
    assert a.all_content == [i - k for i in b.all_content if i >= k]
    assert a.concluded == (b.start > 0)


PARAGRAPHS = [
    "Looking at the sessions, you mentioned Denver first.", "1. Denver\n2. Portland", "3. Boston",
    "Therefore, you live in Portland now.", "**Answer:** Portland", "Step 2: Provide the answer",
    "In summary, it is 47.", "The answer is 6 pm", "twenty\n\nfive", "5\n\npm", "## Conclusion", "Overall",
    "Based on this information, Portland.", "between 5 and", "7 minutes", "which\n\nmeans Boston",
    "| Old | New |\n| --- | --- |\n| Denver | Portland |", "- 2. item", "so the answer\n\nis Portland",
    "Answer:", "thus", "I can conclude", "that you moved in 2023.", "10-12 hours", "~47",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PARAGRAPHS), min_size=1, max_size=14),
       st.lists(st.sampled_from(["\n\n", "\n\n\n", "\n \n", "\n", " "]), min_size=14, max_size=14))
def test_a_long_reply_reads_as_it_does_whole(paragraphs: list[str], joins: list[str]) -> None:
    filler = "You said a lot in these sessions, and I read each one of them carefully. " * 4
    answer = filler + "".join(p + j for p, j in zip(paragraphs, joins)).strip()
    _assert_reads_as_whole(answer, "Where do I live now?")
    _assert_reads_as_whole(answer, None)


LINES = ["Seattle", "Denver ->", "~~", "**", "#", "> Seattle", "The answer is", "My answer would be", "Previously:", "I don't know.", "Not",
         "In 2023 you lived in Denver. In 2024", ";", "|", "/", "- Seattle", "1. Seattle", "Therefore", "Overall",
         "| Denver | Portland |", "<answer>", "Final answer:", "Seattle or", "47", "52 plants", "6:45 pm", "Yes"]
BREAKS = ["\n\n", "\n \n", "\n\n\n", "\n\t\n", "\u2029", "\n", " "]
GOLDS = [("Portland", ["Seattle", "Denver"], "Where do I live now?"), ("47", ["52"], "How many plants do I have?"),
         ("6:45 pm", ["7 pm"], None), ("Yes", [], "Do I still own the bike?"), ("Overall", ["Therefore"], None)]


def _verdicts(answer: str, gold: str, stale: list[str], question: str | None) -> list[tuple]:
    return [(v.label, v.r_cur, v.r_stale) for v in
            (grade(answer, gold, stale=stale, question=question, mode=m) for m in ("official", "strict"))]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LINES), st.sampled_from(BREAKS)), min_size=1, max_size=6),
       st.sampled_from(GOLDS), st.booleans())
def test_a_long_reply_grades_as_it_does_read_whole(lines: list[tuple[str, str]], case, gold_last: bool) -> None:
    """The window is a shortcut: every verdict is the one the whole reply's reading gives, for items,
    separators, markers and tables in the paragraphs before the conclusion."""
    gold, stale, question = case
    filler = "You said a lot in these sessions, and I read each one of them carefully. " * 9
    answer = filler + "\n" + "".join(line + brk for line, brk in lines) + (gold if gold_last else "")
    windowed = _verdicts(answer, gold, stale, question)
    with mock.patch.object(answer_module, "PARAGRAPH_BREAK", re.compile(r"(?!)")):  # no break: read whole
        whole = _verdicts(answer, gold, stale, question)
    assert windowed == whole


def test_a_value_on_the_line_before_the_conclusions_paragraph_is_read() -> None:
    filler = "You said a lot in these sessions, and I read each one of them carefully. " * 9
    for layout in ("\nSeattle\n\nPortland", "\nSeattle\n\n;\n\nPortland", "\nSeattle\n\n~~\n\nPortland",
                   "\nThe answer is\n\nPortland"):
        assert grade(filler + layout, "Portland", stale=["Seattle"]).label == "hedged", layout


def test_numbering_across_paragraphs_is_read_from_the_whole_reply() -> None:
    answer = ("x " * 320) + "\n\n1. Denver\n\n2. Phoenix\n\nAll in all, and therefore:\n\n3. Portland"
    _assert_reads_as_whole(answer)
    a = read_answer(answer, None)
    assert a.text[a.first_char:].startswith("\n\nall in all"), "the reading starts at the conclusion's paragraph"
    assert a.tokens[-3].kind == "L", "3. is numbering: 2. is in a paragraph before the reading"


def test_dev_answers_read_as_they_do_whole() -> None:
    rows = dev_rows()
    if rows is None:
        pytest.skip(missing_reason(DEV_FILE))
    long = [r for r in rows if len(r["hypothesis"]) > SHORT_REPLY]
    for row in random.Random(7).sample(long, min(300, len(long))):
        _assert_reads_as_whole(row["hypothesis"], row["question"])


WORDS = ["you", "live", "in", "boston", "it's", "a", "an", "dozen", "twenty", "five", "minutes", "hours",
         "half", "noon", "every", "week", "am", "pm", "at", "47", "5", "2023", "0", "007", "12", "to", "and",
         "between", "dollars", "percent", "session", "step", "apples", "pears", "may", "first", "o'clock"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), st.sampled_from(["", ".", "!", "?"]))
def test_a_plain_text_scans_as_the_pattern_reads_it(words: list[str], stop: str) -> None:
    text = " ".join(words) + stop
    fast = scan(text)
    slow = scan(text, 0, len(text))  # the pattern's way: the plain path is taken only for a whole text
    assert _key(fast[0]) == _key(slow[0]) and fast[1:] == slow[1:]


def test_paragraph_breaks_are_the_scanners() -> None:
    text = "a\n \n\nb\n\n5\n\n\npm\n\t\nc"
    breaks = [m.start() for m in PARAGRAPH_BREAK.finditer(text)]
    assert [t.start for t in tokenize(text) if t.text == "\n\n"] == breaks


def test_a_long_reply_with_its_answer_at_a_break_grades_as_concluded() -> None:
    reply = ("I went through every session in order and noted each place you mentioned. " * 10
             + "You lived in Denver for a while.\n\n**Answer**\n\nPortland")
    assert grade(reply, "Portland", stale=["Denver"]).label == "current"
