"""The number grammar: counts, written as numerals or spelled out, and label numbers.

Reads numerals (``47``, ``1,200``, ``2.5``), their suffixes (``4th``, ``400k``, ``$2m``, ``12%``,
and ``1990s``, a decade, not a number), spelled-out numbers (``four``, ``twenty-five``,
``one hundred and five``, ``a dozen``, ``two thousand``, ordinals like ``fifth``), a scale word
after a number (``1.2 million``), ``three and a half``, and numbers that *name* something
(``Session 3``, ``Step 2``: kind LABEL, never an answer value). ``four``, ``4`` and ``4th`` are the
same number.
"""

from __future__ import annotations

import re

from supersede_env.core.grader.lex_quantities import CURRENCY_SYMBOLS
from supersede_env.core.grader.lex_token import LABEL, NUM, PUNCT, WORD, Token, is_word

__all__ = [
    "NUMBER_LEXERS",
    "NUMBER_PATTERN",
    "NUMBER_WORDS",
    "SCALES",
    "and_a_half",
    "is_year_number",
    "label_number",
    "merge_number_words",
    "scale_word",
]

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SCALE_SUFFIX = {"k": 1_000, "m": 1_000_000, "mm": 1_000_000, "bn": 1_000_000_000, "b": 1_000_000_000}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "hundredth": 100,
}
# Ordinal words that are everyday discourse markers ("First, I ..."); they are numbers only inside
# a compound ("twenty-first") or a date ("May first").
_DISCOURSE_ORDINALS = frozenset({"first", "second", "third", "last"})
_DOZEN = 12
# words that make the lexer run the number-word pass (see lex_scan)
NUMBER_WORDS = frozenset(UNITS) | frozenset(_TENS) | frozenset(_ORDINALS) | frozenset(SCALES) | {"dozen"}
# words a merged number can start with (every branch of merge_number_words starts with one)
_NUMBER_WORD_STARTS = frozenset(UNITS) | frozenset(_TENS) | frozenset(_ORDINALS) | {"a", "an"}
# Words after which a number names a thing rather than measuring it.
_LABEL_WORDS = frozenset({"session", "sessions", "step", "steps", "turn", "turns"})  # not "note": "Redmi Note 13"
_SCALE_WORDS = frozenset({"thousand", "million", "billion", "k"})
# the words these rules need right after a number (scale_word, and_a_half) or right before it
# (label_number): the structure pass tries them on no other number
AFTER_A_NUMBER = _SCALE_WORDS | {"and"}
BEFORE_A_LABEL = _LABEL_WORDS

# A numeral and its suffix (a fragment of the lexer's one pattern, lex_scan; verbose syntax).
NUMBER_PATTERN = r"""
    (?P<number>(?P<num>(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d))
          (?P<suf>%|(?:st|nd|rd|th)\b|k\b|bn\b|m\b|s\b)?)
"""


