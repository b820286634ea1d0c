"""Comparing parsed values: does an answer's token state a gold token's value?

Matching compares parsed values, never characters: ``25`` does not occur in ``250``, ``6 pm``
equals ``18:00``, ``25:50`` equals ``25 minutes and 50 seconds``, and a number with a different
measurement unit is a different quantity (``$10`` is not ``10 pounds``).
"""

from __future__ import annotations

import math

from supersede_env.core.grader.lex_durations import DUR_UNITS
from supersede_env.core.grader.lex_quantities import MEASURE_UNITS
from supersede_env.core.grader.lex_token import CLOCK, DATE, DUR, FREQ, NUM, TIME, WORD, Token

__all__ = ["other_unit", "values_equal"]


def _close(a: float, b: float) -> bool:
    # a digit run past a float's range reads as infinity, which equals no value (not even another)
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def other_unit(g: Token, w: Token) -> bool:
    """Is word ``w`` a unit that turns value ``g``'s number into another quantity? "25 minutes or
    seconds" offers 25 seconds; "$40 or euros" 40 euros. For durations and numbers with a unit."""
    if w.kind != WORD:
        return False
    if g.kind == DUR and g.number and w.text in DUR_UNITS:
        kind, size = DUR_UNITS[w.text]
        return not (kind == g.value[0] and _close(g.number * size, g.value[1]))
    if g.kind == NUM and g.unit is not None and w.text in MEASURE_UNITS:
        return MEASURE_UNITS[w.text] != g.unit
    return False


def values_equal(g: Token, a: Token) -> bool:
    """Does answer token ``a`` state the value of gold token ``g``? (kinds may differ: 25:50 = 25 min 50 s)."""
    compare = _COMPARE.get(g.kind)
    return compare is not None and compare(g, a)


def _number_equal(g: Token, a: Token) -> bool:
    ak = a.kind
    if ak == NUM:
        if not _close(g.value, a.value):
            return False
        # a different measurement unit is a different quantity: $10 != 10 pounds
        return g.unit is None or a.unit is None or g.unit == a.unit
    if ak == DUR:
        return a.number is not None and _close(g.value, a.number)
    return False


def _duration_equal(g: Token, a: Token) -> bool:
    gkind, gval = g.value
    ak = a.kind
    if ak == DUR:
        akind, aval = a.value
        return gkind == akind and _close(gval, aval)
    if ak == CLOCK:
        return gkind == "s" and any(_close(gval, d) for d in a.value[1])
    if ak == NUM:
        # the bare number, unit left implicit ("9" for "9 months")
        return g.number is not None and _close(g.number, a.value) and a.unit is None
    return False


def _time_equal(g: Token, a: Token) -> bool:
    if a.kind == TIME:
        return bool(g.value & a.value)
    if a.kind == CLOCK:
        return bool(g.value & a.value[0])
    return False


def _clock_equal(g: Token, a: Token) -> bool:
    ak = a.kind
    if ak == CLOCK:
        return bool(g.value[0] & a.value[0]) or bool(g.value[1] & a.value[1])
    if ak == TIME:
        return bool(g.value[0] & a.value)
    if ak == DUR:
        return a.value[0] == "s" and any(_close(d, a.value[1]) for d in g.value[1])
    return False


def _date_equal(g: Token, a: Token) -> bool:
    if a.kind != DATE:
        return False
    gy, gm, gd = g.value
    ay, am, ad = a.value
    return gm == am and gd == ad and (gy is None or ay is None or gy == ay)


def _frequency_equal(g: Token, a: Token) -> bool:
    return a.kind == FREQ and _close(g.value, a.value)


_COMPARE = {NUM: _number_equal, DUR: _duration_equal, TIME: _time_equal, CLOCK: _clock_equal,
            DATE: _date_equal, FREQ: _frequency_equal}
