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
from supersede_env.core.grader.lex_quantities import (
    CURRENCY_SYMBOLS,
    MEASURE_UNITS,
    currency_sign,
    measure_unit,
    unit_of,
)
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
from supersede_env.core.grader.lex_words import AMBIGUOUS_WEEKDAYS, WEEKDAYS, stem

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
# token(s); a number none applies to keeps its measurement unit, if one follows. Each rule with the
# words it needs right after the number or right before it (the rule's own first test, so that most
# rules are never called), and whether another number right after it will do.
_NUMBER_REWRITES = (numbers.scale_word, numbers.and_a_half)
_NO_WORDS: frozenset[str] = frozenset()
_NUMBER_RULES: tuple[tuple[frozenset[str], frozenset[str], bool, Rule], ...] = (
    # before the label and date rules: "6 o'clock" is never "Session 6"
    (times.AFTER_AN_HOUR, _NO_WORDS, True, times.hour_in_words),
    (_NO_WORDS, numbers.BEFORE_A_LABEL, False, numbers.label_number),
    (_NO_WORDS, dates.BEFORE_A_DAY, False, dates.month_day),
    (frozenset(dates.MONTHS), _NO_WORDS, False, dates.day_month),
    (frozenset({"of"}), _NO_WORDS, False, dates.day_of_month),
    (frozenset({"times", "time", "x"}), _NO_WORDS, False, durations.times_per_period),
    (frozenset(durations.DUR_UNITS), _NO_WORDS, False, durations.number_duration),
)
# Every rewrite and rule above needs one of these words right after the number (or, for the
# hour, another number), or one of these words right before it: a number with neither (most of
# them) goes straight to its unit. Keep them in step with the rules.
_AFTER_A_NUMBER = (numbers.AFTER_A_NUMBER | times.AFTER_AN_HOUR | dates.AFTER_A_DAY | durations.AFTER_A_COUNT)
_BEFORE_A_NUMBER = numbers.BEFORE_A_LABEL | dates.BEFORE_A_DAY
# words after a number that only the hour's rule needs, and only before a "." ("1 a.m.", not "1 a")
_DOTTED = times.DOTTED_PART_STARTS - (numbers.AFTER_A_NUMBER | dates.AFTER_A_DAY | durations.AFTER_A_COUNT)

# A word's rules, in order: the words each can start at, the words it needs right after them
# (None: any), and the rule. The first that applies emits.
_WORD_RULES: tuple[tuple[frozenset[str], frozenset[str] | None, Rule], ...] = (
    (frozenset(durations.MULTIPLES), None, durations.multiple_per_period),
    (frozenset(durations.FREQ_ADVERBS), None, durations.frequency_adverb),
    (frozenset({"every"}), None, durations.every_period),
    (frozenset({"half", "quarter"}), None, times.clock_in_words),
    (frozenset({"a"}), frozenset({"quarter"}), times.clock_in_words),
    (frozenset({"half"}), None, durations.half_a_unit),
    (frozenset({"a", "an"}), frozenset(durations.DUR_UNITS), durations.a_unit),
    (frozenset({"noon", "midday", "midnight"}), None, times.noon_or_midnight),
)
_RULES_OF_WORD: dict[str, tuple[tuple[frozenset[str] | None, Rule], ...]] = {}
for _words, _gate, _rule in _WORD_RULES:
    for _w in _words:
        _RULES_OF_WORD[_w] = _RULES_OF_WORD.get(_w, ()) + ((_gate, _rule),)
# the words some rule of a word needs right after it, for words whose every rule has such a gate
_GATE_OF_WORD: dict[str, frozenset[str]] = {
    w: frozenset().union(*(gate for gate, _ in rules)) for w, rules in _RULES_OF_WORD.items()
    if all(gate is not None for gate, _ in rules)}


def tokenize(prepared: str, pos: int = 0, endpos: int | None = None) -> list[Token]:
    """Tokens of an already normalised text (or of prepared[pos:endpos], at their offsets in
    ``prepared``), values parsed and merged."""
    tokens, marks, need_words, need_structure = scan(prepared, pos, endpos)
    if need_words:
        tokens, marks = numbers.merge_number_words(tokens, marks)
    if need_structure:
        tokens = _structure_pass(tokens, marks)
    if prepared.find("sun", pos, endpos) >= 0 or prepared.find("sat", pos, endpos) >= 0:
        tokens = _weekday_lists(tokens)
    return tokens


# what may stand between two weekdays of a list or a range ("Tue, Thu, Sun", "Sat and Sun", "Fri-Sun")
_WEEKDAY_LINKS = frozenset({",", "and", "&", "or", "/", "-", "to", "through"})


def _weekday_lists(tokens: list[Token]) -> list[Token]:
    """"sat" and "sun" read as Saturday and Sunday beside a weekday (a list, a range), as words elsewhere:
    swept both ways, so that a weekday read reaches the ambiguous ones beyond it ("Fri, Sat, Sun")."""
    out = list(tokens)
    for order in (range(len(out)), range(len(out) - 1, -1, -1)):
        for i in order:
            t = out[i]
            if (t.kind == WORD and t.text in AMBIGUOUS_WEEKDAYS and t.value not in WEEKDAYS
                    and _beside_weekday(out, i)):
                out[i] = t._replace(value=stem(AMBIGUOUS_WEEKDAYS[t.text]))
    return out


def _beside_weekday(tokens: list[Token], i: int) -> bool:
    """A weekday right beside tokens[i], or across a link word; across one, the other ambiguous one will
    do too ("Sat and Sun")."""
    for step in (-1, 1):
        j = i + step
        linked = 0 <= j < len(tokens) and tokens[j].text in _WEEKDAY_LINKS
        if linked:
            j += step
        if 0 <= j < len(tokens) and tokens[j].kind == WORD and (
                tokens[j].value in WEEKDAYS or linked and tokens[j].text in AMBIGUOUS_WEEKDAYS):
            return True
    return False


