"""Text from outside, made safe once where it comes in: one policy for every string we did not write.

Everything that enters from outside (model and judge replies, episode and LongMemEval files, judged
answers, run records read back, YAML configs) passes through :func:`clean` (or :func:`clean_value`
for parsed JSON/YAML) at the point where it is read, so that nothing downstream can fail to encode
it or be steered by it:

- a lone surrogate (``\\ud83d``: a valid JSON escape, not a character, not encodable as UTF-8)
  becomes U+FFFD, the replacement character;
- NUL, the other C0 controls except tab, newline and carriage return, DEL and the C1 controls
  (``\\x1b`` starts terminal escape sequences) become U+FFFD too: visible, and never joining two
  words that were apart;
- everything else, non-ASCII text included, is kept as it is.

Identifiers (episode and question ids) are not cleaned but checked (:func:`check_id`): an id is
printable text on one line, because it names a pair in records, reports and the console.

Text we did not write is shown on the console or in an error only through :func:`for_console` or
:func:`excerpt` (non-printable characters escaped, long text cut), so a hostile reply cannot move
the cursor, clear the screen or turn one error line into a thousand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["REPLACEMENT", "MAX_ID_CHARS", "EXCERPT_CHARS", "clean", "clean_value", "clean_json", "json_may_hold_unsafe", "check_id",
           "for_console", "excerpt"]

REPLACEMENT = "\ufffd"
MAX_ID_CHARS = 200
EXCERPT_CHARS = 80

# lone surrogates (a pair cannot exist inside a Python str: it is always two lone halves), C0
# controls but \t \n \r, DEL and C1 controls
_UNSAFE = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """``text`` under the policy above; the same string when it holds nothing unsafe (the common case)."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(REPLACEMENT, text)


def clean_value(value: Any) -> Any:
    """Every string in a parsed JSON or YAML value cleaned (keys too); other values as they are."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clean_value(v) for v in value)
    if isinstance(value, Mapping):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    return value


# a JSON escape of an unsafe character: \b, \f, or \u with its code (\u0000-\u001f holds tab and
# newline too: cleaning them is a no-op). Searched apart from _UNSAFE: one pattern of both is 3x slower.
_UNSAFE_ESCAPE = re.compile(r"\\(?:[bf]|u(?:00[01]|007[fF]|00[89]|[dD][89a-fA-F]))")


def json_may_hold_unsafe(text: str) -> bool:
    """Can the JSON ``text`` hold a character :func:`clean` replaces (the character, or an escape of it)?"""
    return _UNSAFE.search(text) is not None or _UNSAFE_ESCAPE.search(text) is not None


def clean_json(text: str, value: Any) -> Any:
    """:func:`clean_value` of ``value``, parsed from the JSON ``text``; ``value`` itself when ``text``
    can hold nothing unsafe: most records need no walk."""
    return clean_value(value) if json_may_hold_unsafe(text) else value


def check_id(value: str) -> str | None:
    """Why ``value`` cannot be an id (None when it can): 1 to 200 printable characters, no line
    breaks, tabs, escapes, zero-width or other format characters, no leading or trailing space."""
    if not value:
        return "empty"
    if len(value) > MAX_ID_CHARS:
        return f"{len(value):,} characters (at most {MAX_ID_CHARS})"
    if not value.isprintable():
        bad = next(c for c in value if not c.isprintable())
        return f"holds the non-printable character {ascii(bad)} (an id is printable text on one line)"
    if REPLACEMENT in value:  # what clean() leaves of a control character or a lone surrogate
        return "holds a control character or a lone surrogate (shown as U+FFFD); an id is printable text"
    if value != value.strip():
        return "begins or ends with a space"
    return None


def for_console(text: str) -> str:
    """``text`` with every non-printable character escaped (``\\x1b``, ``\\n``, ``\\u200b``): one line,
    no terminal control."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable, quoted excerpt of input for an error message (its length when cut)."""
    shown = for_console(text[:limit])
    if len(text) > limit or len(shown) > limit:  # escapes lengthen what is shown: cut that too
        return f"'{shown[:limit]}...' ({len(text):,} characters)"
    return f"'{shown}'"
