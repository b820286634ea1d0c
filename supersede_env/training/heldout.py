"""Held-out evaluation during training: which questions, and how a checkpoint compares with the base.

The held-out set is, by default, the 78 knowledge-update questions of LongMemEval's oracle split
(never trained on, as in the paper) when the file is available: a path, or the cached cleaned
release (``oracle``; downloaded only where the network allows). Otherwise, or when asked, it is a
synthetic split generated with its own seed, disjoint from the training episodes.

The trainer answers every held-out question greedily (temperature 0) with the current adapter,
under the training condition, grades the answers with the hardened grader, and compares them with
the base model's answers to the same questions: accuracy of both and the exact McNemar test on the
discordant pairs (b = right only before training, c = right only now).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from supersede_env.episode import Episode
from supersede_env.stats import compare_paired
from supersede_env.training.config import ConfigError, EvalSection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HeldoutSet:
    name: str  # "longmemeval-oracle-ku" or "synthetic-<difficulty>-seed<seed>"
    episodes: tuple[Episode, ...]


@dataclass(frozen=True)
class HeldoutComparison:
    n: int
    correct: int
    base_correct: int
    b: int  # right before training only
    c: int  # right now only
    p_exact: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else float("nan")

    @property
    def base_accuracy(self) -> float:
        return self.base_correct / self.n if self.n else float("nan")

    def metrics(self, prefix: str = "heldout") -> dict[str, float]:
        return {
            f"{prefix}/accuracy": self.accuracy,
            f"{prefix}/base_accuracy": self.base_accuracy,
            f"{prefix}/n": float(self.n),
            f"{prefix}/mcnemar_b": float(self.b),
            f"{prefix}/mcnemar_c": float(self.c),
            f"{prefix}/mcnemar_p": self.p_exact,
        }


def compare_with_base(now: Mapping[str, bool], base: Mapping[str, bool]) -> HeldoutComparison:
    """Accuracy now and before training on the questions both graded, with the exact McNemar test."""
    result = compare_paired("base", base, "trained", now)
    t = result.table
    return HeldoutComparison(
        n=t.n, correct=t.second_correct, base_correct=t.first_correct, b=t.b, c=t.c, p_exact=result.p_exact
    )


def load_heldout(
    section: EvalSection, *, training_ids: Sequence[str] = (), source: str = "config"
) -> HeldoutSet:
    """The held-out episodes the config asks for (LongMemEval when available, else synthetic)."""
    if section.heldout == "longmemeval":
        episodes = _longmemeval(section.longmemeval)
        if episodes is not None:
            return _limited(HeldoutSet("longmemeval-oracle-ku", tuple(episodes)), section.limit)
    from supersede_env import synthetic

    try:
        episodes = synthetic.generate_episodes(
            section.synthetic_count, seed=section.synthetic_seed, difficulty=section.synthetic_difficulty
        )
    except synthetic.SyntheticConfigError as exc:
        raise ConfigError(f"{source}: field eval.synthetic_difficulty: {exc}") from None
    overlap = sorted({e.id for e in episodes} & set(training_ids))
    if overlap:
        raise ConfigError(
            f"{source}: field eval.synthetic_seed: held-out episode {overlap[0]} is also a training "
            "episode; choose a seed different from episodes.seed"
        )
    name = f"synthetic-{section.synthetic_difficulty}-seed{section.synthetic_seed}"
    return _limited(HeldoutSet(name, tuple(episodes)), section.limit)


def _limited(heldout: HeldoutSet, limit: int | None) -> HeldoutSet:
    return heldout if limit is None else HeldoutSet(heldout.name, heldout.episodes[:limit])


def _longmemeval(spec: str) -> list[Episode] | None:
    from supersede_env.longmemeval import LongMemEvalError, load_longmemeval, resolve_longmemeval

    try:
        path = resolve_longmemeval(spec)
    except LongMemEvalError as exc:
        log.warning("held-out LongMemEval file not available (%s); using the synthetic held-out split", exc)
        return None
    return load_longmemeval(path, question_types="knowledge-update")