def _structure_pass(toks: list[Token], marks: list[int]) -> list[Token]:
    """Currency, scales, halves, dates, durations, frequencies, times in words, then ranges.

    Only a marked token (a number, a currency sign, a word some rule starts at) has anything to do:
    the tokens between two marks are copied as they are, a slice at a time."""
    out: list[Token] = []
    values: list[int] = []  # positions in out of the values a range can join
    n = len(toks)
    i = 0
    for k in marks:
        if k < i:
            continue  # consumed by the rule before
        if k > i:
            out.extend(toks[i:k])
        t = toks[k]
        kind = t.kind
        if kind == NUM:
            nxt = toks[k + 1] if k + 1 < n else None
            if (nxt is None or nxt.kind != NUM and (nxt.text not in _AFTER_A_NUMBER or (
                    nxt.text in _DOTTED and (k + 2 >= n or toks[k + 2].text != ".")))) and (
                    not out or out[-1].text not in _BEFORE_A_NUMBER):
                # no rule can apply (most numbers): the number, with the unit written after it
                values.append(len(out))
                out.append(t if nxt is None or nxt.text not in MEASURE_UNITS else measure_unit(t, nxt))
                i = k + 1
                continue
        elif kind == WORD:
            gate = _GATE_OF_WORD.get(t.text)
            if gate is not None and (k + 1 >= n or toks[k + 1].text not in gate):
                out.append(t)  # every rule of the word needs a word after it that is not there ("a" of "a1")
                i = k + 1
                continue
        elif kind == CLOCK and k + 1 < n and toks[k + 1].text in times.AFTER_A_CLOCK and (
                after := times.clock_part_of_day(toks, k, out)) is not None:
            values.append(len(out) - 1)  # "5:35 in the morning": a time of day
            i = after
            continue
        elif not (kind == PUNCT and t.text in CURRENCY_SYMBOLS):
            if kind in _RANGE_ENDS:  # a value the scanner read whole (a time, a date)
                values.append(len(out))
            out.append(t)
            i = k + 1
            continue
        before = len(out)
        i = _apply_rules(toks, k, out)
        # the tokens the rules emitted, and the one before (a date rule turns "May" into the date)
        for p in range(max(before - 1, values[-1] + 1 if values else 0), len(out)):
            if out[p].kind in _RANGE_ENDS:
                values.append(p)
    out.extend(toks[i:])
    return _ranges(out, values) if len(values) > 1 else out


def _apply_rules(toks: list[Token], k: int, out: list[Token]) -> int:
    """The first structure rule that applies at toks[k] emits its tokens (else toks[k] is copied);
    the index to go on from."""
    t = toks[k]
    nxt_i: int | None = None
    if t.kind == WORD:
        after = toks[k + 1].text if k + 1 < len(toks) else None
        for gate, rule in _RULES_OF_WORD.get(t.text, ()):
            if (gate is None or after in gate) and (nxt_i := rule(toks, k, out)) is not None:
                break
    elif t.kind == NUM:
        nxt_i = _number(toks, k, out)
    else:
        nxt_i = currency_sign(toks, k)
    if nxt_i is None:
        out.append(t)
        nxt_i = k + 1
    return nxt_i


def _number(toks: list[Token], i: int, out: list[Token]) -> int:
    """The structure rules for the number at toks[i]: the index to go on from (its tokens emitted)."""
    for rewrite in _NUMBER_REWRITES:
        i = rewrite(toks, i)
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    after = nxt.text if nxt is not None else None
    before = out[-1].text if out else None
    for after_words, before_words, number_after, rule in _NUMBER_RULES:
        if (after in after_words or before in before_words or (number_after and nxt is not None and nxt.kind == NUM)) \
                and (nxt_i := rule(toks, i, out)) is not None:
            return nxt_i
    out.append(measure_unit(toks[i], toks[i + 1] if i + 1 < len(toks) else None))
    return i + 1


_RANGE_ENDS = frozenset({NUM, DUR, TIME, CLOCK, DATE})
_RANGE_TRIGGERS = frozenset({"-", ":", "to", "through", "and"})


def _ranges(toks: list[Token], values: list[int]) -> list[Token]:
    """A hyphen, colon or "to" between two values is a range/score/ratio separator: one word "to"
    ("5-2" = "5 to 2", "10-12" = "10 to 12"), and so is the "and" of "between 2.5 and 5.5 weeks".
    ``values``: the positions of every value in ``toks`` (a separator follows one)."""
    last = len(toks) - 1
    for v in values:
        i = v + 1
        if i >= last:
            continue
        t = toks[i]
        if t.text not in _RANGE_TRIGGERS:
            continue
        if t.text == "and":
            if i >= 2 and toks[i - 2].text == "between" and toks[i - 1].kind in _RANGE_ENDS \
                    and toks[i + 1].kind in _RANGE_ENDS:
                toks[i] = Token(WORD, "~", t.start, t.end, "to")
            continue
        if t.kind == PUNCT and t.text in ("-", ":") or (t.kind == WORD and t.text in ("to", "through")):
            a, b = toks[i - 1], toks[i + 1]
            if t.text == ":" and (a.end != t.start or t.end != b.start):
                continue  # "3:1" is a ratio; "Not 39: 55" is a label and a value
            if a.kind in _RANGE_ENDS and b.kind in _RANGE_ENDS and (a.kind == b.kind or {a.kind, b.kind} <= {NUM, DUR}):
                toks[i] = Token(WORD, "~", t.start, t.end, "to")
    return toks
