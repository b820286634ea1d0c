"""Normalised text -> value-aware tokens: the meaning-level normalisation the grader matches on.

A token is a word, a punctuation mark, or a *value*: a number, a clock time, a duration, a date, a
frequency, or a label number ("Session 3", "Step 2": scaffolding, never an answer value). Values are
parsed from the forms people write, so that ``"four"``, ``"4"`` and ``"4th"`` are the same number,
``"6 pm"``, ``"6:00 p.m."`` and ``"18:00"`` the same time, ``"25 minutes and 50 seconds"`` and
``"25:50"`` the same duration, ``"every other week"`` and ``"biweekly"`` the same frequency, and
``"$400,000"`` / ``"400k dollars"`` the same amount. Matching compares parsed values, never
characters, which is why ``25`` does not occur in ``250`` and ``ten`` does not occur in ``tennis``.

Everything here is pure and precompiled; :func:`tokenize` is the single entry point and reads text
already normalised by :func:`supersede_env.core.grader.text.normalise_text`. Words are stemmed with the
Snowball English stemmer (``snowballstemmer``, pure Python).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

import snowballstemmer

__all__ = [
    "Token",
    "tokenize",
    "values_equal",
    "other_unit",
    "unit_of",
    "is_year_number",
    "stem",
    "WORD",
    "PUNCT",
    "NUM",
    "TIME",
    "CLOCK",
    "DUR",
    "DATE",
    "FREQ",
    "LABEL",
    "VALUE_KINDS",
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

    __slots__ = ("kind", "value", "start", "end", "text", "number", "unit")

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


# ---------------------------------------------------------------------------------------------
# Lexicons
# ---------------------------------------------------------------------------------------------
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
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
_MULTIPLES = {"once": 1, "twice": 2, "thrice": 3}
_DOZEN = 12

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}
# Abbreviations that are also common words: months only next to a day number.
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "jun", "jan", "sep", "oct", "dec", "aug", "apr"})

# duration unit -> (scale kind, size): seconds for clock-like units, months for calendar units
_DUR_UNITS: dict[str, tuple[str, float]] = {}
for _names, _kind, _size in (
    (("second", "seconds", "sec", "secs"), "s", 1.0),
    (("minute", "minutes", "min", "mins"), "s", 60.0),
    (("hour", "hours", "hr", "hrs", "h"), "s", 3600.0),
    (("day", "days"), "s", 86400.0),
    (("week", "weeks", "wk", "wks"), "s", 604800.0),
    (("fortnight", "fortnights"), "s", 1209600.0),
    (("month", "months", "mo", "mos"), "mo", 1.0),
    (("year", "years", "yr", "yrs"), "mo", 12.0),
):
    for _n in _names:
        _DUR_UNITS[_n] = (_kind, _size)
_PERIOD_DAYS = {"day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 30.0, "year": 365.0}
_PERIOD_OF = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "fortnight": "fortnight",
    "month": "month", "months": "month", "year": "year", "years": "year",
}
_FREQ_ADVERBS = {
    "daily": 1.0, "nightly": 1.0, "weekly": 1 / 7, "biweekly": 1 / 14, "fortnightly": 1 / 14,
    "monthly": 1 / 30, "bimonthly": 1 / 60, "yearly": 1 / 365, "annually": 1 / 365,
}

# Measurement units: a number followed by a *different* unit of this list is a different quantity.
_MEASURE_UNITS = {
    "dollar": "dollar", "dollars": "dollar", "usd": "dollar", "buck": "dollar", "bucks": "dollar",
    "$": "dollar", "euro": "euro", "euros": "euro", "eur": "euro", "€": "euro", "£": "pound",
    "gbp": "pound", "yen": "yen", "¥": "yen", "jpy": "yen", "cent": "cent", "cents": "cent",
    "percent": "percent", "%": "percent", "pct": "percent",
    "pound": "pound", "pounds": "pound", "lb": "pound", "lbs": "pound", "kg": "kg",
    "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg", "gram": "g", "grams": "g",
    "g": "g", "ounce": "ounce", "ounces": "ounce", "oz": "ounce",
    "mile": "mile", "miles": "mile", "mi": "mile", "km": "km", "kilometer": "km",
    "kilometers": "km", "kilometre": "km", "kilometres": "km", "meter": "m", "meters": "m",
    "metre": "m", "metres": "m", "foot": "foot", "feet": "foot", "ft": "foot", "inch": "inch",
    "inches": "inch", "cm": "cm", "mm": "mm", "gallon": "gallon", "gallons": "gallon",
    "liter": "liter", "liters": "liter", "litre": "liter", "litres": "liter",
    "gb": "gb", "mb": "mb", "tb": "tb", "mbps": "mbps", "gbps": "gbps",
    "calorie": "calorie", "calories": "calorie", "kcal": "calorie", "mph": "mph", "mpg": "mpg",
    "degree": "degree", "degrees": "degree",
}
_CURRENCY_SYMBOLS = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen"}

# Words after which a number names a thing rather than measuring it.
_LABEL_WORDS = frozenset({"session", "sessions", "step", "steps", "turn", "turns"})  # not "note": "Redmi Note 13"

# Stemming: crude, symmetric suffix stripping; good enough because gold and answer get the same.
_SYNONYMS = {
    "st": "street", "rd": "road", "ave": "avenue", "blvd": "boulevard", "dr": "doctor",
    "mt": "mount", "tv": "television", "favourite": "favorite", "colour": "color",
    "grey": "gray", "theatre": "theater", "centre": "center", "okay": "ok", "&": "and",
    "didn't": "did not",
    # weekday abbreviations ("Mon and Wed"); not "sat" or "sun", which are words
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday",
}
_IRREGULAR = {
    "children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
    "mice": "mouse", "people": "person", "bought": "buy", "got": "get", "went": "go",
    "led": "lead", "met": "meet", "ran": "run", "ate": "eat", "drove": "drive", "driven": "drive",
    "kept": "keep", "took": "take", "taken": "take", "made": "make", "read": "read", "saw": "see",
    "seen": "see", "began": "begin", "begun": "begin", "spent": "spend", "sold": "sell",
    "told": "tell", "gave": "give", "given": "give", "found": "find", "left": "leave",
    "won": "win", "lost": "lose", "paid": "pay", "moved": "move", "is": "be", "are": "be",
    "was": "be", "were": "be", "been": "be", "am": "be", "has": "have", "had": "have",
}


_ENGLISH = snowballstemmer.stemmer("english")  # Porter2: "increased" = "increase", "care" != "car"
_STEM_LOCK = threading.Lock()  # a Snowball stemmer object keeps state between calls


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball (Porter2) stem, after folding spelling variants and irregular forms."""
    word = _SYNONYMS.get(word, word)
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 2 or "'" in word:
        return word
    with _STEM_LOCK:
        return _ENGLISH.stemWord(word)


