"""Rivals among typed values: another time, date, amount, duration or count of the gold's sort, another
range, another day of the week or month."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from supersede_env.core.grader.answer import TERSE_REPLY
from supersede_env.core.grader.conclusion import SHORT_REPLY
from supersede_env.core.grader.gold import Gold
from supersede_env.core.grader.labels import is_year
from supersede_env.core.grader.lexicon import (
    CUE_STARTS,
    LINKS,
    MONTHS,
    SEQUENCE_OR_HEDGE,
    SOFT,
    WEEKDAYS,
)
from supersede_env.core.grader.mention import Mention, is_bare_item
from supersede_env.core.grader.tokens import (
    CLOCK,
    DATE,
    DUR,
    FREQ,
    NUM,
    TIME,
    VALUE_KINDS,
    WORD,
    Token,
    values_equal,
)

if TYPE_CHECKING:
    from supersede_env.core.grader.answer import Answer
    from supersede_env.core.grader.rivals import RivalSearch


def _comparable(gold_tok: Token, t: Token) -> bool:
    """Is value ``t`` of the gold's sort, so a rival answer when it differs from the gold?"""
    gk = gold_tok.kind
    if gk in (TIME, CLOCK):
        return t.kind == TIME or (t.kind == CLOCK and bool(t.value[0]))
    if gk in (DATE, FREQ):
        return t.kind == gk
    if gk == DUR:  # "25 minutes and 50 seconds" vs "27:12" (a clock reading of a duration)
        return (t.kind == DUR and t.value[0] == gold_tok.value[0]) or (
            t.kind == CLOCK and gold_tok.value[0] == "s" and bool(t.value[1]))
    if gk == NUM:
        return gold_tok.unit is not None and t.kind == NUM and t.unit == gold_tok.unit
    return False


def value_rivals(s: RivalSearch) -> list[Mention]:
    """Other values of the gold's sort in the conclusion: rivals whatever their role.

    Typed values (times, dates, money, durations, frequencies) compete wherever they stand. A bare
    count competes when it stands as a list item ("15; 18"), beside another number ("42 43 44"), or
    counts the same thing in a short reply after a sequence
    or hedge word ("47 then 52", "47, maybe 50") or when the source ``told`` of no other value (a reasoned
    answer counts other things too); a year is a date, not a count."""
    a, gold, covered, question, gold_spans, told = s.a, s.gold, s.covered, s.question, s.gold_spans, s.told
    gold_tok = gold.single_value
    if gold_tok is None:
        return []
    tokens = a.tokens
    units = gold.alternatives[0].parts[0].optional
    n = len(tokens)
    nouns: frozenset | None = None  # what the gold counts (built when needed)
    starts = [s for s, _ in covered]
    out = []
    short = len(a.text) <= SHORT_REPLY
    terse = len(a.text) <= TERSE_REPLY
    for i in _other_values(a, gold):
        t = tokens[i]
        k = bisect_right(starts, i) - 1
        if k >= 0 and covered[k][0] <= i <= covered[k][1]:
            continue  # part of a known candidate
        if gold_tok.kind == NUM and t.kind == NUM and t.unit == gold_tok.unit:
            if is_year(t) and not is_year(gold_tok):
                continue
            beside_number = (i > 0 and tokens[i - 1].kind == NUM) or (i + 1 < n and tokens[i + 1].kind == NUM)
            # "47 then 52", "47, maybe 50"; in a short reply to a source that named no other value, every count
            same_count = (short and _after_marker(tokens, i)) or (terse and not told)
            if same_count and nouns is None:
                # its unit words, the question's words, the word after the gold in the answer
                nouns = units | question | {tokens[e + 1].value for _, e in gold_spans
                                            if e + 1 < n and tokens[e + 1].kind == WORD}
            after = tokens[i + 1] if i + 1 < n else None
            counts_same = same_count and (after is None or after.kind != WORD or after.value in nouns or (
                not told and (after.text in SOFT or after.text in LINKS or after.text in CUE_STARTS)))
            if is_bare_item(tokens, i, i, units) or beside_number or counts_same:
                out.append(Mention(a.snippet(i, i), "rival", i, i))
        elif _comparable(gold_tok, t):
            out.append(Mention(a.snippet(i, i), "rival", i, i))
    return out


