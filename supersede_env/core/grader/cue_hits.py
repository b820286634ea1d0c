"""Finding cues: the phrases of the cue table (:data:`~.lexicon.CUES`) that stand near a mention,
longest first, and every "-n't" as a denial."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.lexicon import (
    CUE_TABLE,
    CUES,
    Cue,
)
from supersede_env.core.grader.mention import Mention
from supersede_env.core.grader.tokens import NUM

# ---------------------------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------------------------
# the table by its first word (one-word cues) and by its first two words (longer ones, longest first)
_SINGLE = {c.words[0]: c for cues in CUE_TABLE.values() for c in cues if len(c.words) == 1}


_SINGLE_WITHOUT_TENSES = {w: c for w, c in _SINGLE.items() if c.kind not in ("pasttense", "presenttense")}


def _by_first_two_words() -> dict[tuple[str, str], list[Cue]]:
    out: dict[tuple[str, str], list[Cue]] = {}
    for cue in sorted((c for c in CUES if len(c.words) > 1), key=lambda c: -len(c.words)):
        out.setdefault(cue.words[:2], []).append(cue)
    return out


_PAIRED = _by_first_two_words()


_NOT_CUE = Cue(("n't",), "neg", "fwd")


@dataclass(slots=True)
class CueHit:
    cue: Cue
    first: int
    last: int


_NEAR = 14  # tokens: no cue binds farther than this from its mention


def cue_hits_near(a: Answer, mentions: list[Mention], inside: set[int], tenses: bool) -> list[CueHit]:
    """The cues within reach of some mention (windows around the mentions), none before the
    conclusion's start ("The answer would be: X" does not make X hypothetical). Only the tokens the
    reading marked as possible cue starts are tried."""
    tokens, positions = a.tokens, a.cues
    windows: list[tuple[int, int]] = []
    for m in mentions:
        lo, hi = max(a.start, m.first - _NEAR), m.last + _NEAR
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], hi))
        else:
            windows.append((lo, hi))
    hits: list[CueHit] = []
    singles, pairs = (_SINGLE, _PAIRED) if tenses else (_SINGLE_WITHOUT_TENSES, _PAIRED)
    n = len(tokens)
    skip_to = -1
    for lo, hi in windows:
        for p in range(bisect_left(positions, lo), bisect_left(positions, hi)):
            i = positions[p]
            if i < skip_to or i in inside:
                continue
            text = tokens[i].text
            found: Cue | None = None
            longer = pairs.get((text, tokens[i + 1].text)) if i + 1 < n else None
            if longer:  # phrases of two words or more, longest first
                for cue in longer:
                    k = len(cue.words)
                    if i + k <= n and all(tokens[i + x].text == w and (i + x) not in inside
                                          for x, w in enumerate(cue.words) if x):
                        found = cue
                        break
            if found is None:
                found = singles.get(text)
            if found is None:
                if text.endswith("n't"):
                    hits.append(CueHit(_NOT_CUE, i, i))  # every "-n't" denies: "wouldn't", "mustn't"
                continue
            k = len(found.words)
            if text == "percent" and i > 0 and tokens[i - 1].kind == NUM and tokens[i - 1].value >= 100:
                continue  # "100% sure" is certainty, not a hedge
            hits.append(CueHit(found, i, i + k - 1))
            skip_to = i + k
    return hits