# ---------------------------------------------------------------------------------------------
# Lexing
# ---------------------------------------------------------------------------------------------
_MASTER = re.compile(
    r"""
    (?=[^ \t\r\f\v])(?:
    # (the letters are atomic: fewer of them would leave a letter where "-" or a digit must follow)
    (?P<code>(?>[a-z]{1,4})-?\d+[a-z]?(?![\w.,:]\d|\w))
  # a word, or a run of words one space apart (one match for many words; see _lex)
  | (?P<word>(?>[a-z]+(?:'[a-z]+)*)(?:(?:\ (?>[a-z]+(?:'[a-z]+)*))+(?![\d-]))?)
  | (?=\d)(?:
      # "p.m." keeps its last dot; "pm." ends a sentence, so its dot is punctuation
      (?P<time>(?<![\d:.])(?P<th>\d{1,2})(?:[:.](?P<tm>[0-5]\d))?\s?(?P<ap>[ap])(?:\.m\b\.?|m\b|m(?=ish\b)))
    | (?P<hclock>(?<![\d:.])(?P<hh>[01]?\d|2[0-3])h(?P<hm>[0-5]\d)(?!\w))
    | (?P<clock>(?<![\d:.])(?P<ch>\d{1,2}):(?P<cm>[0-5]\d)(?::(?P<cs>[0-5]\d))?(?![\d:]))
    | (?P<ymd>(?<![\d/])(?P<y1>(?:19|20)\d\d)[/-](?P<m1>\d{1,2})[/-](?P<d1>\d{1,2})(?![\d/]))
    | (?P<mdy>(?<![\d/.])(?P<m2>\d{1,2})/(?P<d2>\d{1,2})(?:/(?P<y2>\d{4}|\d\d))?(?![\d/]))
    | (?P<code2>(?<![\d.,])\d{1,4}[a-gijlnoqrtuvwyz](?!\w))
    | (?P<number>(?P<num>(?<![\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d))
          (?P<suf>%|(?:st|nd|rd|th)\b|k\b|bn\b|m\b|s\b)?)
    )
  | (?P<arrow>-+>|=+>|<-+|<=+)
  | (?P<tilde>(?<!~)~(?=[ ]?[\w$\u00a3\u20ac]))  # "~47": about 47 ("~~" is strikethrough)
  | (?P<markup>[*#`_~>]+)
  | (?P<para>\n[ \t]*(?:\n[ \t]*)+)
  | (?P<nl>\n)
  | (?P<p>[^\s\w])
    )
    """,
    re.VERBOSE,
)


_BRACKETS = {"[": "(", "]": ")", "{": "(", "}": ")"}




