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
:func:`normalise_text` (below). It runs, in order:

1. the scanner (:func:`scan`, below): words (stemmed, :mod:`.lex_words`), punctuation and the values
   written with digits;
2. the number-word pass (:mod:`.lex_numbers`): spelled-out numbers, when the text has one;
3. the structure pass, below: the rules of each grammar that join tokens into values (money and
   measures :mod:`.lex_quantities`, numbers :mod:`.lex_numbers`, times of day :mod:`.lex_times`,
   dates :mod:`.lex_dates`, durations and frequencies :mod:`.lex_durations`), then ranges.

This module is the reading layer both modes share (the normalisation, the scanner and the passes):
the rest of the grader imports text, tokens and value comparison from here.


**The scanner.** Normalised text -> raw tokens, in one pass of one regular expression.

The pattern's alternatives, in the order they are tried: a model code (``rav4``, ``cx-5``, ``a15``:
a word, its digits no quantity), a word or a run of words one space apart, the value grammars that
start with a digit (clock times from :mod:`.lex_times`, dates from :mod:`.lex_dates`, a code like
``7a``, numerals from :mod:`.lex_numbers`), arrows (``->``, ``=>``, ``<-``: a change), a tilde
before a value (``~47``: about), markdown emphasis (skipped: layout, not content), paragraph
breaks, line breaks and any other punctuation mark. Each value alternative's match goes to its
grammar's lexer, which appends its tokens.

The scanner also reports which passes :func:`tokenize` needs: the number-word pass when a
number word occurs, the structure pass when a value or a word only it reads occurs (most short
texts need neither).


**The normalisation.** One normalisation for every text the grader compares: gold, superseded values and answers alike.

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
from collections.abc import Callable
from functools import lru_cache

from supersede_env.core.grader import lex_dates as dates
from supersede_env.core.grader import lex_durations as durations
from supersede_env.core.grader import lex_numbers as numbers
from supersede_env.core.grader import lex_times as times
from supersede_env.core.grader.lex_dates import DATE_LEXERS, DATE_PATTERN
from supersede_env.core.grader.lex_durations import DURATION_WORDS
from supersede_env.core.grader.lex_numbers import NUMBER_LEXERS, NUMBER_PATTERN, NUMBER_WORDS, is_year_number
from supersede_env.core.grader.lex_quantities import (
    CURRENCY_SYMBOLS,
    MEASURE_UNITS,
    currency_sign,
    measure_unit,
    unit_of,
)
from supersede_env.core.grader.lex_times import TIME_LEXERS, TIME_PATTERN, TIME_WORDS
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
    "CLOCK", "DATE", "DUR", "EMPHASIS_TAG", "EMPHASIS_TAGS", "FREQ", "LABEL", "NUM", "PUNCT", "TIME",
    "Token", "VALUE_KINDS", "WORD", "cased_text", "commented_out", "is_year_number", "normalise_text",
    "other_unit", "scan", "stem", "tokenize", "unit_of", "values_equal",
]


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


# HTML emphasis renders the text it wraps, like markdown's "**": layout, not content (strike-out is not)
EMPHASIS_TAG = r"</?(?:b|strong|i|em)>"
EMPHASIS_TAGS = re.compile(EMPHASIS_TAG)
# a ">" that opens a line with a space and a word after it: a quoted line ("> Busan"), never a bound
# ("> 47": more than 47)
BLOCKQUOTE = re.compile(r"(?m)^[ \t]*>(?=[ \t]+[^\W\d_])")

