"""The date grammar: calendar dates, in digits or with a month name.

Reads ``2023-05-30`` and ``2023/5/30`` (year first), ``5/30`` and ``5/30/2023`` or ``5/30/23``
(month first, US order), ``May 30``, ``May 30th, 2023``, ``30 May``, ``5th May 2024`` and
``30th of May``. A DATE's value is ``(year or None, month, day)``: a date without its year matches
the same day of any year. A slash between numbers that cannot be a month and day (``3/45``) is a
fraction or a ratio: number, slash, number.
"""

from __future__ import annotations

import re

from supersede_env.core.grader.lex_numbers import is_year_number
from supersede_env.core.grader.lex_token import DATE, NUM, PUNCT, WORD, Token, is_word

__all__ = ["DATE_LEXERS", "DATE_PATTERN", "MONTHS", "day_month", "day_of_month", "month_day"]

# Dates in digits (a fragment of the lexer's one pattern, lex_scan; verbose syntax).
DATE_PATTERN = r"""
      (?P<ymd>(?<![\d/])(?P<y1>(?:19|20)\d\d)[/-](?P<m1>\d{1,2})[/-](?P<d1>\d{1,2})(?![\d/]))
    | (?P<mdy>(?<![\d/.])(?P<m2>\d{1,2})/(?P<d2>\d{1,2})(?:/(?P<y2>\d{4}|\d\d))?(?![\d/]))
"""

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}
# Abbreviations that are also common words: months only next to a day number.
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "jun", "jan", "sep", "oct", "dec", "aug", "apr"})
_DAY_FIRST_AMBIGUOUS = _AMBIGUOUS_MONTHS | {"march"}  # "5 may": a date only where no verb can follow
# what these rules need right after a day number (day_month, day_of_month) or right before it (month_day)
AFTER_A_DAY = frozenset(MONTHS) | {"of"}
BEFORE_A_DAY = frozenset(MONTHS)


def _lex_ymd(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """"2023-05-30": a date, or (no such month or day) the year alone."""
    start, end = m.span()
    y, mo, d = int(m.group("y1")), int(m.group("m1")), int(m.group("d1"))
    if 1 <= mo <= 12 and 1 <= d <= 31:
        tokens.append(Token(DATE, (y, mo, d), start, end))
    else:
        tokens.append(Token(NUM, float(y), start, end))


def _lex_mdy(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """"5/30", "5/30/23": a date; "3/45" a fraction or ratio (number, slash, number)."""
    start, end = m.span()
    mo, d = int(m.group("m2")), int(m.group("d2"))
    y2 = m.group("y2")
    if 1 <= mo <= 12 and 1 <= d <= 31:
        y = None if y2 is None else (int(y2) + 2000 if len(y2) == 2 else int(y2))
        tokens.append(Token(DATE, (y, mo, d), start, end))
    else:
        sl = text.index("/", start)
        tokens.append(Token(NUM, float(mo), start, sl))
        tokens.append(Token(PUNCT, "/", sl, sl + 1, "/"))
        tokens.append(Token(NUM, float(d), sl + 1, end))


DATE_LEXERS = {"ymd": _lex_ymd, "mdy": _lex_mdy}


def _day_number(t: Token) -> bool:
    return isinstance(t.value, float) and t.value.is_integer() and 1 <= t.value <= 31


def month_day(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"May 30", "May 30th, 2023": the month word already emitted becomes the DATE."""
    t = toks[i]
    prev = out[-1] if out else None
    if prev is None or prev.kind != WORD or prev.text not in MONTHS or not _day_number(t):
        return None
    n = len(toks)
    year = None
    end = t.end
    j = i + 1
    if j < n and toks[j].kind == PUNCT and toks[j].text == "," and j + 1 < n and toks[j + 1].kind == NUM:
        j += 1
    if j < n and toks[j].kind == NUM and is_year_number(toks[j].value) and (j == i + 1 or toks[j - 1].text == ","):
        year = int(toks[j].value)
        end = toks[j].end
        i = j
    out[-1] = Token(DATE, (year, MONTHS[prev.text], int(t.value)), prev.start, end)
    return i + 1


def day_month(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"30 May", "5th May 2024" (an ambiguous month word only where no verb can follow it)."""
    t = toks[i]
    n = len(toks)
    nxt = toks[i + 1] if i + 1 < n else None
    if nxt is None or nxt.kind != WORD or nxt.text not in MONTHS or not _day_number(t):
        return None
    if nxt.text in _DAY_FIRST_AMBIGUOUS and not (
            nxt.text in ("may", "march") and (i + 2 >= n or toks[i + 2].kind == PUNCT
                                              or (toks[i + 2].kind == NUM and is_year_number(toks[i + 2].value)))):
        return None
    year = None
    end = nxt.end
    j = i + 2
    if j < n and toks[j].kind == NUM and is_year_number(toks[j].value):
        year = int(toks[j].value)
        end = toks[j].end
        j += 1
    out.append(Token(DATE, (year, MONTHS[nxt.text], int(t.value)), t.start, end))
    return j


def day_of_month(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"30th of May"."""
    t = toks[i]
    if (i + 2 < len(toks) and is_word(toks[i + 1], "of") and toks[i + 2].kind == WORD
            and toks[i + 2].text in MONTHS and isinstance(t.value, float) and 1 <= t.value <= 31):
        out.append(Token(DATE, (None, MONTHS[toks[i + 2].text], int(t.value)), t.start, toks[i + 2].end))
        return i + 3
    return None