def _lex(text: str) -> tuple[list[Token], bool, bool]:
    """Raw tokens, and whether the number-word and structure passes have anything to do."""
    tokens: list[Token] = []
    append = tokens.append
    need = 0  # bits of _LEX_ROLES: 1 the structure pass, 2 the number-word pass
    lexed = _LEXED
    for m in _MASTER.finditer(text):
        group = m.lastgroup
        if group == "word":
            # a run of words one space apart comes as one match (one regex step for many words); a
            # run never ends right before a digit or "-", so a model code ("rav4", "cx-5") is still lexed
            # whole, and no word inside a run could start one (a code has a digit or "-" after its letters)
            pos = m.start()
            for w in m.group().split(" "):
                known = lexed.get(w) or _learn(w)
                end = pos + len(w)
                append(Token(WORD, known[0], pos, end, w))
                pos = end + 1
                need |= known[1]
            continue
        if group == "p":
            ch = m.group()
            ch = _BRACKETS.get(ch, ch)  # "[previous]" reads like "(previous)"
            if ch in _CURRENCY_SYMBOLS:
                need |= 1
            start = m.start()
            append(Token(PUNCT, ch, start, start + 1, ch))
            continue
        if group == "markup":
            continue  # markdown emphasis, headings, bullets: layout, not content
        start, end = m.span()
        if group == "code" or group == "code2":
            # a model code ("A15", "RAV4", "CX-5", "7a") names a thing; its digits are not a quantity
            code = m.group().replace("-", "")
            append(Token(WORD, code, start, end, code))
            continue
        if group == "arrow":  # "Denver -> Portland", "=>": a change; "Portland <- Denver" the other way
            arrow = "<-" if m.group().startswith("<") else "->"
            append(Token(PUNCT, arrow, start, end, arrow))
            continue
        if group == "tilde":
            append(Token(WORD, "about", start, end, "about"))
            continue
        if group == "para":
            append(Token(PUNCT, "\n\n", start, end, "\n\n"))
            continue
        if group == "nl":
            append(Token(PUNCT, "\n", start, end, "\n"))
            continue
        need |= 1
        if group == "number":
            raw = m.group("num")
            suf = m.group("suf")
            value = float(raw.replace(",", "")) if "," in raw else float(raw)
            if suf is None:
                append(Token(NUM, value, start, end))
                continue
            if suf == "k" or suf == "bn" or suf == "m":
                # "400k" is a magnitude; "5m" could be metres, so only with a currency sign before
                if suf == "m" and not (tokens and tokens[-1].kind == PUNCT and tokens[-1].text in _CURRENCY_SYMBOLS):
                    append(Token(NUM, value, start, start + len(raw)))
                    append(Token(WORD, "m", start + len(raw), end, "m"))
                    continue
                value *= _SCALE_SUFFIX[suf]
            if suf == "s" and raw.isdigit() and len(raw) == 4:
                append(Token(WORD, ("decade", value), start, end))  # "1990s": not the number 1990
                continue
            append(Token(NUM, value, start, end))
            if suf == "%":
                append(Token(WORD, "percent", end - 1, end, "percent"))
        elif group == "time":
            h = int(m.group("th"))
            mins = int(m.group("tm") or 0)
            if h > 12 or h == 0 and m.group("ap") == "p":
                append(Token(NUM, float(h), start, end))
                continue
            h = h % 12 + (12 if m.group("ap") == "p" else 0)
            append(Token(TIME, frozenset({h * 60 + mins}), start, end))
        elif group == "hclock":  # "18h35": a 24-hour time
            append(Token(TIME, frozenset({int(m.group("hh")) * 60 + int(m.group("hm"))}), start, end))
        elif group == "clock":
            h, mi = int(m.group("ch")), int(m.group("cm"))
            sec = m.group("cs")
            times: set[int] = set()
            durs: set[float] = set()
            if sec is not None:
                s = int(sec)
                durs.add(h * 3600 + mi * 60 + s)
                if h < 24:
                    times.add(h * 60 + mi)
            else:
                durs.add(h * 60.0 + mi)  # mm:ss
                durs.add(h * 3600.0 + mi * 60)  # hh:mm
                if h < 24:
                    times.add(h * 60 + mi)
                    if 1 <= h < 12:
                        times.add((h + 12) * 60 + mi)
                    if h == 12:
                        times.add(mi)
            append(Token(CLOCK, (frozenset(times), frozenset(durs)), start, end))
        elif group == "ymd":
            y: int | None
            y, mo, d = int(m.group("y1")), int(m.group("m1")), int(m.group("d1"))
            if 1 <= mo <= 12 and 1 <= d <= 31:
                append(Token(DATE, (y, mo, d), start, end))
            else:
                append(Token(NUM, float(y), start, end))
        elif group == "mdy":
            mo, d = int(m.group("m2")), int(m.group("d2"))
            y2 = m.group("y2")
            if 1 <= mo <= 12 and 1 <= d <= 31:
                y = None if y2 is None else (int(y2) + 2000 if len(y2) == 2 else int(y2))
                append(Token(DATE, (y, mo, d), start, end))
            else:
                # a fraction or ratio written with a slash ("3/4"): number, slash, number
                sl = text.index("/", start)
                append(Token(NUM, float(mo), start, sl))
                append(Token(PUNCT, "/", sl, sl + 1, "/"))
                append(Token(NUM, float(d), sl + 1, end))
    return tokens, need & 2 != 0, need != 0


def _learn(word: str) -> tuple[str, int]:
    """A word met for the first time: its stem and lexer role, remembered (up to a bound)."""
    known = (stem(word), _LEX_ROLES.get(word, 0))
    if len(_LEXED) < 200_000:
        _LEXED[word] = known
    return known