_MASTER = re.compile(
    r"""
    (?=[^ \t\r\f\v])(?:
    # (the letters are atomic: fewer of them would leave a letter where "-" or a digit must follow)
    (?P<code>(?>[a-z]{1,4})-?\d+[a-z]?(?![\w.,:]\d|\w))
  # a word, or a run of words one space apart (one match for many words; see scan)
  | (?P<word>(?>[a-z]+(?:'[a-z]+)*)(?:(?:\ (?>[a-z]+(?:'[a-z]+)*))+(?![\d-]))?)
  | (?=\d)(?:
    """ + TIME_PATTERN + "|" + DATE_PATTERN + r"""
    | (?P<code2>(?<![\d.,])\d{1,4}[a-gijlnoqrtuvwyz](?!\w))
    | """ + NUMBER_PATTERN + r"""
    )
  | (?P<arrow>-+>|=+>|<-+|<=+)
  | (?P<tilde>(?<!~)~(?=[ ]?[\w$\u00a3\u20ac]))  # "~47": about 47 ("~~" is strikethrough)
  | (?P<markup>[*#`_~>]+|""" + EMPHASIS_TAG + r""")  # markdown, and HTML emphasis ("<b>Boston</b>")
  | (?P<para>\n[ \t]*(?:\n[ \t]*)+)
  | (?P<nl>\n)
  | (?P<p>[^\s\w])
    )
    """,
    re.VERBOSE,
)
# A plain text: words and whole numerals one space apart, and at most a final stop ("you live in
# boston.", "either 47 or 62."), where no numeral is followed by "a" or "p" ("5 am" is a time). The
# one pattern reads its words and numerals as _scan_plain does; scan reads it without the pattern
# (most terse answers are plain).
_PLAIN = re.compile(r"(?:[a-z]+(?:'[a-z]+)*|\d+(?! [ap]))(?: (?:[a-z]+(?:'[a-z]+)*|\d+(?! [ap])))*[.!?]?")
_VALUE_LEXERS = {**TIME_LEXERS, **DATE_LEXERS, **NUMBER_LEXERS}
_BRACKETS = {"[": "(", "]": ")", "{": "(", "}": ")"}  # "[previous]" reads like "(previous)"
_LAYOUT = {"para": "\n\n", "nl": "\n"}

# Bits of a word's role: 1 the structure pass has work (a word only it reads), 2 the number-word
# pass too (3: a number word), 4 a pass may start at it but it gives neither work alone ("a": "a
# dozen", "a week" need the word after it). A word with a role is a *mark*: the passes look at marks only.
_LEX_ROLES = {"a": 4, "an": 4, **{w: 1 for w in DURATION_WORDS | TIME_WORDS}, **{w: 3 for w in NUMBER_WORDS}}
# word -> (stem, role), filled as words are met
_LEXED: dict[str, tuple[str, int]] = {}


def _learn(word: str) -> tuple[str, int]:
    """A word met for the first time: its stem and lexer role, remembered (up to a bound)."""
    known = (stem(word), _LEX_ROLES.get(word, 0))
    if len(_LEXED) < 200_000:
        _LEXED[word] = known
    return known


def scan(text: str, pos: int = 0, endpos: int | None = None) -> tuple[list[Token], list[int], bool, bool]:
    """Raw tokens of text[pos:endpos] (offsets into ``text``), the marks (indices of the tokens a pass
    may start at: values, currency signs, words with a role), and whether the number-word and
    structure passes have anything to do."""
    if pos == 0 and endpos is None and len(text) <= _PLAIN_MAX and not text.strip(_PLAIN_CHARS) \
            and _PLAIN.fullmatch(text) is not None:
        return _scan_plain(text)
    tokens: list[Token] = []
    marks: list[int] = []
    append = tokens.append
    need = 0  # bits of _LEX_ROLES
    lexed = _LEXED
    value_lexers = _VALUE_LEXERS
    for m in _MASTER.finditer(text, pos, len(text) if endpos is None else endpos):
        group = m.lastgroup
        if group == "word":
            # a run of words one space apart comes as one match (one regex step for many words); a
            # run never ends right before a digit or "-", so a model code ("rav4", "cx-5") is still lexed
            # whole, and no word inside a run could start one (a code has a digit or "-" after its letters)
            pos = m.start()
            for w in m.group().split(" "):
                known = lexed.get(w) or _learn(w)
                end = pos + len(w)
                if known[1]:
                    need |= known[1]
                    marks.append(len(tokens))
                append(Token(WORD, known[0], pos, end, w))
                pos = end + 1
        elif group == "p":
            ch = m.group()
            ch = _BRACKETS.get(ch, ch)
            if ch in CURRENCY_SYMBOLS:
                need |= 1
                marks.append(len(tokens))
            start = m.start()
            append(Token(PUNCT, ch, start, start + 1, ch))
        elif group in value_lexers:
            first = len(tokens)
            value_lexers[group](m, tokens, text)
            need |= 1
            if len(tokens) == first + 1:
                marks.append(first)
            else:
                marks.extend(range(first, len(tokens)))  # "12%": the number and "percent"
        elif group != "markup":  # markdown emphasis, headings, bullets: layout, not content
            _other(m, group, tokens)
    return tokens, marks, need & 2 != 0, need & 3 != 0


