"""Questions on a stale premise: the episode's own question, asked as if a superseded value still held.

"Since it's still Phoenix: where do I live now?" The right answer corrects the premise with the current
value; going along with it states the superseded one (stale). The grader needs nothing new for that:
the premise value is a superseded candidate either way (official reads a leading "No," as the
correction it is; strict accounts for it only on a premise question, :mod:`.grader.strict`).

:func:`with_premises` rewrites a share of the answerable episodes that carry a superseded value (the
latest one is presumed): synthetic ones, files, and LongMemEval items whose annotation gives one. Which
episodes, and which wording, are fixed by the episode id, so the same run always asks the same
questions. The presumed value is kept in ``meta["premise"]``: reports give the accuracy on those
questions apart ("premise resistance").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from supersede_env.core.episode import Episode
from supersede_env.core.grader.lexicon import YES_NO_WORDS
from supersede_env.core.grader.tokens import normalise_text
from supersede_env.core.sampling import share_point

META_KEY = "premise"
FORMS: tuple[str, ...] = (
    "Since it's still {stale}: {question}",
    "{question} It's still {stale}, isn't it?",
)


def is_premise(episode: Episode) -> bool:
    return META_KEY in episode.meta


def can_take_premise(episode: Episode) -> bool:
    """An answerable question with a superseded value that is not a yes or a no ("Since it's still No: ..."
    presumes nothing)."""
    return not episode.abstention and bool(episode.stale_values) and not is_premise(episode) and not any(
        normalise_text(v).strip(" .!") in YES_NO_WORDS for v in (*episode.stale_values, episode.answer))


def with_premise(episode: Episode) -> Episode:
    """``episode`` asked on the premise that its latest superseded value still holds."""
    if not can_take_premise(episode):
        raise ValueError(f"episode {episode.id}: a premise needs an answerable question with a superseded value "
                         "(not a yes or a no)")
    stale = episode.stale_values[-1]  # the value the user held last before the current one
    form = FORMS[int(share_point(f"premise-form:{episode.id}") * len(FORMS))]
    return replace(episode, question=form.format(stale=stale, question=episode.question),
                   meta={**episode.meta, META_KEY: stale})


def with_premises(episodes: Sequence[Episode], rate: float) -> list[Episode]:
    """A share ``rate`` of the episodes that can take a premise asked on one (chosen by id); the rest as
    they are."""
    if not rate:
        return list(episodes)
    return [with_premise(e) if can_take_premise(e) and share_point(f"premise:{e.id}") < rate else e
            for e in episodes]