def _lex_number(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """A numeral: its value, scaled by its suffix ("400k"); "1990s" is a decade, "12%" a percentage."""
    start, end = m.span()
    raw = m.group("num")
    suf = m.group("suf")
    value = float(raw.replace(",", "")) if "," in raw else float(raw)
    if suf is None:
        tokens.append(Token(NUM, value, start, end))
        return
    if suf == "k" or suf == "bn" or suf == "m":
        # "400k" is a magnitude; "5m" could be metres, so only with a currency sign before
        if suf == "m" and not (tokens and tokens[-1].kind == PUNCT and tokens[-1].text in CURRENCY_SYMBOLS):
            tokens.append(Token(NUM, value, start, start + len(raw)))
            tokens.append(Token(WORD, "m", start + len(raw), end, "m"))
            return
        value *= _SCALE_SUFFIX[suf]
    if suf == "s" and raw.isdigit() and len(raw) == 4:
        tokens.append(Token(WORD, ("decade", value), start, end))  # "1990s": not the number 1990
        return
    tokens.append(Token(NUM, value, start, end))
    if suf == "%":
        tokens.append(Token(WORD, "percent", end - 1, end, "percent"))


NUMBER_LEXERS = {"number": _lex_number}


def is_year_number(v: object) -> bool:
    """A whole number that reads as a year (1900-2100)."""
    return isinstance(v, float) and v.is_integer() and 1900 <= v <= 2100


# ---------------------------------------------------------------------------------------------
# Spelled-out numbers (the number-word pass, before the structure pass)
# ---------------------------------------------------------------------------------------------
def merge_number_words(toks: list[Token], marks: list[int]) -> tuple[list[Token], list[int]]:
    """"twenty-five", "one hundred and five", "a dozen", "two thousand" -> one NUM token. Reads
    only the marked tokens (the scanner's marks: every number word among them); the tokens between
    two marks are copied as they are, a slice at a time. Returns the tokens and their marks."""
    out: list[Token] = []
    out_marks: list[int] = []
    i = 0
    for k in marks:
        if k < i:
            continue  # inside the number read before
        if k > i:
            out.extend(toks[i:k])
        out_marks.append(len(out))
        i = _number_word(toks, k, out) if toks[k].text in _NUMBER_WORD_STARTS else _copy(toks, k, out)
    out.extend(toks[i:])
    return out, out_marks


def _copy(toks: list[Token], i: int, out: list[Token]) -> int:
    out.append(toks[i])
    return i + 1


def _number_word(toks: list[Token], i: int, out: list[Token]) -> int:
    """Read the number that the word toks[i] may start into ``out``; the index after it."""
    t = toks[i]
    if t.kind != WORD:
        out.append(t)
        return i + 1
    w = t.text
    n = len(toks)
    if w == "one" and _pronoun_one(out, toks, i):
        out.append(t)  # "the current one", "a new one": a pronoun, not the number 1
        return i + 1
    if w in UNITS or w in _TENS or (w in ("a", "an") and i + 1 < n and toks[i + 1].kind == WORD
                                     and toks[i + 1].text in ("hundred", "thousand", "million", "dozen")):
        value, last_end, j, consumed_any = _spelled_number(toks, i)
        if not consumed_any or (j == i + 1 and w in ("a", "an")):
            out.append(t)
            return i + 1
        # a one-word number keeps its word, so phrases ("at one point", "one day") still read
        out.append(Token(NUM, value, t.start, last_end, w if j == i + 1 else ""))
        return j
    if w in _ORDINALS and w not in _DISCOURSE_ORDINALS:
        out.append(Token(NUM, float(_ORDINALS[w]), t.start, t.end, w))
        return i + 1
    out.append(t)
    return i + 1


def _spelled_number(toks: list[Token], i: int) -> tuple[float, int, int, bool]:
    """The spelled-out number starting at toks[i]: its value, where it ends in the text, the index
    after it, and whether any word was read."""
    n = len(toks)
    total, current = 0.0, 0.0
    j = i
    last_end = toks[i].end
    consumed_any = False
    while j < n:
        tj = toks[j]
        if tj.kind != WORD:
            if consumed_any and _joins_number_words(toks, j):
                j += 1
                continue
            break
        wj = tj.text
        if wj in UNITS:
            if consumed_any and current % 100 and current % 10 == 0 and current >= 20 and UNITS[wj] < 10:
                current += UNITS[wj]  # "twenty one"
            elif consumed_any and (current % 1000) != 0 and toks[j - 1].text not in ("and", "-") \
                    and toks[j - 1].text not in SCALES:
                break  # "five six": two numbers
            else:
                current += UNITS[wj]
        elif wj in _TENS:
            if consumed_any and current % 100 != 0:
                break
            current += _TENS[wj]
        elif wj in ("a", "an") and not consumed_any:
            current = 1.0
        elif wj == "dozen":
            current = (current or 1.0) * _DOZEN
        elif wj in SCALES:
            if not consumed_any and current == 0:
                break
            scale = SCALES[wj]
            if scale == 100:
                current = (current or 1.0) * 100
            else:
                total += (current or 1.0) * scale
                current = 0.0
        elif wj == "and" and consumed_any and j + 1 < n and toks[j + 1].kind == WORD and (
                toks[j + 1].text in UNITS or toks[j + 1].text in _TENS) and (toks[j - 1].text in SCALES):
            j += 1  # "one hundred and five"
            continue
        elif wj in _ORDINALS and consumed_any and toks[j - 1].kind == PUNCT:
            return total + (current + _ORDINALS[wj]), tj.end, j + 1, True  # "twenty-first"
        else:
            break
        consumed_any = True
        last_end = tj.end
        j += 1
    return total + current, last_end, j, consumed_any


def _joins_number_words(toks: list[Token], j: int) -> bool:
    """Is punctuation toks[j] inside a spelled-out number: the hyphen of "twenty-five", the comma of
    "one thousand, three hundred"?"""
    tj = toks[j]
    if tj.kind != PUNCT or j + 1 >= len(toks) or toks[j + 1].kind != WORD:
        return False
    after, before = toks[j + 1].text, toks[j - 1]
    if tj.text == "-":
        return (after in UNITS or after in _ORDINALS) and before.kind == WORD and before.text in _TENS
    if tj.text == ",":
        return before.kind == WORD and before.text in ("thousand", "million", "billion") and (
            after in UNITS or after in _TENS)
    return False


_ONE_AFTER = frozenset(["the", "which", "each", "every", "any", "another", "no", "new", "old", "current", "latest", "last", "first", "right", "wrong", "same", "other", "only", "previous", "next"])


def _pronoun_one(out: list[Token], toks: list[Token], i: int) -> bool:
    """Is this "one" a pronoun ("the current one")? After a determiner or adjective, and not counting."""
    prev = [t.text for t in out[-2:] if t.kind == WORD]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    counting = nxt is not None and nxt.kind == WORD and nxt.text in ("hundred", "thousand", "million", "of")
    return bool(prev) and prev[-1] in _ONE_AFTER and not counting


# ---------------------------------------------------------------------------------------------
# Structure-pass rules for a number (see tokens.py for their order)
# ---------------------------------------------------------------------------------------------
def scale_word(toks: list[Token], i: int) -> int:
    """"1.2 million", "400 thousand": the number times its scale, rewritten onto the scale word's
    slot so that what follows reads the merged number ("1.2 million years"); the index it is at."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is not None and nxt.kind == WORD and nxt.text in _SCALE_WORDS:
        toks[i + 1] = t._replace(value=float(t.value) * (SCALES.get(nxt.text) or 1000), end=nxt.end)
        return i + 1
    return i


def and_a_half(toks: list[Token], i: int) -> int:
    """"three and a half" -> 3.5, rewritten onto the slot of "half" ("one and a half hours": the
    duration reads 1.5 there); the index it is at."""
    t = toks[i]
    if i + 3 < len(toks) and is_word(toks[i + 1], "and") and is_word(toks[i + 2], "a") \
            and is_word(toks[i + 3], "half"):
        toks[i + 3] = t._replace(value=float(t.value) + 0.5, end=toks[i + 3].end)
        return i + 3
    return i


def label_number(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """A number after a label word ("Session 35", "Step 2") names a thing: a LABEL token."""
    prev = out[-1] if out else None
    if prev is not None and prev.kind == WORD and prev.text in _LABEL_WORDS:
        t = toks[i]
        out.append(Token(LABEL, t.value, t.start, t.end))
        return i + 1
    return None
