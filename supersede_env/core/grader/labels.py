"""Labels that date a value or name its column: history told by layout rather than by cue words.

- A year beside a value ("Denver (2023), Portland (2024)", "2023: Denver", "in 2024, Portland")
  dates it: of values dated with different years, the latest is the current one and the others are
  history, the same reading as "from Denver to Portland".
- A Markdown table's header ("| Old | New |", "| Previous | Current |") or a row's first cell
  ("| Before | Denver |") gives the role of every value in its column or row.

:func:`year_label` and :func:`table_cells` read tokens and text only; :mod:`.mentions` applies them
to the candidate mentions. Neither ever pays a value by itself: a label only says which of several
values the answer puts first in time, and a blind policy cannot know which year or column to give.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from supersede_env.core.grader.lexicon import (
    NOW_HEADER_WORDS,
    PAST_HEADER_WORDS,
    YEAR_CLAUSE_JOINS,
    YEAR_INTRO,
    YEAR_SINCE,
)
from supersede_env.core.grader.tokens import DATE, NUM, PUNCT, WORD, Token, is_year_number, stem

__all__ = ["year_label", "year_labels", "is_year", "TableCell", "table_cells", "HEADER_STEMS"]



def is_year(t: Token) -> bool:
    """A number written as a year (1900-2100), or a date that gives its year."""
    if t.kind == NUM:
        return t.unit is None and is_year_number(t.value)
    return t.kind == DATE and t.value[0] is not None


def _year(t: Token) -> int:
    return int(t.value) if t.kind == NUM else int(t.value[0])


def year_label(tokens: list[Token], first: int, last: int) -> int | None:
    """The year that labels the value at tokens first..last: right after it in parentheses or after
    "in" ("Denver (2023)", "Denver in 2023"), or right before it with a colon, dash or comma
    ("2023: Denver", "In 2024, Portland", a table row "| 2023 | Denver |"). None when no year stands there."""
    n = len(tokens)
    k = last + 1
    if k + 2 < n and tokens[k].text == "(" and is_year(tokens[k + 1]) and tokens[k + 2].text == ")":
        return _year(tokens[k + 1])
    if k + 1 < n and tokens[k].kind == WORD and tokens[k].text in YEAR_SINCE and is_year(tokens[k + 1]) and (
            k + 2 >= n or tokens[k + 2].kind == PUNCT or tokens[k + 2].text in YEAR_CLAUSE_JOINS):
        return _year(tokens[k + 1])
    k = first - 1
    if k >= 1 and tokens[k].kind == PUNCT and tokens[k].text in (":", "-", ",", ")", "|") and is_year(tokens[k - 1]):
        if tokens[k].text == ")":
            return _year(tokens[k - 1]) if k >= 2 and tokens[k - 2].text == "(" else None
        if _opens_its_clause(tokens, k - 1):
            return _year(tokens[k - 1])
    return None


def _opens_its_clause(tokens: list[Token], i: int) -> bool:
    """Does the year at i open its clause (after punctuation, a value such as "pm.", or "in"), so that it
    labels what follows ("2023: Denver"), unlike "summer 2023: ..."?"""
    return i == 0 or tokens[i - 1].kind != WORD or tokens[i - 1].text in YEAR_INTRO


def year_labels(tokens: list[Token]) -> list[tuple[int, int]]:
    """Every year standing as a label in ``tokens``, with the index of the token it labels: "X (2024)"
    labels the token before the parenthesis, "2024: X" and "| 2024 | X |" the token after. In a terse
    reply a later label dates a value the grader was never told of."""
    out = []
    n = len(tokens)
    for i, t in enumerate(tokens):
        if not is_year(t) or i + 1 >= n:
            continue
        after, before = tokens[i + 1].text, tokens[i - 1].text if i > 0 else None
        if before == "(" and after == ")" and i >= 2:
            out.append((_year(t), i - 2))
        elif after in (":", "|", "-") and i + 2 < n and _opens_its_clause(tokens, i):
            out.append((_year(t), i + 2))
    return out


_PAST_HEADERS = frozenset(stem(w) for w in PAST_HEADER_WORDS)
_NOW_HEADERS = frozenset(stem(w) for w in NOW_HEADER_WORDS)
HEADER_STEMS = _PAST_HEADERS | _NOW_HEADERS  # a table's header words are layout, not words of the answer
_TABLE_LINE = re.compile(r"^[ \t]*\|(.*)\|?[ \t]*$", re.M)
_RULE_CELL = re.compile(r"^\s*:?-{2,}:?\s*$")


@dataclass(frozen=True, slots=True)
class TableCell:
    """A table cell's text span and the role its column header or row label gives it."""

    start: int
    end: int
    role: str  # "past" or "now"
    label: str  # the header or row label, as written


def _role(words: list[str]) -> str | None:
    stems = {stem(w) for w in words}
    past, now = bool(stems & _PAST_HEADERS), bool(stems & _NOW_HEADERS)
    return "past" if past and not now else "now" if now and not past else None


def _cells(line: re.Match[str]) -> list[tuple[int, int, str]]:
    """The cells of one table line: (start, end, text) in the answer's text."""
    body_start = line.start(1)
    body = line.group(1)
    out, pos = [], 0
    for part in body.split("|"):
        out.append((body_start + pos, body_start + pos + len(part), part))
        pos += len(part) + 1
    if out and not out[-1][2].strip():
        out.pop()  # the closing bar
    return out


def table_cells(text: str) -> list[TableCell]:
    """Every labelled cell of the Markdown tables in ``text`` (normalised, lower case): cells under a
    header that names a role ("old", "current"), and cells after a first cell that names one."""
    if "|" not in text:
        return []
    out: list[TableCell] = []
    header: list[tuple[str | None, str]] | None = None
    previous_end = -2
    for line in _TABLE_LINE.finditer(text):
        cells = _cells(line)
        if line.start() != previous_end + 1:
            header = None  # not the line right after the last table line: a new table
        previous_end = line.end()
        if cells and all(_RULE_CELL.match(c[2]) for c in cells):
            continue
        if header is None:
            header = [(_role(re.findall(r"[a-z]+", c[2])), c[2].strip()) for c in cells]
            row_role = header[0][0] if header and all(r is None for r, _ in header[1:]) else None
            if row_role is not None:  # a first row that is a labelled row: "| Old | Denver |"
                out += [TableCell(s, e, row_role, header[0][1]) for s, e, _ in cells[1:]]
            continue
        row_role = _role(re.findall(r"[a-z]+", cells[0][2])) if cells else None
        for col, (s, e, _) in enumerate(cells):
            if col == 0 and row_role is not None:
                continue
            role, label = (row_role, cells[0][2].strip()) if row_role is not None else (
                header[col] if col < len(header) else (None, ""))
            if role is not None:
                out.append(TableCell(s, e, role, label))
    return out