# ---------------------------------------------------------------------------------------------
# Merging passes: number words, scales, currency, dates, durations, frequencies, labels.
# ---------------------------------------------------------------------------------------------
def _is_word(tok: Token | None, *words: str) -> bool:
    return tok is not None and tok.kind == WORD and tok.text in words


# words a merged number can start with (every branch below starts with one)
_NUMBER_WORD_STARTS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_ORDINALS) | {"a", "an"}


def _merge_number_words(toks: list[Token]) -> list[Token]:
    """"twenty-five", "one hundred and five", "a dozen", "two thousand" -> one NUM token."""
    out: list[Token] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.kind != WORD or t.text not in _NUMBER_WORD_STARTS:
            out.append(t)  # fast path: no number word starts here
            i += 1
            continue
        w = t.text
        if w == "one" and _pronoun_one(out, toks, i):
            out.append(t)  # "the current one", "a new one": a pronoun, not the number 1
            i += 1
            continue
        if w in _UNITS or w in _TENS or (w in ("a", "an") and i + 1 < n and toks[i + 1].kind == WORD
                                          and toks[i + 1].text in ("hundred", "thousand", "million", "dozen")):
            total, current = 0.0, 0.0
            j = i
            last_end = t.end
            consumed_any = False
            while j < n:
                tj = toks[j]
                if tj.kind != WORD:
                    # hyphen inside "twenty-five"
                    if (tj.kind == PUNCT and tj.text == "-" and consumed_any and j + 1 < n
                            and toks[j + 1].kind == WORD and (toks[j + 1].text in _UNITS or toks[j + 1].text in _ORDINALS)
                            and toks[j - 1].kind == WORD and toks[j - 1].text in _TENS):
                        j += 1
                        continue
                    # comma after a scale word inside a spelled-out number: "one thousand, three hundred"
                    if (tj.kind == PUNCT and tj.text == "," and consumed_any and toks[j - 1].kind == WORD
                            and toks[j - 1].text in ("thousand", "million", "billion") and j + 1 < n
                            and toks[j + 1].kind == WORD and (toks[j + 1].text in _UNITS or toks[j + 1].text in _TENS)):
                        j += 1
                        continue
                    break
                wj = tj.text
                if wj in _UNITS:
                    if consumed_any and current % 100 and current % 10 == 0 and current >= 20 and _UNITS[wj] < 10:
                        current += _UNITS[wj]
                    elif consumed_any and (current % 1000) != 0 and not toks[j - 1].text in ("and", "-") and toks[j - 1].text not in _SCALES:
                        break
                    else:
                        current += _UNITS[wj]
                elif wj in _TENS:
                    if consumed_any and current % 100 != 0:
                        break
                    current += _TENS[wj]
                elif wj in ("a", "an") and not consumed_any:
                    current = 1.0
                elif wj == "dozen":
                    current = (current or 1.0) * _DOZEN
                elif wj in _SCALES:
                    if not consumed_any and current == 0:
                        break
                    scale = _SCALES[wj]
                    if scale == 100:
                        current = (current or 1.0) * 100
                    else:
                        total += (current or 1.0) * scale
                        current = 0.0
                elif wj == "and" and consumed_any and j + 1 < n and toks[j + 1].kind == WORD and (
                    toks[j + 1].text in _UNITS or toks[j + 1].text in _TENS) and (toks[j - 1].text in _SCALES):
                    j += 1
                    continue
                elif wj in _ORDINALS and consumed_any and toks[j - 1].kind == PUNCT:
                    current += _ORDINALS[wj]  # "twenty-first"
                    last_end = tj.end
                    j += 1
                    break
                else:
                    break
                consumed_any = True
                last_end = tj.end
                j += 1
            if not consumed_any or (j == i + 1 and t.text in ("a", "an")):
                out.append(t)
                i += 1
                continue
            # a one-word number keeps its word, so phrases ("at one point", "one day") still read
            out.append(Token(NUM, total + current, t.start, last_end, t.text if j == i + 1 else ""))
            i = j
            continue
        if w in _ORDINALS and w not in _DISCOURSE_ORDINALS:
            out.append(Token(NUM, float(_ORDINALS[w]), t.start, t.end, w))
            i += 1
            continue
        out.append(t)
        i += 1
    return out


_ONE_AFTER = frozenset("the which each every any another no new old current latest last first right wrong same "
                       "other only previous next".split())


def _pronoun_one(out: list[Token], toks: list[Token], i: int) -> bool:
    """Is this "one" a pronoun ("the current one")? After a determiner or adjective, and not counting."""
    prev = [t.text for t in out[-2:] if t.kind == WORD]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    counting = nxt is not None and nxt.kind == WORD and nxt.text in ("hundred", "thousand", "million", "of")
    return bool(prev) and prev[-1] in _ONE_AFTER and not counting


