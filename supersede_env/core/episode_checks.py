"""What every reader of episodes checks about the values that matter: ids shown safely, questions and
gold answers that say something, within their bounds, and superseded values apart from the answer.

Episode files (:mod:`.episode`) and LongMemEval files (:mod:`.longmemeval`) call these with their
own error type, so a bad value reads the same from either: one line naming the file, the item and
the field. The bounds live in :mod:`.limits`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from supersede_env.core.errors import EpisodeError
from supersede_env.core.limits import MAX_GOLD_CHARS, MAX_QUESTION_CHARS, MAX_STALE_VALUES, MAX_VALUE_CHARS
from supersede_env.core.safe_text import excerpt, for_console

__all__ = ["item_name", "has_content", "same_value", "check_question", "check_gold"]


def item_name(raw_id: Any) -> str:
    """An item's id as an error message shows it: printable, one line, at most 60 characters."""
    text = for_console(str(raw_id))
    return text if len(text) <= 60 else text[:57] + "..."


def has_content(text: str) -> bool:
    """Whether a value says something: at least one letter or digit (not only spaces, punctuation or
    zero-width characters)."""
    return any(c.isalnum() for c in text)


def same_value(a: str, b: str) -> bool:
    """Two values that are the same once case and spacing are set aside."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def check_gold(where: str, item: str, answer: str, stale: Sequence[str], *, abstention: bool,
               field_prefix: str = "", error: type[Exception] = EpisodeError) -> None:
    """The gold answer and its superseded values: bounded, saying something, and apart.

    Used by every reader of episodes (episode files, LongMemEval) with its own error type."""
    def fail(fieldname: str, problem: str) -> Exception:
        return error(f"{where}: item {item}: field {field_prefix}{fieldname}: {problem}")

    if len(answer) > MAX_GOLD_CHARS:
        raise fail("answer", f"{len(answer):,} characters (at most {MAX_GOLD_CHARS:,})")
    if not abstention and not has_content(answer):
        raise fail("answer", "holds no letter or digit" if answer.strip() else "empty on an answerable item")
    if len(stale) > MAX_STALE_VALUES:
        raise fail("stale_values", f"{len(stale)} values (at most {MAX_STALE_VALUES})")
    for index, value in enumerate(stale):
        if len(value) > MAX_VALUE_CHARS:
            raise fail(f"stale_values[{index}]", f"{len(value):,} characters (at most {MAX_VALUE_CHARS:,})")
        if not has_content(value):
            raise fail(f"stale_values[{index}]", f"{excerpt(value, 20)} holds no letter or digit")
        if not abstention and same_value(value, answer):
            raise fail(f"stale_values[{index}]", f"{excerpt(value, 40)} is the answer itself; a superseded "
                       "value must differ from the current one")


def check_question(where: str, item: str, question: str, *, fieldname: str = "question",
                   error: type[Exception] = EpisodeError) -> None:
    """A question says something and is at most :data:`~.limits.MAX_QUESTION_CHARS` characters."""
    if not question.strip():
        raise error(f"{where}: item {item}: field {fieldname}: empty")
    if not has_content(question):
        raise error(f"{where}: item {item}: field {fieldname}: holds no letter or digit")
    if len(question) > MAX_QUESTION_CHARS:
        raise error(f"{where}: item {item}: field {fieldname}: {len(question):,} characters (at most "
                    f"{MAX_QUESTION_CHARS:,})")
