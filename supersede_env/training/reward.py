"""The training reward: ``r_cur + lambda * r_stale`` from the hardened grader, per episode.

``r_cur`` is +1 when the final answer conveys the current value (on an abstention item: when it
abstains), ``r_stale`` is -1 when it asserts a superseded value; ``lambda`` (``stale_weight``) = 0
reproduces the paper, lambda > 0 is the variant it describes but never ran. The grader's verdict is
kept beside the reward so that the verdict mix can be logged.

A rollout that ended on a failed model call has no answer: its reward is NaN (unscorable), which
the advantage computation turns into "no learning signal", never into a wrong answer.

:class:`SupersessionReward` is also a TRL reward function (batch in, floats out, dataset columns as
keyword arguments), so the same scoring is what ``GRPOTrainer`` registers and logs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from supersede_env.episode import Episode
from supersede_env.grader import Verdict, grade, grade_episode
from supersede_env.rollout import Transcript


@dataclass(frozen=True)
class EpisodeScore:
    """The reward of one rollout and the verdict it came from (None for a failed rollout)."""

    reward: float
    verdict: Verdict | None

    @property
    def label(self) -> str:
        return self.verdict.label if self.verdict is not None else "failed"


def score_answer(answer: str, episode: Episode, stale_weight: float = 0.0) -> EpisodeScore:
    verdict = grade_episode(answer, episode)
    return EpisodeScore(verdict.r_cur + stale_weight * verdict.r_stale, verdict)


def score_transcript(transcript: Transcript, episode: Episode, stale_weight: float = 0.0) -> EpisodeScore:
    """Grade what the rollout answered; a failed rollout is unscorable (reward NaN, no verdict)."""
    if transcript.status != "ok" or transcript.graded_text is None:
        return EpisodeScore(math.nan, None)
    return score_answer(transcript.graded_text, episode, stale_weight)


class SupersessionReward:
    """TRL reward function: ``r_cur + stale_weight * r_stale`` of each completion's text."""

    def __init__(self, stale_weight: float = 0.0) -> None:
        self.stale_weight = stale_weight
        self.__name__ = "supersession"  # TRL names logged reward columns after the function

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        *,
        answer: Sequence[str],
        stale_values: Sequence[Sequence[str]],
        abstention: Sequence[bool],
        question: Sequence[str] | None = None,
        **_: Any,
    ) -> list[float]:
        rewards = []
        for i, completion in enumerate(completions):
            text = completion[-1]["content"] if isinstance(completion, list) else str(completion)
            verdict = grade(
                text,
                answer[i],
                stale=stale_values[i],
                abstention=abstention[i],
                question=question[i] if question is not None else None,
            )
            rewards.append(verdict.r_cur + self.stale_weight * verdict.r_stale)
        return rewards
