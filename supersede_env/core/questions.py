"""Many questions per episode: the memo is built once, then every slot's question is asked of it.

An episode asks one question. A synthetic episode also carries a question per tracked slot
(``slot_questions``); an episode marked by :func:`ask_all` asks them all. The rollout
(:mod:`.rollout`) then writes the memo once over the sessions and makes one answer call per question,
each from the same final notes (``full``: each from the whole history). The first question is the
episode's own; the others follow in the episode's slot order, each as a *question episode*
(:func:`asked`): the episode with that slot's question, gold and superseded values, under the id
``<episode id>~<slot>``. Every question is graded on its own and paired on its own (an evaluation
pair is an episode's question under a condition); the trainer pays a rollout the mean of its
questions' rewards (training/README.md).

An episode without slot questions (LongMemEval items, most files) asks its own question alone. The
mark is ``meta["questions"] == "all"``: it travels with the episode into a run's ``episodes.jsonl``,
so a resumed run asks the same questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from supersede_env.core.episode import Episode
from supersede_env.core.errors import EpisodeError

META_KEY = "questions"
ALL = "all"
QUESTION_MODES: tuple[str, ...] = ("one", ALL)
SEPARATOR = "~"  # <episode id>~<slot>: the id of an episode's question about another slot
ASKED_IN = "asked_in"  # meta of a question episode: the id of the episode whose memo answers it


def ask_all(episode: Episode) -> Episode:
    """``episode`` marked to ask every slot's question."""
    return replace(episode, meta={**episode.meta, META_KEY: ALL})


def with_questions(episodes: Sequence[Episode], mode: str) -> list[Episode]:
    """The episodes as ``mode`` asks them (``one``: as they are; ``all``: each marked by :func:`ask_all`)."""
    if mode not in QUESTION_MODES:
        raise ValueError(f"questions: {mode!r} is not one of {', '.join(QUESTION_MODES)}")
    if mode != ALL:
        return list(episodes)
    marked = [ask_all(e) for e in episodes]
    ids = {e.id for e in episodes}
    for episode in marked:  # a question's id must name it alone: its verdict is recorded under it
        clash = next((q.id for q in asked(episode)[1:] if q.id in ids), None)
        if clash is not None:
            raise EpisodeError(f"item {clash}: field id: the id of episode {episode.id}'s question about "
                               f"{clash.rsplit(SEPARATOR, 1)[1]} is taken by another episode (rename one)")
    return marked


def asks_all(episode: Episode) -> bool:
    return episode.meta.get(META_KEY) == ALL


def asked(episode: Episode) -> tuple[Episode, ...]:
    """The questions ``episode`` asks, each as an episode: its own first, then (when marked) the
    question of every other slot it tracks."""
    if not asks_all(episode):
        return (episode,)
    own_meta = {k: v for k, v in episode.meta.items() if k != META_KEY}
    own = replace(episode, meta=own_meta)
    others = tuple(
        replace(episode, id=f"{episode.id}{SEPARATOR}{q.slot}", question=q.question, answer=q.answer,
                stale_values=q.stale_values, abstention=False, slot=q.slot,
                meta={k: v for k, v in own_meta.items() if k != "premise"} | {ASKED_IN: episode.id})
        for q in episode.slot_questions if q.slot != episode.slot)
    return (own, *others)


def all_asked(episodes: Sequence[Episode]) -> list[Episode]:
    """Every question of every episode, as question episodes, in order (what reports pair and grade)."""
    return [q for e in episodes for q in asked(e)]


def asked_in(question: Episode) -> str:
    """The id of the episode (the rollout, the memo) that answers ``question``."""
    value = question.meta.get(ASKED_IN)
    return value if isinstance(value, str) else question.id