def _structure_pass(toks: list[Token]) -> list[Token]:
    """Currency, scales, halves, dates, durations, frequencies, ranges and label numbers."""
    out: list[Token] = []
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i]
        kind = t.kind
        if (kind == WORD and t.text not in _STRUCTURE_WORDS) or (kind == PUNCT and t.text not in _CURRENCY_SYMBOLS):
            out.append(t)  # fast path: an ordinary word or punctuation mark (nothing below applies)
            i += 1
            continue
        nxt = toks[i + 1] if i + 1 < n else None
        # currency sign before a number: "$400,000" -> NUM(400000, unit=dollar)
        if t.kind == PUNCT and t.text in _CURRENCY_SYMBOLS and nxt is not None and nxt.kind == NUM:
            toks[i + 1] = nxt._replace(unit=_CURRENCY_SYMBOLS[t.text], start=t.start)
            i += 1
            continue
        if t.kind == NUM:
            # scale word: "1.2 million", "400 thousand"
            if nxt is not None and nxt.kind == WORD and nxt.text in ("thousand", "million", "billion", "k"):
                t = t._replace(value=float(t.value) * (_SCALES.get(nxt.text) or 1000), end=nxt.end)
                i += 1
                toks[i] = t  # what follows reads the merged number here ("1.2 million years")
                nxt = toks[i + 1] if i + 1 < n else None
            # "three and a half" -> 3.5
            if (_is_word(nxt, "and") and i + 3 < n and _is_word(toks[i + 2], "a")
                    and _is_word(toks[i + 3], "half")):
                t = t._replace(value=float(t.value) + 0.5, end=toks[i + 3].end)
                i += 3
                toks[i] = t  # "one and a half hours": the duration reads 1.5 here
                nxt = toks[i + 1] if i + 1 < n else None
            # a time of day in words: "six o'clock", "6 o'clock in the morning", "7 in the evening"
            if isinstance(t.value, float) and t.value.is_integer() and 1 <= t.value <= 12 and t.unit is None:
                j = i + 1
                end = t.end
                past = 0  # "six thirty-five pm": the minutes in words
                if _is_word(nxt, "o'clock"):
                    end, j = nxt.end, i + 2
                elif (nxt is not None and nxt.kind == NUM and isinstance(nxt.value, float) and nxt.value.is_integer()
                      and 0 <= nxt.value <= 59 and nxt.unit is None and i + 2 < n and toks[i + 2].text in _PART_STARTS):
                    past, j = int(nxt.value), i + 2
                half, part_end, after = _part_of_day(toks, j) if j < n and toks[j].text in _PART_STARTS else (None, 0, j)
                if (j > i + 1 and not past) or half is not None:
                    hour = int(t.value) % 12
                    minutes = {"am": {hour * 60 + past}, "pm": {(hour + 12) * 60 + past}}.get(
                        half or "", {hour * 60 + past, (hour + 12) * 60 + past})
                    out.append(Token(TIME, frozenset(minutes), t.start, part_end if half is not None else end))
                    i = after if half is not None else j
                    continue
            prev = out[-1] if out else None
            # label numbers: "Session 35", "Step 2"
            if prev is not None and prev.kind == WORD and prev.text in _LABEL_WORDS:
                out.append(Token(LABEL, t.value, t.start, t.end))
                i += 1
                continue
            # dates: "May 30", "May 30th, 2023", "30 May"
            if (prev is not None and prev.kind == WORD and prev.text in _MONTHS and isinstance(t.value, float)
                    and t.value.is_integer() and 1 <= t.value <= 31):
                month = _MONTHS[prev.text]
                year = None
                end = t.end
                j = i + 1
                if j < n and toks[j].kind == PUNCT and toks[j].text == "," and j + 1 < n and toks[j + 1].kind == NUM:
                    j += 1
                if j < n and toks[j].kind == NUM and is_year_number(toks[j].value) and (j == i + 1 or toks[j - 1].text == ","):
                    year = int(toks[j].value)
                    end = toks[j].end
                    i = j
                out[-1] = Token(DATE, (year, month, int(t.value)), prev.start, end)
                i += 1
                continue
            if (nxt is not None and nxt.kind == WORD and nxt.text in _MONTHS and isinstance(t.value, float)
                    and t.value.is_integer() and 1 <= t.value <= 31 and (
                        nxt.text not in _AMBIGUOUS_MONTHS | {"march"}
                        # "5 May", "5th May 2024": an ambiguous month only where no verb can follow
                        or (nxt.text in ("may", "march") and (i + 2 >= n or toks[i + 2].kind == PUNCT
                                                              or (toks[i + 2].kind == NUM and is_year_number(toks[i + 2].value)))))):
                year = None
                end = nxt.end
                j = i + 2
                if j < n and toks[j].kind == NUM and is_year_number(toks[j].value):
                    year = int(toks[j].value)
                    end = toks[j].end
                    j += 1
                out.append(Token(DATE, (year, _MONTHS[nxt.text], int(t.value)), t.start, end))
                i = j
                continue
            if (nxt is not None and _is_word(nxt, "of") and i + 2 < n and toks[i + 2].kind == WORD
                    and toks[i + 2].text in _MONTHS and isinstance(t.value, float) and 1 <= t.value <= 31):
                out.append(Token(DATE, (None, _MONTHS[toks[i + 2].text], int(t.value)), t.start, toks[i + 2].end))
                i += 3
                continue
            # frequency: "3 times a week", "two times per month"
            if nxt is not None and nxt.kind == WORD and nxt.text in ("times", "time", "x"):
                period, end, j = _period_after(toks, i + 2)
                if period is not None:
                    out.append(Token(FREQ, float(t.value) / period, t.start, end))
                    i = j
                    continue
            # duration: "9 months", "25 minutes and 50 seconds", "1 year and 5 months"
            if nxt is not None and nxt.kind == WORD and nxt.text in _DUR_UNITS and isinstance(t.value, float):
                dur, end, j = _duration_chain(toks, i)
                if dur is not None:
                    out.append(Token(DUR, dur, t.start, end, "", float(t.value)))
                    i = j
                    continue
            # measurement unit right after the number
            if nxt is not None and nxt.kind in (WORD, PUNCT) and nxt.text in _MEASURE_UNITS and t.unit is None:
                t = t._replace(unit=_MEASURE_UNITS[nxt.text])
            out.append(t)
            i += 1
            continue
        if t.kind == WORD:
            w = t.text
            # "twice a week", "once per month"
            if w in _MULTIPLES:
                period, end, j = _period_after(toks, i + 1)
                if period is not None:
                    out.append(Token(FREQ, _MULTIPLES[w] / period, t.start, end))
                    i = j
                    continue
                if w in ("twice", "thrice"):
                    out.append(Token(NUM, float(_MULTIPLES[w]), t.start, t.end, w, None, "times"))
                    i += 1
                    continue
            if w in _FREQ_ADVERBS:
                out.append(Token(FREQ, _FREQ_ADVERBS[w], t.start, t.end))
                i += 1
                continue
            # "every week", "every other week", "every 2 weeks", "each month"
            if w == "every" and nxt is not None:
                k = 1.0
                j = i + 1
                if _is_word(toks[j], "other"):
                    k, j = 2.0, j + 1
                elif toks[j].kind == NUM:
                    k, j = float(toks[j].value), j + 1
                elif _is_word(toks[j], "second"):
                    k, j = 2.0, j + 1
                if j < n and toks[j].kind == WORD and toks[j].text in _PERIOD_OF and k > 0:  # "every 0 weeks": none
                    out.append(Token(FREQ, 1.0 / (k * _PERIOD_DAYS[_PERIOD_OF[toks[j].text]]), t.start, toks[j].end))
                    i = j + 1
                    continue
            # "half past seven", "a quarter to 6 pm", "quarter after six in the evening": a time of day
            if w in ("half", "quarter") or (w == "a" and _is_word(nxt, "quarter")):
                clock = _clock_in_words(toks, i)
                if clock is not None:
                    out.append(clock[0])
                    i = clock[1]
                    continue
            # "an hour and a half", "half an hour", "a week" (duration one unit)
            if w == "half" and nxt is not None and _is_word(nxt, "an", "a") and i + 2 < n and toks[i + 2].kind == WORD and toks[i + 2].text in _DUR_UNITS:
                kind, size = _DUR_UNITS[toks[i + 2].text]
                out.append(Token(DUR, (kind, 0.5 * size), t.start, toks[i + 2].end, "", 0.5))
                i += 3
                continue
            if (w in ("a", "an") and nxt is not None and nxt.kind == WORD and nxt.text in _DUR_UNITS
                    and nxt.text not in ("second", "min", "h", "mo") and not (out and out[-1].kind in (NUM, DUR, FREQ))
                    and not (out and out[-1].kind == WORD and out[-1].text in ("times", "time", "per"))):
                dur, end, j = _duration_chain(toks, i, first_count=1.0)
                if dur is not None:
                    out.append(Token(DUR, dur, t.start, end, "", 1.0))
                    i = j
                    continue
            if w in ("noon", "midday"):
                out.append(Token(TIME, frozenset({720}), t.start, t.end))
                i += 1
                continue
            if w == "midnight":
                out.append(Token(TIME, frozenset({0}), t.start, t.end))
                i += 1
                continue
        out.append(t)
        i += 1
    # a range needs two values: most texts have fewer, so skip the scan
    seen_value = False
    for t in out:
        if t.kind in VALUE_KINDS:
            if seen_value:
                return _ranges(out)
            seen_value = True
    return out


