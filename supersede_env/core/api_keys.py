"""API keys: checked when read, masked in values (never in serialised text) wherever model text is stored.

A key is read from the environment variable a user names; :func:`key_problem` refuses one that
cannot be a real key before anything runs: empty, shorter than :data:`MIN_KEY_CHARS` characters (a
short string such as ``true`` or ``1234`` would also occur in ordinary text, so masking it would
rewrite answers, paths and numbers), or holding spaces or characters an HTTP header cannot carry.

Masking replaces every occurrence of a key's exact value inside *string values* with ``***``
(:func:`mask_values`, :func:`mask_text`) before anything is serialised: JSON or YAML syntax,
field names, numbers and booleans are never touched, so a masked record is still a valid record.
Every path that stores model text masks this way: the run records and the configuration a run
writes, the backend's replies and error messages (so the rollout and the records see the same
text), and the verifiers layer's ``trace.info``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from supersede_env.core.safe_text import clean, json_may_hold_unsafe

__all__ = ["MASK", "MIN_KEY_CHARS", "key_problem", "mask_text", "mask_values", "masked_json"]

MASK = "***"
MIN_KEY_CHARS = 8


def key_problem(value: str | None) -> str | None:
    """Why ``value`` (an environment variable's) cannot be an API key; None when it can."""
    if value is None:
        return "is not set"
    if not value:
        return "is empty"
    if len(value) < MIN_KEY_CHARS:
        return (f"holds {len(value)} characters; an API key this short is implausible (at least "
                f"{MIN_KEY_CHARS}), and masking it would rewrite ordinary text")
    if not all("!" <= c <= "~" for c in value):
        return "holds a space, a control or a non-ASCII character, which an HTTP header cannot carry"
    return None


def usable(secrets: Iterable[str | None]) -> tuple[str, ...]:
    """The secrets worth masking, longest first (so a key inside a longer key is masked as the longer)."""
    return tuple(sorted({s for s in secrets if s}, key=len, reverse=True))


def mask_text(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``***``."""
    if not secrets:  # most runs have no key: every reply passes here
        return text
    for secret in usable(secrets):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def mask_values(value: Any, secrets: Sequence[str]) -> Any:
    """A JSON-ready value with every string cleaned (:mod:`.safe_text`) and the secrets masked in its
    string values; mapping keys (cleaned only), numbers, booleans and None as they are."""
    ordered = usable(secrets)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            item = clean(item)
            for secret in ordered:
                if secret in item:
                    item = item.replace(secret, MASK)
            return item
        if isinstance(item, Mapping):  # keys are cleaned, never masked: a field name stays a field name
            return {clean(k) if isinstance(k, str) else k: walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item]
        return item

    return walk(value)


def masked_json(value: Any, secrets: Sequence[str]) -> str:
    """Compact JSON of ``mask_values(value, secrets)``. Encoded once, without the walk, when the text
    shows nothing to clean or mask (most records: no key, no control character). A string holding a
    secret holds its JSON form, character for character, so the text test misses none."""
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    try:
        text = json.dumps(value, **compact)
    except TypeError:  # a mapping that is not a dict: the walk makes it one
        return json.dumps(mask_values(value, secrets), **compact)
    if json_may_hold_unsafe(text) or (secrets and any(json.dumps(s, ensure_ascii=False)[1:-1] in text
                                                      for s in usable(secrets))):
        return json.dumps(mask_values(value, secrets), **compact)
    return text


def string_values(value: Any) -> list[str]:
    """Every string inside a JSON-like value (lists, tuples, mapping values), never its mapping keys."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [text for item in value for text in string_values(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in string_values(item)]
    return []
