"""Names an answer puts forward that the grader was not told of: runs of capitalised words.

A source that lists no superseded value (LongMemEval's release, a user's file) leaves the grader to
find the rivals of the gold itself. In a short reply, the policy's format, every name beside the gold
is one: "Chevy Malibu, Toyota Prius" lists two cars whether or not the grader knows the Malibu. On an
abstention item every name is a possible guess. A name is a run of words written with a capital
(in the reply as written), that is not a pronoun, a cue or discourse word, a word of the question, or a
sentence's first word standing before more words ("Therefore, ...", "There is ...").
"""

from __future__ import annotations

from collections.abc import Iterator

from supersede_env.core.grader.answer import Answer
from supersede_env.core.grader.lexicon import (
    ABSTAIN_TRIGGERS,
    COPULAS,
    CUE_STARTS,
    DISCOURSE,
    JOINERS,
    LIST_JOINERS,
    NOT_NAMES,
    PRONOUNS,
    SENTENCE_END,
    STAYING_VERBS,
    TITLES,
    UNSURE_SUBJECTS,
)
from supersede_env.core.grader.tokens import LABEL, PUNCT, WORD, Token

__all__ = ["name_runs", "namelike", "DISCOURSE"]

_STARTS = frozenset({".", "!", "?", "\n", "\n\n", ":", ";", '"', "("})
_COPULAS = COPULAS | STAYING_VERBS  # "Porto is current."


def namelike(t: Token, q_stems: frozenset[str]) -> bool:
    # a pronoun's contraction ("I'll", "You've") is the pronoun, however it is capitalised
    return (t.text.partition("'")[0] not in PRONOUNS and t.text not in CUE_STARTS and t.text not in NOT_NAMES
            and t.text not in ABSTAIN_TRIGGERS and t.value not in q_stems and not t.text.endswith("n't"))


def name_runs(a: Answer, q_stems: frozenset[str], *, beside_abstention: bool = False,
              listed: bool = False) -> Iterator[tuple[int, int]]:
    """Token spans of the names in the answer's conclusion (empty when its casing was lost).

    A sentence's first word is a name only when the run is several words, stands alone ("Taipei?"),
    or (``beside_abstention``) is offered beside an abstention ("Luna or unknown", "Luna, I don't know"),
    or (``listed``) is followed by a list joiner or a copula ("Malibu, Prius", "Malibu or Prius", "Porto is
    current")."""
    tokens, source = a.tokens, a.source
    if len(source) != len(a.text):
        return
    i, n = a.start, len(tokens)
    while i < n:
        t = tokens[i]
        if t.kind == WORD and source[t.start:t.start + 1].isupper() and namelike(t, q_stems):
            j = i
            while j + 1 < n:
                nxt = tokens[j + 1]
                if nxt.kind == WORD and source[nxt.start:nxt.start + 1].isupper() \
                        and source[tokens[j].end:nxt.start] == " ":  # a tab or two spaces part two names
                    j += 1
                elif nxt.text == "." and tokens[j].text in TITLES and j + 2 < n and tokens[j + 2].kind == WORD:
                    j += 1  # "Dr. Johnson": the title's full stop
                else:
                    break
            sentence_start = i == 0 or (tokens[i - 1].kind == PUNCT and tokens[i - 1].text in _STARTS
                                        and not (i > 1 and tokens[i - 2].text in TITLES))
            alone = j + 1 >= n or (tokens[j + 1].kind == PUNCT and tokens[j + 1].text in SENTENCE_END)
            item = listed and j + 1 < n and (tokens[j + 1].text in LIST_JOINERS or tokens[j + 1].text in _COPULAS) \
                and tokens[j].text not in DISCOURSE
            if (not sentence_start or j > i or alone or item or (beside_abstention and _beside_abstention(tokens, j))) \
                    and not (j + 1 < n and tokens[j + 1].kind == LABEL):
                yield i, j
            i = j
        i += 1


def _beside_abstention(tokens: list[Token], j: int) -> bool:
    """Is the word at j offered beside an abstention: "Luna or unknown", "Luna / not sure", "Luna, I don't
    know"? (A discourse word or an -ly adverb before a comma opens a sentence: "Sadly, I don't know".)"""
    if j + 2 >= len(tokens):
        return False
    joiner, after = tokens[j + 1].text, tokens[j + 2]
    word = tokens[j].text
    if joiner in JOINERS:
        return True
    if joiner not in (",", ";", "-", "\n") or word in DISCOURSE or (len(word) >= 6 and word.endswith("ly")):
        return False
    return after.kind == WORD and (after.text in ABSTAIN_TRIGGERS or after.text in UNSURE_SUBJECTS)
