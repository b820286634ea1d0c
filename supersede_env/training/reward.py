"""The training reward: ``r_cur + lambda * r_stale`` from the grader in ``strict`` mode, per rollout.

``r_cur`` is +1 when the final answer conveys the current value (on an abstention item: when it
abstains), ``r_stale`` is -1 when it asserts a superseded value; ``lambda`` (``stale_weight``) = 0
reproduces the paper, lambda > 0 is the variant it describes but never ran. Training grades in the
grader's ``strict`` mode (the training and verifiers reward mode); evaluation reports ``official``.

A rollout that ended on a failed model call has no answer: it is unscorable (``None`` to TRL, NaN
here), which the advantage computation turns into "no learning signal", never into a wrong answer.

:class:`SupersessionReward` is a TRL reward function (batch in, floats out, extra columns as keyword
arguments). The trainer calls every reward function through TRL's own ``_calculate_rewards`` with one
row per rollout and the columns ``episode`` and ``transcript``, so ``reward_weights`` and any extra
TRL-style reward function work as they do in TRL. ``completions`` holds the graded text of each
rollout's answer (None for a failed rollout). The trainer grades each rollout once and passes that
strict-mode verdict in the column ``verdict``, so the reward and the rollouts log share one grade.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from supersede_env.core.episode import Episode
from supersede_env.core.grader import Verdict, grade_episode
from supersede_env.core.rollout import Transcript

REWARD_MODE = "strict"


@dataclass(frozen=True)
class EpisodeScore:
    """The reward of one rollout and the verdict it came from (None for a failed rollout)."""

    reward: float
    verdict: Verdict | None

    @property
    def label(self) -> str:
        return self.verdict.label if self.verdict is not None else "failed"


def score_transcript(transcript: Transcript, episode: Episode, stale_weight: float = 0.0,
                     verdict: Verdict | None = None) -> EpisodeScore:
    """Grade what the rollout answered (strict mode); a failed rollout is unscorable (reward NaN, no verdict).
    ``verdict``: the rollout's strict-mode verdict when the caller already graded it (it is not graded again)."""
    if transcript.status != "ok" or transcript.answer is None:
        return EpisodeScore(math.nan, None)
    if verdict is None or verdict.mode != REWARD_MODE:
        verdict = grade_episode(transcript.answer, episode, mode=REWARD_MODE, form=transcript.form)
    return EpisodeScore(verdict.r_cur + stale_weight * verdict.r_stale, verdict)


class SupersessionReward:
    """TRL reward function: ``r_cur + stale_weight * r_stale`` of each rollout's answer; None when it failed.

    >>> from supersede_env.core.synthetic import generate_episodes
    >>> from supersede_env.core.model_call import ModelReply
    >>> from supersede_env.core.rollout import start, advance
    >>> from supersede_env.core.conditions import parse_condition
    >>> episode = generate_episodes(1, seed=0, difficulty="L1")[0]
    >>> state = start(episode, parse_condition("memo:300"))
    >>> while not state.done:
    ...     state = advance(state, ModelReply(text=episode.answer))
    >>> SupersessionReward()([None], [episode.answer], episode=[episode], transcript=[state.transcript()])
    [1.0]
    """

    def __init__(self, stale_weight: float = 0.0) -> None:
        self.stale_weight = stale_weight
        self.__name__ = "supersession"  # TRL logs rewards/<name>/mean and /std

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        *,
        episode: Sequence[Episode],
        transcript: Sequence[Transcript],
        verdict: Sequence[Verdict | None] | None = None,
        **_: Any,
    ) -> list[float | None]:
        verdicts = verdict if verdict is not None else [None] * len(episode)
        rewards: list[float | None] = []
        for e, t, v in zip(episode, transcript, verdicts, strict=True):
            reward = score_transcript(t, e, self.stale_weight, v).reward
            rewards.append(None if math.isnan(reward) else reward)
        return rewards
