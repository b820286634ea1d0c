"""Reading JSON Lines input files: one object per non-blank line, each error naming file:line.

Every string of every line is cleaned (:mod:`.safe_text`: lone surrogates and control characters
replaced) and a line is read up to :data:`~.limits.MAX_LINE_BYTES`, so no input line can fill the
memory or make a later write fail to encode.

Run records have their own reader (:mod:`supersede_env.core.records`): a run killed mid-write may leave
a torn last line there, which is expected; in an input file it is an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from supersede_env.core.limits import MAX_LINE_BYTES
from supersede_env.core.safe_text import clean_json


def unusable(exc: BaseException) -> str:
    """Why a syntactically fine JSON or YAML text could not be read: what a parser raises besides its
    syntax errors (RecursionError for deep nesting, ValueError for Python's 4,300-digit integer limit)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    text = " ".join(str(exc).split())
    if "integer string conversion" in text:
        return "an integer with more than 4,300 digits"
    return text[:160]


def _object_without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are distinct (json.loads keeps the last of a repeated key, silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key[:40]!r} given twice in one object")
        out[key] = value
    return out


def json_lines(path: str | os.PathLike[str], error: type[Exception]) -> Iterator[tuple[str, int, Any]]:
    """``(where, line number, parsed value)`` for each non-blank line of ``path``, where ``where`` is
    ``"file:line"``. A missing or unreadable file, or a line that is not JSON, raises ``error`` with a
    one-line message that names the file (and line)."""
    file = Path(path)
    if not file.is_file():
        raise error(f"{file}: no such file")
    try:
        # bytes, decoded line by line, so that a bad byte is reported on its own line
        with file.open("rb") as handle:
            for lineno, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
                where = f"{file}:{lineno}"
                if len(raw) > MAX_LINE_BYTES:
                    raise error(f"{where}: a line longer than {MAX_LINE_BYTES // 2**20} MiB")
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise error(f"{where}: not UTF-8 text ({exc.reason})") from None
                if not line.strip():
                    continue
                try:
                    value = json.loads(line, object_pairs_hook=_object_without_repeated_keys)
                except json.JSONDecodeError as exc:
                    raise error(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
                except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, nesting 200,000 deep
                    raise error(f"{where}: not usable JSON ({unusable(exc)})") from None
                yield where, lineno, clean_json(line, value)
    except OSError as exc:
        raise error(f"{file}: cannot be read ({exc.strerror or exc})") from None
