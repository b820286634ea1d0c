"""Rivals named by words: an item offered with the gold ("or", "/", a range), a conjunct of a one-thing
gold, a name listed on its own line, a name in sequence with the gold, and the other names of a terse
reply to a source that named none."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from supersede_env.core.grader.answer import Answer, Span
from supersede_env.core.grader.lexicon import (
    ALTERNATIVE_WORDS,
    CLAUSE_BREAK_PUNCT,
    CLAUSE_BREAK_WORDS,
    COPULAS,
    CUE_STARTS,
    CUE_TABLE,
    HEADINGS,
    LINE_SEPARATORS,
    MONTHS,
    NAME_HEDGES,
    NOT_A_RIVAL,
    PLACE_PREPOSITIONS,
    PRONOUNS,
    SENTENCE_END,
    SEPARATOR_PUNCT,
    SEQUENCE_WORDS,
    SOFT,
    TO_WORDS,
    WEEKDAYS,
)
from supersede_env.core.grader.mention import RANGE_CUE, Mention, is_bare_item, is_capitalised_name
from supersede_env.core.grader.names import name_runs
from supersede_env.core.grader.tokens import (
    LABEL,
    PUNCT,
    VALUE_KINDS,
    WORD,
    Token,
    other_unit,
)

if TYPE_CHECKING:
    from supersede_env.core.grader.rivals import RivalSearch


def _word_rival_after(tokens: list[Token], j: int, step: int, gold_cover: set[int]) -> tuple[int, int] | None:
    """The unknown item on the far side of an "or" / "/" at index j (a span), if it names something."""
    k = j + step
    seen = 0
    while 0 <= k < len(tokens) and seen < 4:
        t = tokens[k]
        if t.kind == PUNCT:
            if t.text in CLAUSE_BREAK_PUNCT and t.text not in ("(", ")"):
                return None
            k += step
            continue
        if t.kind == WORD and (t.text in SOFT or t.text in NAME_HEDGES):
            k += step
            seen += 1
            continue
        if k in gold_cover or (t.kind == WORD and (t.text in NOT_A_RIVAL or t.text in PRONOUNS)) or t.kind == LABEL:
            return None
        return (k, k)
    return None


def disjunction_rivals(s: RivalSearch) -> list[Mention]:
    """Unknown items offered with the gold: "Portland or Seattle", "25/27", "25-30" (a range), outside
    the known candidates."""
    a, gold_spans, gold, value_gold = s.a, s.gold_spans, s.gold, s.value_gold
    tokens = a.tokens
    cover = {k for s, e in gold_spans for k in range(s, e + 1)}
    out: list[Mention] = []
    for first, last in gold_spans:
        for step, edge in ((1, last), (-1, first)):
            j, hops = edge + step, 0
            while 0 <= j < len(tokens) and hops < 3:
                t = tokens[j]
                if t.kind == PUNCT and t.text in CLAUSE_BREAK_PUNCT and t.text not in ("(", ")"):
                    break
                if (t.kind == WORD and t.text in ALTERNATIVE_WORDS) or (t.kind == PUNCT and t.text == "/"):
                    span = _word_rival_after(tokens, j, step, cover)
                    if span is not None:
                        r = tokens[span[0]]
                        # a unit alone after the value offers the same number in it ("25 minutes or seconds")
                        if not value_gold or (r.kind in VALUE_KINDS and not gold.accepts(r)) or (
                                step == 1 and gold.single_value is not None and other_unit(gold.single_value, r)):
                            out.append(Mention(a.snippet(*span), "rival", span[0], span[1], role="hedged",
                                               cue=t.text, anchor=(first, last)))
                    break
                if value_gold and t.kind == WORD and t.value == "~" and abs(j - edge) == 1:
                    # a range with the gold at one end ("25-30"); "from 55 to 39" is a change, not a range
                    other_i = j + step
                    low = min(first, other_i)
                    changed_from = low > 0 and tokens[low - 1].kind == WORD and tokens[low - 1].text == "from"
                    if not (changed_from and step == -1) and 0 <= other_i < len(tokens):
                        other = tokens[other_i]
                        if other.kind in VALUE_KINDS and other_i not in cover and not gold.accepts(other):
                            out.append(Mention(a.snippet(other_i, other_i), "rival", other_i, other_i,
                                               role="hedged", cue=RANGE_CUE, anchor=(first, last)))
                    break
                if t.kind in VALUE_KINDS or (t.kind == WORD and t.text not in SOFT):
                    hops += 1
                j += step
    return [r for r in out if not any(first <= r.first <= last for first, last in s.covered)]


def name_rivals(s: RivalSearch) -> list[Mention]:
    """When the source named no other candidate: the other names of a terse reply ("Chevy Malibu, Toyota
    Prius"), months and weekdays aside (a date beside the value, not another value): only names in the
    gold's place."""
    a, covered, question = s.a, s.covered, s.question
    cover = {k for s, e in covered for k in range(s, e + 1)}
    out = []
    for i, j in name_runs(a, question, listed=True):
        if any(k in cover for k in range(i, j + 1)):
            continue
        if all(a.tokens[k].value in MONTHS or a.tokens[k].value in WEEKDAYS for k in range(i, j + 1)):
            continue
        # only a name in the gold's place: an item of a list, or a name a cue speaks of ("Porto is current",
        # "previously Chevy Malibu", "Chevy Malibu now"); "Your sister Emily lives in Denver" names a person
        if not is_bare_item(a.tokens, i, j, frozenset()) and not _cue_beside(a.tokens, i, j) \
                and not _beside(a.tokens, i, j, cover):
            continue
        out.append(Mention(a.snippet(i, j), "rival", i, j))
    return out


def _beside(tokens: list[Token], i: int, j: int, cover: set[int]) -> bool:
    """Do tokens i..j stand right beside a known candidate, punctuation apart ("Prius + Malibu", "Prius\tMalibu")?"""
    for k, step in ((i - 1, -1), (j + 1, 1)):
        while 0 <= k < len(tokens) and tokens[k].kind == PUNCT and tokens[k].text not in SENTENCE_END:
            k += step
        if 0 <= k < len(tokens) and k in cover:
            return True
    return False


def _cue_beside(tokens: list[Token], i: int, j: int) -> bool:
    """Is the word just before tokens i..j, or just after (soft words apart), a cue other than a bare tense
    ("lives", "was")?"""
    for k, step in ((i - 1, -1), (j + 1, 1)):
        while 0 <= k < len(tokens) and tokens[k].kind == WORD and tokens[k].text in SOFT and tokens[k].text not in CUE_STARTS:
            k += step
        if 0 <= k < len(tokens) and tokens[k].kind == WORD and (
                tokens[k].text in COPULAS or any(
                    c.kind not in ("pasttense", "presenttense") for c in CUE_TABLE.get(tokens[k].text, ()))):
            return True
    return False


SEQUENCE_HINT = re.compile(r"\b(?:then|now|later|actually|afterwards|eventually|finally|from)\b|->|<-|=>|<=|\u2192|\u2190")


def sequence_rivals(s: RivalSearch) -> list[Mention]:
    """A name in sequence with the gold, in a short reply: "Lexington then Boston", "Boston -> Lexington",
    "Lexington (now Boston)", "from Lexington to Boston": another value of the same fact, whether or not
    the grader was told of it (which one is current is then the cues' business). With ``phrases`` (a
    terse reply to a source that named no other candidate) an uncapitalised phrase counts too: "under my
    bed, then a shoe rack"."""
    a, gold_spans, covered, question = s.a, s.gold_spans, s.covered, s.question
    phrases = s.terse_and_untold and not s.value_gold
    tokens, source = a.tokens, a.source
    cover = {k for s, e in covered for k in range(s, e + 1)}

    def skip(j: int, step: int) -> int:
        while 0 <= j < len(tokens) and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in TO_WORDS and (
                tokens[j].kind == PUNCT and tokens[j].text != "\n\n" or tokens[j].kind == WORD and tokens[j].text in SOFT):
            j += step
        return j

    def name_at(j: int, step: int) -> Mention | None:
        run = []
        while 0 <= j < len(tokens) and j not in cover and tokens[j].kind == WORD and \
                source[tokens[j].start:tokens[j].start + 1].isupper() and tokens[j].text not in PRONOUNS \
                and tokens[j].text not in NOT_A_RIVAL and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in CUE_STARTS:
            run.append(j)
            j += step
        if not run and phrases:
            return phrase_at(j, step)
        if not run:
            return None
        lo, hi = min(run), max(run)
        return Mention(a.snippet(lo, hi), "rival", lo, hi)

    def phrase_at(j: int, step: int) -> Mention | None:
        run = []
        while 0 <= j < len(tokens) and len(run) < 6 and j not in cover and tokens[j].kind != PUNCT \
                and tokens[j].text not in SEQUENCE_WORDS and tokens[j].text not in CUE_STARTS:
            run.append(j)
            j += step
        words = [tokens[k] for k in run if tokens[k].text not in SOFT]
        if not words or (tokens[run[0] if step == 1 else run[-1]].text in PRONOUNS) or all(
                w.text in NOT_A_RIVAL or w.value in question for w in words):
            return None
        lo, hi = min(run), max(run)
        return Mention(a.snippet(lo, hi), "rival", lo, hi)

    out: list[Mention] = []
    for first, last in gold_spans:
        j = skip(last + 1, 1)
        changed_from = first > 0 and tokens[first - 1].text == "from"
        if j < len(tokens) and (tokens[j].text in SEQUENCE_WORDS or (changed_from and tokens[j].text in TO_WORDS)):
            m = name_at(skip(j + 1, 1), 1)
            if m is not None:
                out.append(m)
        j = skip(first - 1, -1)
        if j >= 0 and (tokens[j].text in SEQUENCE_WORDS or tokens[j].text in TO_WORDS):
            m = name_at(skip(j - 1, -1), -1)
            if m is not None and (tokens[j].text in SEQUENCE_WORDS or (m.first > 0 and tokens[m.first - 1].text == "from")):
                out.append(m)
    return out


def _conjunct_rival(a: Answer, span: Span, gold_cover: set[int]) -> Mention | None:
    """"a yellow dress and a pair of earrings" / "Down Dog and Serenity Yoga" for a gold of one thing."""
    tokens = a.tokens
    # after: ", and X" up to the end of the clause
    j = span[1] + 1
    while j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text == ",":
        j += 1
    if j < len(tokens) and tokens[j].kind == WORD and tokens[j].text == "and":
        j += 1
        first = j
        words = 0
        while j < len(tokens) and words <= 4:
            t = tokens[j]
            if t.kind == PUNCT:
                break
            if (t.kind == WORD and (t.text in PRONOUNS or t.text in CLAUSE_BREAK_WORDS)) or j in gold_cover:
                words = 99
                break
            if not (t.kind == WORD and t.text in SOFT):
                words += 1
            j += 1
        if 0 < words <= 4 and (j >= len(tokens) or tokens[j].kind == PUNCT):
            return Mention(a.snippet(first, j - 1), "rival", first, j - 1, anchor=span)
    # before: "X and <gold>"
    j = span[0] - 1
    while j >= 0 and tokens[j].kind == WORD and tokens[j].text in SOFT and tokens[j].text not in PLACE_PREPOSITIONS:
        j -= 1
    if j < 0 or not (tokens[j].kind == WORD and tokens[j].text == "and"):
        return None
    j -= 1
    last = j
    words = 0
    while j >= 0 and words <= 4:
        t = tokens[j]
        if t.kind == PUNCT or (t.kind == WORD and t.text in SOFT):
            break
        if (t.kind == WORD and (t.text in PRONOUNS or t.text in CLAUSE_BREAK_WORDS)) or j in gold_cover:
            return None
        words += 1
        j -= 1
    if not 0 < words <= 4 or j < 0:
        return None
    return Mention(a.snippet(j + 1, last), "rival", j + 1, last, anchor=span)


def line_rivals(s: RivalSearch) -> list[Mention]:
    """Unknown names listed on their own, next to the gold: "Maui\\nOahu", "Maui; Oahu" (word golds)."""
    a, covered, gold_spans = s.a, s.covered, s.gold_spans
    tokens = a.tokens
    out = []
    for first, last in gold_spans:
        if not is_bare_item(tokens, first, last, frozenset()):
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            sep = None
            while 0 <= j < len(tokens) and tokens[j].kind == PUNCT and tokens[j].text in LINE_SEPARATORS:
                sep = tokens[j].text
                j += step
            if sep is None or not 0 <= j < len(tokens):
                continue
            # the item on the other side, up to the next separator
            k = j
            while 0 <= k + step < len(tokens) and not (tokens[k + step].kind == PUNCT and (
                    tokens[k + step].text in SEPARATOR_PUNCT or tokens[k + step].text in SENTENCE_END)):
                k += step
                if abs(k - j) > 4:
                    break
            i0, i1 = min(j, k), max(j, k)
            if abs(k - j) > 3 or any(s <= i0 <= e or s <= i1 <= e for s, e in covered):
                continue
            if tokens[i0].kind == WORD and tokens[i0].text not in HEADINGS and is_capitalised_name(a, i0, i1) \
                    and is_bare_item(tokens, i0, i1, frozenset()):
                out.append(Mention(a.snippet(i0, i1), "rival", i0, i1, anchor=(first, last)))
    return out


_OR_HINT = re.compile(r"\bor\b|/|\bvs\b|\bversus\b|\beither\b")


def _has_or(text: str) -> bool:
    """Could the text offer alternatives? (substring tests first: the pattern is slower on long text)"""
    return ("or" in text or "/" in text or "vs" in text or "either" in text) and _OR_HINT.search(text) is not None


_RANGE_HINT = re.compile(r"\d\s*(?:-|\bto\b|\bthrough\b)")


def conjunct_rivals(s: RivalSearch) -> list[Mention]:
    cover = {k for first, last in s.gold_spans for k in range(first, last + 1)}
    found = (_conjunct_rival(s.a, span, cover) for span in s.gold_spans)
    return [r for r in found if r is not None and not any(first <= r.first <= last for first, last in s.covered)]


def offers_alternatives(s: RivalSearch) -> bool:
    text = s.a.read_text
    return _has_or(text) or (s.value_gold and ("-" in text or " to " in text or "through" in text)
                             and _RANGE_HINT.search(text) is not None)
