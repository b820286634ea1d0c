"""The duration and frequency grammar: how long, and how often.

Durations (DUR, value ``("s", seconds)`` for clock-like units or ``("mo", months)`` for calendar
units, so that a month is never a number of days): ``9 months``, ``25 minutes and 50 seconds``,
``1 hour, 20 minutes``, ``2 hours 30 minutes``, ``an hour and a half``, ``half an hour``,
``a week``. A DUR keeps the number as written (``9`` of ``9 months``), so a bare ``9`` can still
state it. Frequencies (FREQ, value: events per day): ``3 times a week``, ``twice a month``,
``once per day``, ``daily``, ``biweekly``, ``every other week``, ``every 2 weeks``,
``each month``; ``every other week`` and ``biweekly`` are the same frequency.
"""

from __future__ import annotations

from supersede_env.core.grader.lex_token import DUR, FREQ, NUM, PUNCT, WORD, Token, is_word

__all__ = [
    "DURATION_WORDS",
    "DUR_UNITS",
    "FREQ_ADVERBS",
    "MULTIPLES",
    "a_unit",
    "every_period",
    "frequency_adverb",
    "half_a_unit",
    "multiple_per_period",
    "number_duration",
    "times_per_period",
]

# duration unit -> (scale kind, size): seconds for clock-like units, months for calendar units
DUR_UNITS: dict[str, tuple[str, float]] = {}
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
        DUR_UNITS[_n] = (_kind, _size)
_PERIOD_DAYS = {"day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 30.0, "year": 365.0}
_PERIOD_OF = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "fortnight": "fortnight",
    "month": "month", "months": "month", "year": "year", "years": "year",
}
FREQ_ADVERBS = {
    "daily": 1.0, "nightly": 1.0, "weekly": 1 / 7, "biweekly": 1 / 14, "fortnightly": 1 / 14,
    "monthly": 1 / 30, "bimonthly": 1 / 60, "yearly": 1 / 365, "annually": 1 / 365,
}
MULTIPLES = {"once": 1, "twice": 2, "thrice": 3}
# words that make the lexer run the structure pass (see lex_scan)
DURATION_WORDS = frozenset(MULTIPLES) | frozenset(FREQ_ADVERBS) | frozenset(DUR_UNITS) | {"every", "half"}
# what times_per_period and number_duration need right after a number
AFTER_A_COUNT = frozenset(DUR_UNITS) | {"times", "time", "x"}


def _period_after(toks: list[Token], j: int) -> tuple[float | None, int, int]:
    """After "N times": ("a"|"an"|"per"|"each"|"every"|"/") PERIOD, or a frequency adverb: the period
    in days, where it ends in the text and the index after it."""
    n = len(toks)
    if j < n and toks[j].kind == WORD and toks[j].text in ("weekly", "daily", "monthly", "yearly", "annually"):
        return 1.0 / FREQ_ADVERBS[toks[j].text], toks[j].end, j + 1
    if j + 1 < n and (toks[j].text in ("a", "an", "per", "each", "every", "/")) and toks[j + 1].kind == WORD \
            and toks[j + 1].text in _PERIOD_OF:
        return _PERIOD_DAYS[_PERIOD_OF[toks[j + 1].text]], toks[j + 1].end, j + 2
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
        if count is None or j + 1 >= n or toks[j + 1].kind != WORD or toks[j + 1].text not in DUR_UNITS:
            break
        kind, size = DUR_UNITS[toks[j + 1].text]
        total[kind] += count * size
        end = toks[j + 1].end
        j += 2
        first = False
        # "and a half"
        if j + 2 < n and is_word(toks[j], "and") and is_word(toks[j + 1], "a") and is_word(toks[j + 2], "half"):
            total[kind] += 0.5 * size
            end = toks[j + 2].end
            j += 3
            continue
        # continue the chain: "25 minutes and 50 seconds", "1 hour, 20 minutes", "2 hours 30 minutes"
        k = j
        if k < n and (is_word(toks[k], "and") or (toks[k].kind == PUNCT and toks[k].text == ",")):
            k += 1
        if k + 1 < n and toks[k].kind == NUM and toks[k + 1].kind == WORD and toks[k + 1].text in DUR_UNITS:
            nk, nsize = DUR_UNITS[toks[k + 1].text]
            if nk == kind and nsize < size or (kind == "mo" and nk == "mo" and nsize < size):
                j = k  # a smaller unit of the same scale continues the duration
                continue
        break
    if first or (total["s"] and total["mo"]):
        return None, end, i + 1
    dur = ("mo", total["mo"]) if total["mo"] else ("s", total["s"])
    return dur, end, j


