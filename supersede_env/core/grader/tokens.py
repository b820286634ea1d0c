"""Normalised text -> value-aware tokens: the meaning-level normalisation the grader matches on.

A token is a word, a punctuation mark, or a *value*: a number, a clock time, a duration, a date, a
frequency, or a label number (:mod:`.lex_token`). Values are parsed from the forms people write, so
that ``"four"``, ``"4"`` and ``"4th"`` are the same number, ``"6 pm"``, ``"6:00 p.m."`` and
``"18:00"`` the same time, ``"25 minutes and 50 seconds"`` and ``"25:50"`` the same duration,
``"every other week"`` and ``"biweekly"`` the same frequency, and ``"$400,000"`` /
``"400k dollars"`` the same amount. Matching compares parsed values, never characters
(:mod:`.lex_values`), which is why ``25`` does not occur in ``250`` and ``ten`` does not occur in
``tennis``.

:func:`tokenize` is the single entry point and reads text already normalised by
:func:`supersede_env.core.grader.text.normalise_text`. It runs, in order:

1. the scanner (:mod:`.lex_scan`): words (stemmed, :mod:`.lex_words`), punctuation and the values
   written with digits;
2. the number-word pass (:mod:`.lex_numbers`): spelled-out numbers, when the text has one;
3. the structure pass, below: the rules of each grammar that join tokens into values (money and
   measures :mod:`.lex_quantities`, numbers :mod:`.lex_numbers`, times of day :mod:`.lex_times`,
   dates :mod:`.lex_dates`, durations and frequencies :mod:`.lex_durations`), then ranges.

This module is the lexer's public face: the rest of the grader imports tokens and value
comparison from here.
"""

from __future__ import annotations

from collections.abc import Callable

from supersede_env.core.grader import lex_dates as dates
from supersede_env.core.grader import lex_durations as durations
from supersede_env.core.grader import lex_numbers as numbers
from supersede_env.core.grader import lex_times as times
from supersede_env.core.grader.lex_numbers import is_year_number
from supersede_env.core.grader.lex_quantities import CURRENCY_SYMBOLS, currency_sign, measure_unit, unit_of
from supersede_env.core.grader.lex_scan import scan
from supersede_env.core.grader.lex_token import (
    CLOCK,
    DATE,
    DUR,
    FREQ,
    LABEL,
    NUM,
    PUNCT,
    TIME,
    VALUE_KINDS,
    WORD,
    Token,
)
from supersede_env.core.grader.lex_values import other_unit, values_equal
from supersede_env.core.grader.lex_words import stem

__all__ = [
    "CLOCK",
    "DATE",
    "DUR",
    "FREQ",
    "LABEL",
    "NUM",
    "PUNCT",
    "TIME",
    "VALUE_KINDS",
    "WORD",
    "Token",
    "is_year_number",
    "other_unit",
    "stem",
    "tokenize",
    "unit_of",
    "values_equal",
]

Rule = Callable[[list[Token], int, list[Token]], "int | None"]  # (tokens, index, out) -> next index or None

# A number first goes through the rewrites, which merge what follows it into it in place ("1.2
# million", "three and a half"), then through the rules in order; the first that applies emits its
# token(s); a number none applies to keeps its measurement unit, if one follows.
_NUMBER_REWRITES = (numbers.scale_word, numbers.and_a_half)
_NUMBER_RULES: tuple[Rule, ...] = (
    times.hour_in_words,  # before the label and date rules: "6 o'clock" is never "Session 6"
    numbers.label_number,
    dates.month_day,
    dates.day_month,
    dates.day_of_month,
    durations.times_per_period,
    durations.number_duration,
)
# A word's rules, in order, with the words each can start at: the first that applies emits.
_WORD_RULES: tuple[tuple[frozenset[str], Rule], ...] = (
    (frozenset(durations.MULTIPLES), durations.multiple_per_period),
    (frozenset(durations.FREQ_ADVERBS), durations.frequency_adverb),
    (frozenset({"every"}), durations.every_period),
    (frozenset({"half", "quarter", "a"}), times.clock_in_words),
    (frozenset({"half"}), durations.half_a_unit),
    (frozenset({"a", "an"}), durations.a_unit),
    (frozenset({"noon", "midday", "midnight"}), times.noon_or_midnight),
)
_RULES_OF_WORD: dict[str, tuple[Rule, ...]] = {}
for _words, _rule in _WORD_RULES:
    for _w in _words:
        _RULES_OF_WORD[_w] = _RULES_OF_WORD.get(_w, ()) + (_rule,)


