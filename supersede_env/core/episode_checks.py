"""What every reader of episodes checks about the values that matter: ids shown safely, questions and
gold answers that say something, within their bounds, and superseded values apart from the answer.

Episode files (:mod:`.episode`) and LongMemEval files (:mod:`.longmemeval`) call these with their
own error type, so a bad value reads the same from either: one line naming the file, the item and
the field. The bounds live in :mod:`.limits`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from supersede_env.core.errors import EpisodeError
from supersede_env.core.limits import MAX_GOLD_CHARS, MAX_QUESTION_CHARS, MAX_STALE_VALUES, MAX_VALUE_CHARS
from supersede_env.core.safe_text import excerpt, for_console

if TYPE_CHECKING:
    from supersede_env.core.episode import Episode

__all__ = ["item_name", "has_content", "same_value", "check_question", "check_gold", "check_consistency",
           "parse_session_date"]


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


# -- dates -------------------------------------------------------------------------------------
# The release writes "2023/05/20 (Sat) 02:21". The weekday is decoration (and locale-dependent for
# strptime's %a), so it is matched by the pattern and ignored; date and time are checked by datetime.
_DATE_RE = re.compile(
    r"^\s*(?P<y>\d{4})[/-](?P<m>\d{1,2})[/-](?P<d>\d{1,2})"
    r"(?:\s*\((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\))?"
    r"(?:[\sT]+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2}))?)?\s*$",
    re.IGNORECASE,
)


def parse_session_date(text: str) -> datetime:
    """Parse a session or question timestamp as LongMemEval writes it such as ``2023/05/20 (Sat) 02:21``.

    Also accepts ``-`` separators, no weekday, seconds, or no time (midnight), and ISO 8601. Raises
    ``ValueError`` for anything else, including impossible dates such as month 13.
    """
    match = _DATE_RE.match(text)
    if match is None:
        try:  # ISO 8601 too ("2024-03-02T10:15:00Z", fractional seconds), compared without its zone
            return datetime.fromisoformat(text.strip()).replace(tzinfo=None)
        except ValueError:
            raise ValueError(f"{text!r} is not a date like '2023/05/20 (Sat) 02:21' or ISO 8601") from None
    parts = {k: int(v) if v is not None else 0 for k, v in match.groupdict().items()}
    try:
        return datetime(parts["y"], parts["m"], parts["d"], parts["H"], parts["M"], parts["S"])
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a valid date ({exc})") from None


# -- one episode's parts against each other ----------------------------------------------------
def check_consistency(where: str, episode: Episode, error: type[Exception] = EpisodeError) -> None:
    """What a well-formed episode can still get wrong: the asked slot missing from its gold states or
    holding another value than the answer, a superseded value or a session id given twice, a turn
    with no text, and dates that do not parse or go back in time.

    LongMemEval's own release repeats session ids (in ``_s``), has a few empty turns (three in
    ``_s``), dates some questions before their last session, and its annotated states word values
    differently from the gold text (``four`` for ``4``): for ``source: longmemeval`` those four checks
    are left out; the others hold for every source."""
    item = item_name(episode.id)
    release_quirks = episode.source == "longmemeval"

    def fail(fieldname: str, problem: str) -> Exception:
        return error(f"{where}: item {item}: field {fieldname}: {problem}")

    for index, value in enumerate(episode.stale_values):
        if any(same_value(value, earlier) for earlier in episode.stale_values[:index]):
            raise fail(f"stale_values[{index}]", f"{excerpt(value, 40)} is given twice")
    seen: set[str] = set()
    for index, session in enumerate(episode.sessions):
        if session.id in seen and not release_quirks:
            raise fail(f"sessions[{index}].id", f"{excerpt(session.id, 40)} is used by another session")
        if session.id is not None:
            seen.add(session.id)
        empty = next((k for k, turn in enumerate(session.turns) if not turn.content.strip()), None)
        if empty is not None and not release_quirks:
            raise fail(f"sessions[{index}].turns[{empty}].content", "empty (a turn says something)")
    if episode.states and episode.slot is not None and not episode.abstention:
        final = episode.states[-1].values
        if episode.slot not in final:
            raise fail("slot", f"{excerpt(episode.slot, 40)} has no value in the last gold state "
                       f"(states[{len(episode.states) - 1}].values)")
        if not same_value(final[episode.slot], episode.answer) and not release_quirks:
            raise fail("answer", f"{excerpt(episode.answer, 40)} differs from the last gold state's value of "
                       f"{excerpt(episode.slot, 40)}, {excerpt(final[episode.slot], 40)}")
    _check_dates(episode, fail, question_after_sessions=not release_quirks)


def _check_dates(episode: Episode, fail: Any, *, question_after_sessions: bool) -> None:
    previous: datetime | None = None
    for index, session in enumerate(episode.sessions):
        if session.date is None:
            continue
        try:
            date = parse_session_date(session.date)
        except ValueError as exc:
            raise fail(f"sessions[{index}].date", str(exc)) from None
        if previous is not None and date < previous:
            raise fail(f"sessions[{index}].date", f"{excerpt(session.date, 40)} is before the session above it "
                       "(sessions are in the order they happened)")
        previous = date
    if episode.question_date is not None:
        try:
            asked = parse_session_date(episode.question_date)
        except ValueError as exc:
            raise fail("question_date", str(exc)) from None
        if question_after_sessions and previous is not None and asked < previous:
            raise fail("question_date", f"{excerpt(episode.question_date, 40)} is before the last session")