# ---------------------------------------------------------------------------------------------
# Structure-pass rules (see tokens.py for their order)
# ---------------------------------------------------------------------------------------------
def times_per_period(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"3 times a week", "two times per month": a frequency."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is not None and nxt.kind == WORD and nxt.text in ("times", "time", "x"):
        period, end, j = _period_after(toks, i + 2)
        if period is not None:
            out.append(Token(FREQ, float(t.value) / period, t.start, end))
            return j
    return None


def number_duration(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"9 months", "25 minutes and 50 seconds", "1 year and 5 months": a duration."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is not None and nxt.kind == WORD and nxt.text in DUR_UNITS and isinstance(t.value, float):
        dur, end, j = _duration_chain(toks, i)
        if dur is not None:
            out.append(Token(DUR, dur, t.start, end, "", float(t.value)))
            return j
    return None


def multiple_per_period(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"twice a week", "once per month": a frequency; "twice" alone is the number 2 ("times")."""
    t = toks[i]
    w = t.text
    period, end, j = _period_after(toks, i + 1)
    if period is not None:
        out.append(Token(FREQ, MULTIPLES[w] / period, t.start, end))
        return j
    if w in ("twice", "thrice"):
        out.append(Token(NUM, float(MULTIPLES[w]), t.start, t.end, w, None, "times"))
        return i + 1
    return None


def frequency_adverb(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"daily", "biweekly", "annually": a frequency."""
    t = toks[i]
    out.append(Token(FREQ, FREQ_ADVERBS[t.text], t.start, t.end))
    return i + 1


def every_period(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"every week", "every other week", "every 2 weeks", "every second month": a frequency."""
    n = len(toks)
    if i + 1 >= n:
        return None
    k = 1.0
    j = i + 1
    if is_word(toks[j], "other"):
        k, j = 2.0, j + 1
    elif toks[j].kind == NUM:
        k, j = float(toks[j].value), j + 1
    elif is_word(toks[j], "second"):
        k, j = 2.0, j + 1
    if j < n and toks[j].kind == WORD and toks[j].text in _PERIOD_OF and k > 0:  # "every 0 weeks": none
        out.append(Token(FREQ, 1.0 / (k * _PERIOD_DAYS[_PERIOD_OF[toks[j].text]]), toks[i].start, toks[j].end))
        return j + 1
    return None


def half_a_unit(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"half an hour", "half a day": a duration of half the unit."""
    t = toks[i]
    n = len(toks)
    if i + 2 < n and is_word(toks[i + 1], "an", "a") and toks[i + 2].kind == WORD and toks[i + 2].text in DUR_UNITS:
        kind, size = DUR_UNITS[toks[i + 2].text]
        out.append(Token(DUR, (kind, 0.5 * size), t.start, toks[i + 2].end, "", 0.5))
        return i + 3
    return None


def a_unit(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"a week", "an hour and a half": a duration of one unit (not after a number or "times":
    "3 times a week" is a frequency)."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if (nxt is not None and nxt.kind == WORD and nxt.text in DUR_UNITS
            and nxt.text not in ("second", "min", "h", "mo") and not (out and out[-1].kind in (NUM, DUR, FREQ))
            and not (out and out[-1].kind == WORD and out[-1].text in ("times", "time", "per"))):
        dur, end, j = _duration_chain(toks, i, first_count=1.0)
        if dur is not None:
            out.append(Token(DUR, dur, t.start, end, "", 1.0))
            return j
    return None