_PARTS_OF_DAY = {("in", "the", "morning"): "am", ("in", "the", "afternoon"): "pm", ("in", "the", "evening"): "pm",
                 ("at", "night"): "pm", ("am",): "am", ("pm",): "pm", ("a", ".", "m", "."): "am", ("p", ".", "m", "."): "pm"}


_PART_STARTS = frozenset(words[0] for words in _PARTS_OF_DAY)


def _part_of_day(toks: list[Token], j: int) -> tuple[str | None, int, int]:
    """After an hour: "in the morning" -> ("am", end, next index); (None, 0, j) when absent."""
    for words, half in _PARTS_OF_DAY.items():
        k = j + len(words)
        if k <= len(toks) and all(toks[j + x].text == w for x, w in enumerate(words)):
            return half, toks[k - 1].end, k
    return None, 0, j


def _clock_in_words(toks: list[Token], i: int) -> tuple[Token, int] | None:
    """"(a) quarter past|after|to HOUR", "half past HOUR" starting at toks[i]: the TIME token and the
    index after it (the hour may carry its am/pm or a part of the day after it)."""
    n = len(toks)
    j = i + 1 if toks[i].text != "a" else i + 2
    if j + 1 >= n or toks[j].kind != WORD or toks[j].text not in ("past", "after", "to", "till"):
        return None
    offset = 30 if toks[j - 1].text == "half" else 15
    if toks[j].text in ("to", "till"):
        if offset == 30:
            return None  # "half to" is not a time
        offset = -15
    hour = toks[j + 1]
    if hour.kind == TIME:
        bases, end, after = set(hour.value), hour.end, j + 2
    elif hour.kind == NUM and isinstance(hour.value, float) and hour.value.is_integer() and 1 <= hour.value <= 12 \
            and hour.unit is None:
        h = int(hour.value) % 12
        half, part_end, after = _part_of_day(toks, j + 2) if j + 2 < n and toks[j + 2].text in _PART_STARTS else (
            None, 0, j + 2)
        bases = {"am": {h * 60}, "pm": {(h + 12) * 60}}.get(half or "", {h * 60, (h + 12) * 60})
        end = part_end if half is not None else hour.end
    else:
        return None
    return Token(TIME, frozenset((b + offset) % 1440 for b in bases), toks[i].start, end), after


