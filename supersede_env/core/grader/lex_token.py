"""The lexer's output type: token kinds and :class:`Token`.

A token is a word, a punctuation mark, or a *value*: a number, a clock time, a duration, a date, a
frequency, or a label number ("Session 3", "Step 2": scaffolding, never an answer value). Every
grammar module (``lex_numbers``, ``lex_times``, ...) builds tokens of these kinds; the rest of the
grader reads them through :mod:`supersede_env.core.grader.tokens`.
"""

from __future__ import annotations

from typing import Any

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
    "is_word",
]

# Token kinds. Values carry a parsed ``value``; words carry their stem in ``value``.
WORD = "w"
PUNCT = "p"
NUM = "n"  # value: float
TIME = "t"  # value: frozenset of minutes after midnight (one element unless am/pm is unknown)
CLOCK = "c"  # "H:MM" without am/pm; value: (times: frozenset[int min], durations: frozenset[float s])
DUR = "d"  # value: ("s", seconds) or ("mo", months); number: as written ("9" in "9 months")
DATE = "D"  # value: (year | None, month, day)
FREQ = "f"  # value: events per day (float), e.g. 3 times a week -> 3/7
LABEL = "L"  # a number that names something ("Session 3"), never an answer value
VALUE_KINDS = frozenset({NUM, TIME, CLOCK, DUR, DATE, FREQ})


class Token:
    """One token of a normalised text: ``kind``, a parsed ``value``, and its span in the text.

    A slotted class (tokens are most of the grader's memory and time). Treat it as immutable:
    :meth:`_replace` makes a changed copy.
    """

    __slots__ = ("end", "kind", "number", "start", "text", "unit", "value")

    def __init__(self, kind: str, value: Any, start: int, end: int, text: str = "",
                 number: float | None = None, unit: str | None = None) -> None:
        self.kind = kind
        self.value = value
        self.start = start
        self.end = end
        self.text = text  # the lower-cased surface word (words and punctuation only)
        self.number = number  # the count a DUR token carries ("9 months" -> 9)
        self.unit = unit  # measurement unit written right after a number ("10 pounds" -> "pound")

    def _replace(self, *, kind: str | None = None, value: Any = None, start: int | None = None,
                 end: int | None = None, unit: str | None = None) -> Token:
        """A copy with the given fields changed (None: unchanged)."""
        return Token(self.kind if kind is None else kind, self.value if value is None else value,
                     self.start if start is None else start, self.end if end is None else end,
                     self.text, self.number, self.unit if unit is None else unit)

    def __repr__(self) -> str:
        return (f"Token({self.kind!r}, {self.value!r}, {self.start}, {self.end}, {self.text!r}, "
                f"{self.number!r}, {self.unit!r})")


def is_word(tok: Token | None, *words: str) -> bool:
    """Is ``tok`` one of the words ``words``?"""
    return tok is not None and tok.kind == WORD and tok.text in words