def tokenize(prepared: str) -> list[Token]:
    """Tokens of an already normalised text, values parsed and merged."""
    tokens, need_words, need_structure = scan(prepared)
    if need_words:
        tokens = numbers.merge_number_words(tokens)
    if need_structure:
        tokens = _structure_pass(tokens)
    return tokens


def _structure_pass(toks: list[Token]) -> list[Token]:
    """Currency, scales, halves, dates, durations, frequencies, times in words, then ranges."""
    out: list[Token] = []
    n = len(toks)
    rules_of_word = _RULES_OF_WORD
    i = 0
    while i < n:
        t = toks[i]
        kind = t.kind
        nxt_i: int | None = None
        if kind == WORD:
            for rule in rules_of_word.get(t.text, ()):
                if (nxt_i := rule(toks, i, out)) is not None:
                    break
        elif kind == NUM:
            nxt_i = _number(toks, i, out)
        elif kind == PUNCT and t.text in CURRENCY_SYMBOLS:
            nxt_i = currency_sign(toks, i)
        if nxt_i is None:
            out.append(t)  # an ordinary word, mark or value: nothing applies
            nxt_i = i + 1
        i = nxt_i
    # a range needs two values: most texts have fewer, so skip the scan
    seen_value = False
    for t in out:
        if t.kind in VALUE_KINDS:
            if seen_value:
                return _ranges(out)
            seen_value = True
    return out


def _number(toks: list[Token], i: int, out: list[Token]) -> int:
    """The structure rules for the number at toks[i]: the index to go on from (its tokens emitted)."""
    for rewrite in _NUMBER_REWRITES:
        i = rewrite(toks, i)
    for rule in _NUMBER_RULES:
        if (nxt_i := rule(toks, i, out)) is not None:
            return nxt_i
    out.append(measure_unit(toks[i], toks[i + 1] if i + 1 < len(toks) else None))
    return i + 1


_RANGE_ENDS = frozenset({NUM, DUR, TIME, CLOCK, DATE})
_RANGE_SEPARATORS = frozenset({"-", ":", "to", "through"})


def _ranges(toks: list[Token]) -> list[Token]:
    """A hyphen, colon or "to" between two values is a range/score/ratio separator: one word "to"
    ("5-2" = "5 to 2", "10-12" = "10 to 12"), and so is the "and" of "between 2.5 and 5.5 weeks"."""
    n = len(toks)
    for i in range(1, n - 1):
        t = toks[i]
        if t.text == "and" and i >= 2 and toks[i - 2].text == "between" and toks[i - 1].kind in _RANGE_ENDS \
                and toks[i + 1].kind in _RANGE_ENDS:
            toks[i] = Token(WORD, "~", t.start, t.end, "to")
            continue
        if t.text not in _RANGE_SEPARATORS:
            continue  # fast path: the test below fails
        if t.kind == PUNCT and t.text in ("-", ":") or (t.kind == WORD and t.text in ("to", "through")):
            a, b = toks[i - 1], toks[i + 1]
            if t.text == ":" and (a.end != t.start or t.end != b.start):
                continue  # "3:1" is a ratio; "Not 39: 55" is a label and a value
            if a.kind in _RANGE_ENDS and b.kind in _RANGE_ENDS and (a.kind == b.kind or {a.kind, b.kind} <= {NUM, DUR}):
                toks[i] = Token(WORD, "~", t.start, t.end, "to")
    return toks
