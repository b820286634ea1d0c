"""Dense gold-state credit's per-rollout inputs: each memo call's score against the gold state, and
whether a rollout's final memo holds the asked value (the class of its answer call's baseline).

The trainer (``SupersedeGRPOTrainer._gold_credit``) gathers these over processes and turns them into
advantages with :func:`.advantages.dense_credit` and ``group_advantages(..., classes=...)``; the
score itself is FEB-30's view of a memo (:func:`supersede_env.core.memo_state.gold_credit`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from supersede_env.core.memo_state import gold_credit, memo_contains, memo_view
from supersede_env.training.advantages import broadcast
from supersede_env.training.samples import CallSample

if TYPE_CHECKING:
    from supersede_env.training.trainer import RolloutResult


@dataclass(frozen=True)
class GoldCredit:
    """What dense gold-state credit does to a batch's advantages (nothing when it is off)."""

    per_sample: torch.Tensor  # the credit added to each memo call's advantage (0 for answer calls)
    answer: torch.Tensor | None  # per rollout of this process: its answer call's advantage (None: off)
    mean_score: float | None  # mean gold-state score of the batch's memo calls, all processes (None: off)

    def row_advantages(self, samples: Sequence[CallSample], advantages: torch.Tensor) -> torch.Tensor:
        """Each sample's advantage: its rollout's, plus the memo credit; an answer call's conditioned one."""
        rows = broadcast(advantages, [s.rollout for s in samples]) + self.per_sample
        if self.answer is None:
            return rows
        answers = [i for i, s in enumerate(samples) if s.kind == "answer"]
        rows[answers] = self.answer[[samples[i].rollout for i in answers]]
        return rows


def gold_scores(results: Sequence[RolloutResult]) -> torch.Tensor:
    """``[rollout, session]`` gold-state score of each memo call (NaN: none, a failed rollout, no gold states)."""
    width = max((len(r.transcript.memo_steps) for r in results), default=0)
    scores = torch.full((len(results), max(width, 1)), math.nan)
    for index, result in enumerate(results):
        if result.transcript.status != "ok":
            continue  # a failure never moves the policy
        for step in result.transcript.memo_steps:
            view = memo_view(result.episode, step.step, step.notes_after)
            if view is not None:
                scores[index, step.step] = gold_credit(view)
    return scores


def memo_holds_answer(results: Sequence[RolloutResult]) -> torch.Tensor:
    """Per rollout: 1 when its final memo holds the asked current value, 0 when not, -1 when unknown (an
    abstention item, no gold states, a failed rollout): the class of its answer call's baseline."""
    classes = torch.full((len(results),), -1, dtype=torch.long)
    for index, result in enumerate(results):
        episode, transcript = result.episode, result.transcript
        if transcript.status != "ok" or episode.abstention or not transcript.memo_steps or not episode.states:
            continue
        asked = episode.states[-1].values.get(episode.slot or "")
        if asked is not None:
            classes[index] = int(memo_contains(transcript.final_notes, asked))
    return classes
