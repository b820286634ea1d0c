"""A memo (or store) read against the gold state after its session: FEB-30's intrinsic view.

One reading serves the evaluation's memo diagnostics (:mod:`supersede_env.evaluation.diagnostics`)
and the trainer's dense gold-state credit (:func:`gold_credit`), so both count the same things.

**Value matching.** "The memo holds ``v``" (:func:`memo_contains`) reuses the grader's value
normalisation (:mod:`supersede_env.core.grader.tokens`): texts are tokenised into words (compared by
stem) and parsed values (``four`` = ``4``, ``6 pm`` = ``18:00``, ``$1,250`` = ``1250 dollars``), and
a value is present when its tokens occur contiguously in the memo's tokens, ignoring punctuation and
articles (line breaks too: a memo is read line by line, each distinct line once). So matching is word-bounded and meaning-level: ``25`` is not in ``250`` and ``ten`` is not
in ``tennis``.

**The view of one memo** (:func:`memo_view`) after session ``i``:

- *current*: the gold current value of every slot mentioned so far, and how many the memo holds;
- *stale*: the superseded values of those slots (``Episode.stale_at``, minus any value that is
  current again), and how many the memo still holds;
- *decoys*: values the conversation has mentioned so far that were never the user's (someone
  else's, a hypothetical, a negation; synthetic episodes list them in ``meta.decoys``), and how many
  the memo holds.

**Dense gold-state credit** (:func:`gold_credit`), in [-1, 1]: the share of current values held
minus the share of wrong values held (stale and decoy values together). A memo that lists every
value it has seen holds the current ones and every wrong one, so it scores about 0, no more than an
empty memo: keeping the current value earns credit only when the superseded one is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from supersede_env.core.episode import Episode
from supersede_env.core.grader.tokens import (
    PUNCT,
    VALUE_KINDS,
    WORD,
    Token,
    normalise_text,
    tokenize,
    values_equal,
)

_IGNORED_WORDS = frozenset({"a", "an", "the"})


# -- value matching ---------------------------------------------------------------------------------
# A memo is read line by line: it keeps most of its lines from one session's memo to the next, so each
# distinct line is tokenised and indexed once (a number is never joined to a unit on the next line).
# A value may still run on from one line into the next: matching walks the lines' tokens in order.
_Line = tuple[tuple[Token, ...], Mapping[tuple[Any, ...], tuple[int, ...]]]  # tokens; per bucket, where


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[Token, ...]:
    """The words and values of a text, punctuation and articles left out."""
    return tuple(token for line in normalise_text(text).split("\n") for token in _line(line)[0])


@lru_cache(maxsize=65536)
def _line(line: str) -> _Line:
    """One normalised line's tokens and, per bucket, where they stand (a memo is searched for many values)."""
    tokens = tuple(token for token in tokenize(line)
                   if token.kind != PUNCT and not (token.kind == WORD and token.text in _IGNORED_WORDS))
    starts: dict[tuple[Any, ...], list[int]] = {}
    for position, token in enumerate(tokens):
        starts.setdefault(_bucket(token), []).append(position)
    return tokens, {bucket: tuple(positions) for bucket, positions in starts.items()}


@lru_cache(maxsize=4096)
def _lines(memo: str) -> tuple[_Line, ...]:
    return tuple(_line(line) for line in normalise_text(memo).split("\n"))


def _same(g: Token, a: Token) -> bool:
    if g.kind == WORD:
        return a.kind == WORD and a.value == g.value
    if g.kind in VALUE_KINDS:
        return a.kind in VALUE_KINDS and values_equal(g, a)
    return a.kind == g.kind and a.value == g.value


def _bucket(token: Token) -> tuple[Any, ...]:
    """Tokens that :func:`_same` can match share a bucket: a word's stem, any value, or a kind."""
    if token.kind == WORD:
        return (WORD, token.value)
    return ("value",) if token.kind in VALUE_KINDS else ("kind", token.kind)


def _matches_at(needle: tuple[Token, ...], lines: tuple[_Line, ...], n: int, start: int) -> bool:
    """Do the memo's tokens from line ``n``, position ``start`` on (into the next lines) begin with ``needle``?"""
    for g in needle:
        while start >= len(lines[n][0]):
            n, start = n + 1, 0
            if n == len(lines):
                return False
        if not _same(g, lines[n][0][start]):
            return False
        start += 1
    return True


@lru_cache(maxsize=65536)  # a report asks of each memo the same values under several diagnostics
def memo_contains(memo: str, value: str) -> bool:
    """Is ``value`` stated in ``memo``? Contiguous token match with meaning-level value equality."""
    needle = _tokens(value)
    if not needle or not memo:
        return False
    lines = _lines(memo)
    bucket = _bucket(needle[0])
    # only where the first token can match: the same answer as trying every position, much sooner
    return any(_matches_at(needle, lines, n, start)
               for n, (_, starts) in enumerate(lines) for start in starts.get(bucket, ()))


# -- one memo against the gold state ------------------------------------------------------------------
@dataclass(frozen=True)
class MemoView:
    """What a memo written after one session holds of the gold state at that moment."""

    current_total: int
    current_held: int
    stale_total: int
    stale_held: int
    decoys_total: int
    decoys_held: int

    @property
    def coverage(self) -> float | None:
        return self.current_held / self.current_total if self.current_total else None

    @property
    def stale_retention(self) -> float | None:
        return self.stale_held / self.stale_total if self.stale_total else None


def memo_view(episode: Episode, session_index: int, memo: str) -> MemoView | None:
    """The memo after session ``session_index`` (0-based) against the gold state then; None without states."""
    if episode.states is None or not 0 <= session_index < len(episode.states):
        return None
    gold = episode.states[session_index].values
    held = sum(1 for value in gold.values() if memo_contains(memo, value))
    stale = [v for slot, values in episode.stale_at(session_index).items() for v in values if v != gold.get(slot)]
    stale_held = sum(1 for value in stale if memo_contains(memo, value))
    decoys = _decoys_until(episode, session_index) - set(gold.values()) - set(stale)
    decoys_held = sum(1 for value in decoys if memo_contains(memo, value))
    return MemoView(len(gold), held, len(stale), stale_held, len(decoys), decoys_held)


def _decoys_until(episode: Episode, session_index: int) -> set[str]:
    """Decoy values mentioned up to ``session_index`` (synthetic episodes' ``meta.decoys``)."""
    decoys = episode.meta.get("decoys") if isinstance(episode.meta, Mapping) else None
    if not isinstance(decoys, list):
        return set()
    return {d["value"] for d in decoys if isinstance(d, Mapping) and isinstance(d.get("value"), str)
            and isinstance(d.get("session"), int) and d["session"] <= session_index}


def gold_credit(view: MemoView) -> float:
    """Dense credit of a memo in [-1, 1]: share of current values held minus share of wrong values held."""
    wrong_total = view.stale_total + view.decoys_total
    kept = view.current_held / view.current_total if view.current_total else 0.0
    wrong = (view.stale_held + view.decoys_held) / wrong_total if wrong_total else 0.0
    return kept - wrong
