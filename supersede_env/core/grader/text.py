"""One normalisation for every text the grader compares: gold, superseded values and answers alike.

:func:`normalise_text` lower-cases and, for text that is not plain ASCII:

- applies Unicode NFKC (full-width ``１８`` is ``18``, ligatures and math letters are letters);
- folds typographic quotes, dashes and spaces to their ASCII forms;
- removes format characters (zero-width spaces and joiners, soft hyphens: Unicode category Cf) and
  accents (``São`` reads ``sao``), so that nothing invisible splits a value;
- maps every remaining non-ASCII letter or digit that Unicode's confusables data (UTS #39) lists as
  a look-alike of an ASCII one to that ASCII character: a Cyrillic ``о`` in ``Lexingtоn`` is ``o``,
  so a rival cannot hide from the grader in look-alike letters;
- reads text inside a right-to-left override as it is displayed (reversed).

Look-alikes are mapped only from non-ASCII characters: UTS #39's full skeleton also maps ASCII to
ASCII (``0`` to ``O``, ``1`` to ``l``), which would destroy numbers. The confusables table comes
from the ``confusable-homoglyphs`` package's copy of Unicode's data, loaded on first use.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import unicodedata
from functools import lru_cache

__all__ = ["normalise_text", "cased_text"]

# typographic forms NFKC keeps: curly quotes, primes, dashes, the minus sign, non-breaking spaces
_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
        "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " ", "\u3000": " ",
        "\u2192": "->", "\u27f6": "->", "\u21d2": "=>", "\u2190": "<-", "\u27f5": "<-",  # "Denver → Portland"
    }
)


# Lower-case Greek and Cyrillic letters that read as ASCII ones but that Unicode's confusables data
# leaves out (it maps their capitals: "Η" -> "H", not "η" -> "n")
_EXTRA_LOOK_ALIKES = {"\u03b7": "n", "\u03ba": "k", "\u03c4": "t", "\u03c7": "x", "\u03c9": "w", "\u03b5": "e",
                      "\u043a": "k", "\u0442": "t", "\u043d": "h", "\u043c": "m"}


@lru_cache(maxsize=1)
def _look_alikes() -> dict[int, str]:
    """Non-ASCII character -> the lower-case ASCII letter or digit it looks like (UTS #39 confusables).

    A character maps as written ("Ν", Greek capital nu, looks like "N"; "ν" like "v"). UTS #39 takes
    "l" as the prototype of capital I, so an upper-case letter that maps to "l" is an "i".
    """
    data = json.loads(
        (importlib.resources.files("confusable_homoglyphs") / "confusables.json").read_text(encoding="utf-8")
    )
    table: dict[int, str] = {}
    for char, entries in data.items():
        if len(char) != 1 or char.isascii():
            continue
        for entry in entries:
            target = entry.get("c", "")
            if len(target) == 1 and target.isascii() and target.isalnum():
                target = target.lower()
                table[ord(char)] = "i" if (target == "l" and char.isupper()) else target
                break
    for char, target in _EXTRA_LOOK_ALIKES.items():
        table.setdefault(ord(char), target)
    return table


_BIDI_OVERRIDE = re.compile("\u202e([^\u202c\n]*)\u202c?")
# characters struck through with overlaid strokes ("D\u0336e\u0336n\u0336"): read as struck-out text
_OVERLAID = re.compile("(?:[^\\s][\u0334-\u0338]+)+")


def cased_text(text: str) -> str:
    """:func:`normalise_text` without the lower-casing (the same length): where a reply's capitals mark
    its names. Look-alikes keep their case ("С" in "Сhevy" reads "C")."""
    if text.isascii():
        return text
    return _fold_non_ascii(text, lower=False)


@lru_cache(maxsize=1)
def _cased_look_alikes() -> dict[int, str]:
    return {k: (v.upper() if chr(k).isupper() and v != "i" else v) for k, v in _look_alikes().items()} | {
        k: "I" for k, v in _look_alikes().items() if v == "i" and chr(k).isupper()}


def _fold_non_ascii(text: str, lower: bool = True) -> str:
    # a right-to-left override displays its text reversed: read it as displayed
    text = _BIDI_OVERRIDE.sub(lambda m: m.group(1)[::-1], text)
    # "\u2260" reads "not equal"; overlaid strokes strike out what they cross (NFKC would drop both)
    if "\u2260" in text:
        text = text.replace("\u2260", " is not ")
    if _OVERLAID.search(text) is not None:
        text = _OVERLAID.sub(lambda m: "~~" + re.sub("[\u0334-\u0338]", "", m.group()) + "~~", text)
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    decomposed = unicodedata.normalize("NFD", text)
    # drop format characters (Cf: zero-width, soft hyphen) and accents (Mn: combining marks)
    kept = unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Cf", "Mn")))
    if not lower:
        return kept if kept.isascii() else kept.translate(_cased_look_alikes())
    if kept.isascii():
        return kept.lower()
    return kept.translate(_look_alikes()).lower()  # as written first: capitals look like capitals


def normalise_text(text: str) -> str:
    """The text as the grader reads it: lower case, and the folding described in the module docstring.

    Plain ASCII only changes case (one character for one, so offsets into the original stay valid).

    >>> normalise_text("Lexingt\\u043en")  # a Cyrillic o
    'lexington'
    >>> normalise_text("\\uff11\\uff18 min\\u200butes")  # full-width digits, a zero-width space
    '18 minutes'
    """
    if text.isascii():
        return text.lower()
    return _fold_non_ascii(text)