def _other_values(a: Answer, gold: Gold) -> list[int]:
    """The conclusion's value tokens (indices, in text order) of a value other than the gold's, each
    distinct value compared once."""
    tokens, all_content, skip, gold_tok = a.tokens, a.all_content, a.skip, gold.single_value
    found = []
    for ps in a.value_groups.values():
        t = tokens[all_content[ps[0]]]
        if t.kind in VALUE_KINDS and not values_equal(gold_tok, t) and not gold.accepts(t):
            found.extend(all_content[p] for p in ps if p >= skip)
    return sorted(found)


def range_rivals(s: RivalSearch) -> list[Mention]:
    """Other ranges of the gold range's sort ("5-6 hours" beside "10-12 hours", "3-2" beside "5-2")."""
    a, covered = s.a, s.covered
    tokens = a.tokens
    start, end = s.gold.value_range
    out = []
    for j in range(max(a.start, 1), len(tokens) - 1):
        t = tokens[j]
        if t.kind != WORD or t.value != "~":
            continue
        lo, hi = tokens[j - 1], tokens[j + 1]
        if lo.kind not in VALUE_KINDS or hi.kind != end.kind or (values_equal(start, lo) and values_equal(end, hi)):
            continue
        if any(s <= j <= e for s, e in covered):
            continue  # the gold itself, or a known candidate
        if (hi.kind == NUM and hi.unit != end.unit) or (hi.kind == DUR and hi.value[0] != end.value[0]):
            continue  # another quantity ("5-6 kg" beside "10-12 hours" is not a rival reading)
        out.append(Mention(a.snippet(j - 1, j + 1), "rival", j - 1, j + 1))
    return out


def _after_marker(tokens: list[Token], i: int) -> bool:
    """Does a sequence or hedge word come right before token i (soft words and commas aside)?"""
    k = i - 1
    while k >= 0 and (tokens[k].text in SOFT or tokens[k].text == ","):
        k -= 1
    return k >= 0 and tokens[k].text in SEQUENCE_OR_HEDGE


_CLASSES: dict[int, tuple[Gold, frozenset, tuple[frozenset, ...]]] = {}


def closed_classes(gold: Gold) -> tuple[frozenset, tuple[frozenset, ...]]:
    """The gold's words, and the closed kinds (weekdays, months) it names (cached by identity)."""
    known = _CLASSES.get(id(gold))
    if known is not None and known[0] is gold:
        return known[1], known[2]
    words = frozenset(t.value for alt in gold.alternatives for p in alt.parts for t in p.required if t.kind == WORD)
    classes = tuple(c for c in (WEEKDAYS, MONTHS) if words & c)
    if len(_CLASSES) > 50_000:
        _CLASSES.clear()
    _CLASSES[id(gold)] = (gold, words, classes)
    return words, classes


def closed_class_rivals(s: RivalSearch) -> list[Mention]:
    """Days of the week and months are values of a closed kind: when the gold names some, every other
    one the answer names competes with it ("Mondays, Tuesdays, ..., Sundays" for "Mondays and
    Wednesdays" is a sweep, not an answer)."""
    a, covered = s.a, s.covered
    words, classes = closed_classes(s.gold)
    if not classes:
        return []
    tokens = a.tokens
    starts = [s for s, _ in covered]
    out = []
    for i in a.content:
        t = tokens[i]
        if t.kind != WORD or t.value in words or not any(t.value in c for c in classes):
            continue
        k = bisect_right(starts, i) - 1
        if k >= 0 and covered[k][0] <= i <= covered[k][1]:
            continue
        if out and all(tokens[k].text in (",", "and", "&") for k in range(out[-1].last + 1, i)):
            # "Thursdays and Fridays": one value of several days, which one cue marks as a whole
            out[-1] = Mention(a.snippet(out[-1].first, i), "rival", out[-1].first, i)
            continue
        out.append(Mention(a.snippet(i, i), "rival", i, i))
    return out