_PLAIN_MAX = 200  # longer texts are rarely plain: not worth the extra match
_PLAIN_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789' .!?"  # a text of other characters is not plain (a cheap test first)


def _scan_plain(text: str) -> tuple[list[Token], list[int], bool, bool]:
    """:func:`scan` of a plain text (see _PLAIN): the same tokens, read by splitting."""
    tokens: list[Token] = []
    marks: list[int] = []
    need = 0
    stop = text[-1] if text[-1] in ".!?" else None
    pos = 0
    lexed, append = _LEXED, tokens.append
    for w in (text[:-1] if stop else text).split(" "):
        end = pos + len(w)
        if w[0] <= "9":  # a numeral
            need |= 1
            marks.append(len(tokens))
            append(Token(NUM, float(w), pos, end))
        else:
            known = lexed.get(w) or _learn(w)
            if known[1]:
                need |= known[1]
                marks.append(len(tokens))
            append(Token(WORD, known[0], pos, end, w))
        pos = end + 1
    if stop:
        tokens.append(Token(PUNCT, stop, len(text) - 1, len(text), stop))
    return tokens, marks, need & 2 != 0, need & 3 != 0


def _other(m: re.Match[str], group: str, tokens: list[Token]) -> None:
    """Tokens of a match that is neither a word, a punctuation mark nor a value."""
    start, end = m.span()
    if group == "code" or group == "code2":
        # a model code ("A15", "RAV4", "CX-5", "7a") names a thing; its digits are not a quantity
        code = m.group().replace("-", "")
        tokens.append(Token(WORD, code, start, end, code))
    elif group == "arrow":  # "Denver -> Portland", "=>": a change; "Portland <- Denver" the other way
        arrow = "<-" if m.group().startswith("<") else "->"
        tokens.append(Token(PUNCT, arrow, start, end, arrow))
    elif group == "tilde":
        tokens.append(Token(WORD, "about", start, end, "about"))
    else:
        layout = _LAYOUT[group]
        tokens.append(Token(PUNCT, layout, start, end, layout))


# a line of code that is a comment ("`# Busan`", "```\n# Busan\n```", "`// Busan`"): commented out, not said
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)
_COMMENT_LINE = re.compile(r"^[ \t`]*(#|//)", re.M)
# comment syntax no prose uses, anywhere in the answer: block comments of C, ML, Haskell and HTML, and
# lines opened by "//" or ";;" ("/* Busan */", "(* Busan *)", "{- Busan -}", ";; Busan"); "#" and "--"
# open headings and dashes in prose, and count as comments inside code only
# (a block is looked for over at most 400 characters: an unclosed opener costs no more than that)
_COMMENT_ANYWHERE = re.compile(r"(/\*).{0,400}?\*/|(\(\*).{0,400}?\*\)|(\{-).{0,400}?-\}|(<!--).{0,400}?-->"
                               r"|^[ \t>*_-]*(//|;;)", re.S | re.M)
_COMMENT_CHARS = frozenset("/*;{<")


def commented_out(norm: str) -> str | None:
    """The comment mark of a comment in the answer (a comment line inside code, or comment syntax no
    prose uses), or None."""
    if not _COMMENT_CHARS.intersection(norm) and "`" not in norm:
        return None
    if (m := _COMMENT_ANYWHERE.search(norm)) is not None:
        return next(g for g in m.groups() if g)
    for block in _CODE.finditer(norm) if "`" in norm else ():
        if (mark := _COMMENT_LINE.search(block.group().strip("`").lstrip("\n"))) is not None:
            return mark.group(1)
    return None


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
