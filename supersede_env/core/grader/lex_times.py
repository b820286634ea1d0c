"""The time-of-day grammar: clock times, in digits or in words.

Reads ``6 pm``, ``6:00 p.m.``, ``5:35am``, ``18h35`` (TIME: minutes after midnight), ``18:00`` and
``6:45`` without am/pm (CLOCK: either a time of day, both halves of the day when under 12, or a
duration ``mm:ss`` / ``hh:mm``; ``1:02:03`` is a duration or a time), ``six o'clock``,
``7 in the evening``, ``six thirty-five pm``, ``half past seven``, ``a quarter to 6 pm``, ``noon``
and ``midnight``. ``6 pm``, ``6:00 p.m.`` and ``18:00`` are the same time; ``7:00 pm`` is not.
"""

from __future__ import annotations

import re

from supersede_env.core.grader.lex_token import CLOCK, NUM, TIME, WORD, Token, is_word

__all__ = ["TIME_LEXERS", "TIME_PATTERN", "TIME_WORDS", "AFTER_A_CLOCK", "clock_in_words", "clock_part_of_day",
           "hour_in_words", "noon_or_midnight"]

# Clock times in digits (a fragment of the lexer's one pattern, lex_scan; verbose syntax).
TIME_PATTERN = r"""
      # "p.m." keeps its last dot; "pm." ends a sentence, so its dot is punctuation
      (?P<time>(?<![\d:.])(?P<th>\d{1,2})(?:[:.](?P<tm>[0-5]\d))?\s?(?P<ap>[ap])(?:\.m\b\.?|m\b|m(?=ish\b)))
    | (?P<hclock>(?<![\d:.])(?P<hh>[01]?\d|2[0-3])h(?P<hm>[0-5]\d)(?!\w))
    | (?P<clock>(?<![\d:.])(?P<ch>\d{1,2}):(?P<cm>[0-5]\d)(?::(?P<cs>[0-5]\d))?(?![\d:]))
"""
# words that make the lexer run the structure pass (see lex_scan)
TIME_WORDS = frozenset({"half", "quarter", "noon", "midday", "midnight"})


def _lex_time(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """"6 pm", "6:30 p.m.": a time of day ("13 pm" and "0 pm" are not: a number)."""
    start, end = m.span()
    h = int(m.group("th"))
    mins = int(m.group("tm") or 0)
    if h > 12 or h == 0 and m.group("ap") == "p":
        tokens.append(Token(NUM, float(h), start, end))
        return
    h = h % 12 + (12 if m.group("ap") == "p" else 0)
    tokens.append(Token(TIME, frozenset({h * 60 + mins}), start, end))


def _lex_hclock(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """"18h35": a 24-hour time."""
    start, end = m.span()
    tokens.append(Token(TIME, frozenset({int(m.group("hh")) * 60 + int(m.group("hm"))}), start, end))


def _lex_clock(m: re.Match[str], tokens: list[Token], text: str) -> None:
    """"6:45", "18:00", "1:02:03": every time of day and every duration the digits can be."""
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
    start, end = m.span()
    tokens.append(Token(CLOCK, (frozenset(times), frozenset(durs)), start, end))


TIME_LEXERS = {"time": _lex_time, "hclock": _lex_hclock, "clock": _lex_clock}

_PARTS_OF_DAY = {("in", "the", "morning"): "am", ("in", "the", "afternoon"): "pm", ("in", "the", "evening"): "pm",
                 ("at", "night"): "pm", ("am",): "am", ("pm",): "pm", ("a", ".", "m", "."): "am", ("p", ".", "m", "."): "pm"}
_PART_STARTS = frozenset(words[0] for words in _PARTS_OF_DAY)
# the parts of the day by their first word, in their order above (two with different first words
# never both match at one place, so this finds what a scan of them all in order would)
_PARTS_BY_START = {w: tuple((words, half) for words, half in _PARTS_OF_DAY.items() if words[0] == w)
                   for w in _PART_STARTS}
# what hour_in_words needs right after a number (or another number: "six thirty-five pm")
AFTER_AN_HOUR = _PART_STARTS | {"o'clock"}
# of those, the ones that start a part of the day only with a "." after them ("a.m."; "1 a" is not)
DOTTED_PART_STARTS = frozenset(words[0] for words in _PARTS_OF_DAY if words[1:2] == (".",))


def _part_of_day(toks: list[Token], j: int) -> tuple[str | None, int, int]:
    """After an hour: "in the morning" -> ("am", end, next index); (None, 0, j) when absent."""
    for words, half in _PARTS_BY_START.get(toks[j].text, ()) if j < len(toks) else ():
        k = j + len(words)
        if k <= len(toks) and all(toks[j + x].text == w for x, w in enumerate(words)):
            return half, toks[k - 1].end, k
    return None, 0, j


# what may follow a clock time to make it a time of day ("5:35 in the morning", "6:45 at night")
AFTER_A_CLOCK = _PART_STARTS


def clock_part_of_day(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"5:35 in the morning", "6:45 at night": a clock time that a part of the day places; a TIME token,
    and the index after it."""
    clock = toks[i]
    half, end, after = _part_of_day(toks, i + 1) if i + 1 < len(toks) else (None, 0, i + 1)
    if half is None:
        return None
    if toks[i + 1].text == "at":  # "at night": the evening, or the small hours ("1:30 at night")
        minutes = frozenset(m for m in clock.value[0] if m >= 18 * 60 or m < 5 * 60)
    else:
        minutes = frozenset(m for m in clock.value[0] if (m < 12 * 60) == (half == "am"))
    if not minutes:
        return None
    out.append(Token(TIME, minutes, clock.start, end))
    return after


def hour_in_words(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """A number 1-12 read as an hour: "six o'clock", "6 o'clock in the morning", "7 in the evening",
    "six thirty-five pm" (the minutes in words). A TIME token, and the index after it."""
    t = toks[i]
    if not (isinstance(t.value, float) and t.value.is_integer() and 1 <= t.value <= 12 and t.unit is None):
        return None
    n = len(toks)
    nxt = toks[i + 1] if i + 1 < n else None
    j = i + 1
    end = t.end
    past = 0
    if is_word(nxt, "o'clock"):
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
        return after if half is not None else j
    return None


def clock_in_words(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"half past seven", "a quarter to 6 pm", "quarter after six in the evening": a time of day."""
    w = toks[i].text
    if w in ("half", "quarter") or (w == "a" and i + 1 < len(toks) and is_word(toks[i + 1], "quarter")):
        clock = _quarter_past(toks, i)
        if clock is not None:
            out.append(clock[0])
            return clock[1]
    return None


def _quarter_past(toks: list[Token], i: int) -> tuple[Token, int] | None:
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


_NAMED_TIMES = {"noon": 720, "midday": 720, "midnight": 0}


def noon_or_midnight(toks: list[Token], i: int, out: list[Token]) -> int | None:
    """"noon", "midday", "midnight": a time of day."""
    t = toks[i]
    out.append(Token(TIME, frozenset({_NAMED_TIMES[t.text]}), t.start, t.end))
    return i + 1