def is_year_number(v: object) -> bool:
    """A whole number that reads as a year (1900-2100)."""
    return isinstance(v, float) and v.is_integer() and 1900 <= v <= 2100


def _period_after(toks: list[Token], j: int) -> tuple[float | None, int, int]:
    """After "N times": ("a"|"an"|"per"|"each"|"every"|"/") PERIOD, or a frequency adverb."""
    n = len(toks)
    if j < n and toks[j].kind == WORD and toks[j].text in ("weekly", "daily", "monthly", "yearly", "annually"):
        return 1.0 / _FREQ_ADVERBS[toks[j].text], toks[j].end, j + 1
    if j + 1 < n and (toks[j].text in ("a", "an", "per", "each", "every", "/")) and toks[j + 1].kind == WORD \
            and toks[j + 1].text in _PERIOD_OF:
        return _PERIOD_DAYS[_PERIOD_OF[toks[j + 1].text]], toks[j + 1].end, j + 2
    if j < n and toks[j].kind == DUR:  # "3 times a week" where "a week" already became a duration
        return None, 0, j
    return None, 0, j


def _duration_chain(toks: list[Token], i: int, first_count: float | None = None):
    """Sum "N unit (and|,)? N unit ..." starting at toks[i] (a NUM, or "a"/"an" with first_count)."""
    n = len(toks)
    total = {"s": 0.0, "mo": 0.0}
    j = i
    end = toks[i].end
    first = True
    while j < n:
        count = first_count if (first and first_count is not None) else (
            float(toks[j].value) if toks[j].kind == NUM and isinstance(toks[j].value, float) else None)
        if count is None or j + 1 >= n or toks[j + 1].kind != WORD or toks[j + 1].text not in _DUR_UNITS:
            break
        kind, size = _DUR_UNITS[toks[j + 1].text]
        total[kind] += count * size
        end = toks[j + 1].end
        j += 2
        first = False
        # "and a half"
        if j + 2 < n and _is_word(toks[j], "and") and _is_word(toks[j + 1], "a") and _is_word(toks[j + 2], "half"):
            total[kind] += 0.5 * size
            end = toks[j + 2].end
            j += 3
            continue
        # continue the chain: "25 minutes and 50 seconds", "1 hour, 20 minutes", "2 hours 30 minutes"
        k = j
        if k < n and (_is_word(toks[k], "and") or (toks[k].kind == PUNCT and toks[k].text == ",")):
            k += 1
        if k + 1 < n and toks[k].kind == NUM and toks[k + 1].kind == WORD and toks[k + 1].text in _DUR_UNITS:
            nk, nsize = _DUR_UNITS[toks[k + 1].text]
            if nk == kind and nsize < size or (kind == "mo" and nk == "mo" and nsize < size):
                j = k
                continue
        break
    if first:
        return None, end, i + 1
    if total["s"] and total["mo"]:
        return None, end, i + 1
    dur = ("mo", total["mo"]) if total["mo"] else ("s", total["s"])
    return dur, end, j


_RANGE_ENDS = frozenset({NUM, DUR, TIME, CLOCK, DATE})
_RANGE_SEPARATORS = frozenset({"-", ":", "to", "through"})


