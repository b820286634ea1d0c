"""The scanner: normalised text -> raw tokens, in one pass of one regular expression.

The pattern's alternatives, in the order they are tried: a model code (``rav4``, ``cx-5``, ``a15``:
a word, its digits no quantity), a word or a run of words one space apart, the value grammars that
start with a digit (clock times from :mod:`.lex_times`, dates from :mod:`.lex_dates`, a code like
``7a``, numerals from :mod:`.lex_numbers`), arrows (``->``, ``=>``, ``<-``: a change), a tilde
before a value (``~47``: about), markdown emphasis (skipped: layout, not content), paragraph
breaks, line breaks and any other punctuation mark. Each value alternative's match goes to its
grammar's lexer, which appends its tokens.

The scanner also reports which passes :func:`.tokens.tokenize` needs: the number-word pass when a
number word occurs, the structure pass when a value or a word only it reads occurs (most short
texts need neither).
"""

from __future__ import annotations

import re

from supersede_env.core.grader.lex_dates import DATE_LEXERS, DATE_PATTERN
from supersede_env.core.grader.lex_durations import DURATION_WORDS
from supersede_env.core.grader.lex_numbers import NUMBER_LEXERS, NUMBER_PATTERN, NUMBER_WORDS
from supersede_env.core.grader.lex_quantities import CURRENCY_SYMBOLS
from supersede_env.core.grader.lex_times import TIME_LEXERS, TIME_PATTERN, TIME_WORDS
from supersede_env.core.grader.lex_token import NUM, PUNCT, WORD, Token
from supersede_env.core.grader.lex_words import stem

__all__ = ["EMPHASIS_TAG", "EMPHASIS_TAGS", "commented_out", "scan"]

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


def commented_out(norm: str) -> str | None:
    """The comment mark of a comment line inside code in the answer, or None."""
    if "`" not in norm:
        return None
    for block in _CODE.finditer(norm):
        if (mark := _COMMENT_LINE.search(block.group().strip("`").lstrip("\n"))) is not None:
            return mark.group(1)
    return None
