"""The money and measurement grammar: a number's unit.

Reads a currency sign before a number (``$400,000`` is 400000 dollars; ``€``, ``£``, ``¥``) and a
measurement unit written right after one (``10 pounds``, ``5 kg``, ``40 mph``, ``12%``). The unit
goes on the number token (``Token.unit``) rather than into its value, so that ``$10`` and ``10``
still match while ``$10`` and ``10 pounds`` do not (:mod:`.lex_values`).
"""

from __future__ import annotations

from supersede_env.core.grader.lex_token import NUM, PUNCT, WORD, Token

__all__ = ["CURRENCY_SYMBOLS", "MEASURE_UNITS", "currency_sign", "measure_unit", "unit_of"]

# Measurement units: a number followed by a *different* unit of this list is a different quantity.
MEASURE_UNITS = {
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
CURRENCY_SYMBOLS = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen"}


def unit_of(word: str) -> str | None:
    """The measurement unit a word names ("dollars" -> "dollar", "kg" -> "kg"), or None."""
    return MEASURE_UNITS.get(word)


def currency_sign(toks: list[Token], i: int) -> int | None:
    """A currency sign before a number: "$400,000" -> NUM(400000, unit=dollar). The sign's token
    is dropped and the number rewritten in place (it starts at the sign); the index to go on from."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is None or nxt.kind != NUM:
        return None
    toks[i + 1] = nxt._replace(unit=CURRENCY_SYMBOLS[t.text], start=t.start)
    return i + 1


def measure_unit(t: Token, nxt: Token | None) -> Token:
    """The number ``t`` with the measurement unit written right after it, if any ("10 pounds")."""
    if nxt is not None and nxt.kind in (WORD, PUNCT) and nxt.text in MEASURE_UNITS and t.unit is None:
        return t._replace(unit=MEASURE_UNITS[nxt.text])
    return t