def _ranges(toks: list[Token]) -> list[Token]:
    """A hyphen, slash or "to" between two numbers is a range/score/ratio separator: one word "to"."""
    n = len(toks)
    for i in range(1, n - 1):
        t = toks[i]
        if t.text == "and" and i >= 2 and toks[i - 2].text == "between" and toks[i - 1].kind in _RANGE_ENDS \
                and toks[i + 1].kind in _RANGE_ENDS:
            toks[i] = Token(WORD, "~", t.start, t.end, "to")  # "between 2.5 and 5.5 weeks" is a range
            continue
        if t.text not in _RANGE_SEPARATORS:
            continue  # fast path: the test below fails
        if t.kind == PUNCT and t.text in ("-", ":") or (t.kind == WORD and t.text in ("to", "through")):
            a, b = toks[i - 1], toks[i + 1]
            if t.text == ":" and (a.end != t.start or t.end != b.start):
                continue  # "3:1" is a ratio; "Not 39: 55" is a label and a value
            if a.kind in _RANGE_ENDS and b.kind in _RANGE_ENDS and (a.kind == b.kind or {a.kind, b.kind} <= {NUM, DUR}):
                # one canonical separator: "5-2" = "5 to 2", "10-12" = "10 to 12"
                toks[i] = Token(WORD, "~", t.start, t.end, "to")
    return toks


# words the structure pass looks at when they come first; every other word passes straight through
_STRUCTURE_WORDS = (
    frozenset(_MULTIPLES) | frozenset(_FREQ_ADVERBS)
    | {"every", "half", "quarter", "a", "an", "noon", "midday", "midnight"}
)
_NUMBER_WORD_TRIGGERS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_ORDINALS) | frozenset(_SCALES) | {"dozen"}
_STRUCTURE_TRIGGERS = (
    frozenset(_MULTIPLES) | frozenset(_FREQ_ADVERBS) | frozenset(_DUR_UNITS)
    | {"every", "half", "quarter", "noon", "midday", "midnight"}
)


# word -> (stem, role in _LEX_ROLES or 0), filled as words are met
_LEXED: dict[str, tuple[str, int]] = {}
# bits: 1 the structure pass has work (a word only it looks at), 2 the number-word pass too (3: a number word)
_LEX_ROLES = {**{w: 1 for w in _STRUCTURE_TRIGGERS}, **{w: 3 for w in _NUMBER_WORD_TRIGGERS}}


def tokenize(prepared: str) -> list[Token]:
    """Tokens of an already :func:`prepare`-d text, values parsed and merged."""
    tokens, need_words, need_structure = _lex(prepared)
    if need_words:
        tokens = _merge_number_words(tokens)
    if need_structure:
        tokens = _structure_pass(tokens)
    return tokens


# ---------------------------------------------------------------------------------------------
# Value comparison
# ---------------------------------------------------------------------------------------------
def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def unit_of(word: str) -> str | None:
    """The measurement unit a word names ("dollars" -> "dollar", "kg" -> "kg"), or None."""
    return _MEASURE_UNITS.get(word)


def other_unit(g: Token, w: Token) -> bool:
    """Is word ``w`` a unit that turns value ``g``'s number into another quantity? "25 minutes or
    seconds" offers 25 seconds; "$40 or euros" 40 euros. For durations and numbers with a unit."""
    if w.kind != WORD:
        return False
    if g.kind == DUR and g.number and w.text in _DUR_UNITS:
        kind, size = _DUR_UNITS[w.text]
        return not (kind == g.value[0] and _close(g.number * size, g.value[1]))
    if g.kind == NUM and g.unit is not None and w.text in _MEASURE_UNITS:
        return _MEASURE_UNITS[w.text] != g.unit
    return False


def values_equal(g: Token, a: Token) -> bool:
    """Does answer token ``a`` state the value of gold token ``g``? (kinds may differ: 25:50 = 25 min 50 s)."""
    gk, ak = g.kind, a.kind
    if gk == NUM:
        gv = g.value
        if ak == NUM:
            if not _close(gv, a.value):
                return False
            # a different measurement unit is a different quantity: $10 != 10 pounds
            return g.unit is None or a.unit is None or g.unit == a.unit
        if ak == DUR:
            return a.number is not None and _close(gv, a.number)
        return False
    if gk == DUR:
        gkind, gval = g.value
        if ak == DUR:
            akind, aval = a.value
            return gkind == akind and _close(gval, aval)
        if ak == CLOCK:
            return gkind == "s" and any(_close(gval, d) for d in a.value[1])
        if ak == NUM:
            # the bare number, unit left implicit ("9" for "9 months")
            return g.number is not None and _close(g.number, a.value) and a.unit is None
        return False
    if gk == TIME:
        if ak == TIME:
            return bool(g.value & a.value)
        if ak == CLOCK:
            return bool(g.value & a.value[0])
        return False
    if gk == CLOCK:
        if ak == CLOCK:
            return bool(g.value[0] & a.value[0]) or bool(g.value[1] & a.value[1])
        if ak == TIME:
            return bool(g.value[0] & a.value)
        if ak == DUR:
            return a.value[0] == "s" and any(_close(d, a.value[1]) for d in g.value[1])
        return False
    if gk == DATE:
        if ak != DATE:
            return False
        gy, gm, gd = g.value
        ay, am, ad = a.value
        return gm == am and gd == ad and (gy is None or ay is None or gy == ay)
    if gk == FREQ:
        return ak == FREQ and _close(g.value, a.value)
    return False
